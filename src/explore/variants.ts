/**
 * The requests the phase explores, in order, from one valid request. Each round changes every member it can at once,
 * each to another kind of value (a Latin square: the k-th of a set of like members starts its kinds at the k-th),
 * so a dozen requests put every kind of edge on every member: first the edges (each optional member left out or
 * set, each enum value, the bounds, format edge forms, unicode, punctuation, each oneOf branch, null where
 * nullable), then rounds of seeded random values from the generator the suite already uses (json-schema-faker,
 * src/values/generate.ts). A change that alone would make the request invalid for the document is left out of its
 * round; a round that is invalid only as a whole is sent change by change. Shrinking (src/explore/shrink.ts) finds
 * which change of a failing round broke the target.
 */
import type { SpecDocument } from '../catalogue/openapi.js';
import type { RequestParts } from '../http/request-parts.js';
import { isObj, type JsonObject } from '../json.js';
import { generateValid } from '../values/generate.js';
import { edgeValues, type EdgeValue } from './edge-values.js';
import { slotName, withSlot, type Slot } from './input-space.js';

/** One member set to a value (undefined: left out). */
export interface Change {
  slot: Slot;
  value: unknown;
  kind: string;
}

export interface Variant {
  parts: RequestParts;
  changes: Change[];
  phase: 'edge' | 'random';
}

/** Rounds of seeded random values once the edges are spent. */
const RANDOM_ROUNDS = 3;

/**
 * The branches of a oneOf/anyOf member the exploration makes a value of, with their place among the member's
 * branches (null branches are the `null` edge). The build compiles a validator for each (src/explore/reference-validators.ts).
 */
export function madeBranches(schema: JsonObject): { key: 'oneOf' | 'anyOf'; branch: unknown; place: number }[] {
  const key = Array.isArray(schema['oneOf']) ? 'oneOf' : Array.isArray(schema['anyOf']) ? 'anyOf' : undefined;
  if (!key) return [];
  return (schema[key] as unknown[]).flatMap((branch, place) => (isObj(branch) && branch['type'] === 'null' ? [] : [{ key, branch, place }]));
}

/** A oneOf/anyOf member's branches, each as a made value. */
function branchValues(spec: SpecDocument, slot: Slot, seed: number): EdgeValue[] {
  return madeBranches(slot.schema).flatMap(({ key, branch, place }) => {
    const made = generateValid(spec, branch, seed + place);
    return made.ok ? [{ value: made.value, kind: `${key} branch ${place + 1}` }] : [];
  });
}

/** Like members have the same kinds of edge (numbers in them aside: maxLength 100 and maxLength 200 are alike). */
const likeness = (values: readonly EdgeValue[]): string => values.map((e) => e.kind.replace(/\d+(\.\d+)?/g, 'N')).join('|');

/**
 * Each slot's edges: its presence changed first when optional (left out, or set), then its values, rotated by its
 * place among like slots so that a round gives like members different kinds.
 */
function slotEdges(spec: SpecDocument, slots: readonly Slot[], seed: number): EdgeValue[][] {
  const seen = new Map<string, number>();
  return slots.map((slot, i) => {
    const values = [...edgeValues(slot.schema, slot.base), ...branchValues(spec, slot, seed + i * 7919)];
    const like = likeness(values);
    const place = seen.get(like) ?? 0;
    seen.set(like, place + 1);
    const shift = values.length ? place % values.length : 0;
    const out = [...values.slice(shift), ...values.slice(0, shift)];
    if (slot.optional && slot.base !== undefined) out.unshift({ value: undefined, kind: 'optional member absent' });
    if (slot.optional && slot.base === undefined) {
      const made = generateValid(spec, slot.schema, seed + i * 7919);
      if (made.ok) out.unshift({ value: made.value, kind: 'optional member present' });
    }
    return out;
  });
}

export const applyChanges = (base: RequestParts, changes: readonly Change[]): RequestParts => changes.reduce((p, c) => withSlot(p, c.slot, c.value), base);

export interface VariantPlan {
  /** Rounds the plan holds (edges, then random), before validation: each at least one request. */
  total: number;
  variants: Generator<Variant>;
}

/**
 * Every variant of `base` over `slots`, edges first, in a deterministic order for the seed. `valid` says whether a
 * request is valid for the document (the plan never yields one that is not).
 */
export function planVariants(spec: SpecDocument, base: RequestParts, slots: readonly Slot[], seed: number, valid: (parts: RequestParts) => boolean): VariantPlan {
  const edges = slotEdges(spec, slots, seed);
  const edgeRounds = Math.max(0, ...edges.map((e) => e.length));
  return { total: edgeRounds + (slots.length ? RANDOM_ROUNDS : 0), variants: walk(spec, base, slots, edges, edgeRounds, seed, valid) };
}

function* rounds(spec: SpecDocument, slots: readonly Slot[], edges: readonly EdgeValue[][], edgeRounds: number, seed: number): Generator<{ changes: Change[]; phase: Variant['phase'] }> {
  for (let round = 0; round < edgeRounds; round++) {
    yield { phase: 'edge', changes: slots.flatMap((slot, k) => (round < edges[k]!.length ? [{ slot, value: edges[k]![round]!.value, kind: edges[k]![round]!.kind }] : [])) };
  }
  for (let round = 0; round < (slots.length ? RANDOM_ROUNDS : 0); round++) {
    const changes: Change[] = [];
    slots.forEach((slot, k) => {
      const made = generateValid(spec, slot.schema, seed + 104_729 * (round + 1) + k);
      if (made.ok) changes.push({ slot, value: made.value, kind: `random value ${round + 1}` });
    });
    yield { phase: 'random', changes };
  }
}

function* walk(spec: SpecDocument, base: RequestParts, slots: readonly Slot[], edges: readonly EdgeValue[][], edgeRounds: number, seed: number, valid: (parts: RequestParts) => boolean): Generator<Variant> {
  for (const { changes, phase } of rounds(spec, slots, edges, edgeRounds, seed)) {
    const fit = changes.filter((c) => valid(withSlot(base, c.slot, c.value)));
    if (fit.length === 0) continue;
    const together = applyChanges(base, fit);
    if (valid(together)) yield { parts: together, changes: fit, phase };
    else for (const c of fit) yield { parts: withSlot(base, c.slot, c.value), changes: [c], phase };
  }
}

/** "first_name = \"Zoë\" (unicode: accented letter)", for messages. */
export function describeChange(c: Pick<Change, 'slot' | 'value' | 'kind'>): string {
  const shown = c.value === undefined ? 'left out' : `= ${shownValue(c.value)}`;
  return `${slotName(c.slot)} ${shown} (${c.kind})`;
}

/** A value as a message shows it: a long string by its start and length, one repeated character as "a" × 100. */
function shownValue(v: unknown): string {
  if (typeof v !== 'string' || [...v].length <= 40) return JSON.stringify(v).slice(0, 80);
  const chars = [...v];
  return chars.every((c) => c === chars[0]) ? `${JSON.stringify(chars[0])} × ${chars.length}` : `${JSON.stringify(chars.slice(0, 40).join(''))}… (${chars.length} characters)`;
}
