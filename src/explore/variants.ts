/**
 * The requests the phase explores, in order, from one valid request: first the edges (each slot's edge values, each
 * optional member left out or set, each oneOf branch of a member), spread so that every kind of edge reaches some
 * member early (slot k takes its kinds starting at the k-th: a small budget still tries every kind), then seeded
 * random values of each slot from the generator the suite already uses (json-schema-faker, src/values/generate.ts).
 * Every variant changes one slot of the valid request, so a failure already names the member that caused it.
 */
import type { SpecDocument } from '../catalogue/openapi.js';
import type { RequestParts } from '../http/request-parts.js';
import { isObj } from '../json.js';
import { generateValid } from '../values/generate.js';
import { edgeValues, type EdgeValue } from './edge-values.js';
import { slotName, withSlot, type Slot } from './input-space.js';

export interface Variant {
  parts: RequestParts;
  slot: Slot;
  /** The value set (undefined: the member left out). */
  value: unknown;
  kind: string;
  phase: 'edge' | 'random';
}

/** Seeded random values tried per slot once the edges are spent. */
const RANDOM_ROUNDS = 3;

/** A oneOf/anyOf member's branches, each as a made value (null branches are the `null` edge). */
function branchValues(spec: SpecDocument, slot: Slot, seed: number): EdgeValue[] {
  const key = Array.isArray(slot.schema['oneOf']) ? 'oneOf' : Array.isArray(slot.schema['anyOf']) ? 'anyOf' : undefined;
  if (!key) return [];
  const out: EdgeValue[] = [];
  (slot.schema[key] as unknown[]).forEach((branch, i) => {
    if (isObj(branch) && branch['type'] === 'null') return;
    const made = generateValid(spec, branch, seed + i);
    if (made.ok) out.push({ value: made.value, kind: `${key} branch ${i + 1}` });
  });
  return out;
}

/**
 * One slot's edges: its presence changed first when optional (left out, or set), then its values, rotated by the
 * slot's place so that across slots every kind of value comes early.
 */
function slotEdges(spec: SpecDocument, slot: Slot, place: number, seed: number): EdgeValue[] {
  const values = [...edgeValues(slot.schema, slot.base), ...branchValues(spec, slot, seed)];
  const shift = values.length ? place % values.length : 0;
  const out = [...values.slice(shift), ...values.slice(0, shift)];
  if (slot.optional && slot.base !== undefined) out.unshift({ value: undefined, kind: 'optional member absent' });
  if (slot.optional && slot.base === undefined) {
    const made = generateValid(spec, slot.schema, seed);
    if (made.ok) out.unshift({ value: made.value, kind: 'optional member present' });
  }
  return out;
}

export interface VariantPlan {
  /** How many variants the plan holds (edges, and random values to try), before validation. */
  total: number;
  variants: Generator<Variant>;
}

/** Every variant of `base` over `slots`, edges first, in a deterministic order for the seed. */
export function planVariants(spec: SpecDocument, base: RequestParts, slots: readonly Slot[], seed: number): VariantPlan {
  const edges = slots.map((s, i) => slotEdges(spec, s, i, seed + i * 7919));
  const total = edges.reduce((n, e) => n + e.length, 0) + RANDOM_ROUNDS * slots.length;
  return { total, variants: walk(spec, base, slots, edges, seed) };
}

function* walk(spec: SpecDocument, base: RequestParts, slots: readonly Slot[], edges: readonly EdgeValue[][], seed: number): Generator<Variant> {
  const longest = Math.max(0, ...edges.map((e) => e.length));
  for (let round = 0; round < longest; round++) {
    for (let k = 0; k < slots.length; k++) {
      const mine = edges[k]!;
      if (round >= mine.length) continue;
      const e = mine[round]!;
      yield { parts: withSlot(base, slots[k]!, e.value), slot: slots[k]!, value: e.value, kind: e.kind, phase: 'edge' };
    }
  }
  for (let round = 0; round < RANDOM_ROUNDS; round++) {
    for (let k = 0; k < slots.length; k++) {
      const made = generateValid(spec, slots[k]!.schema, seed + 104_729 * (round + 1) + k);
      if (!made.ok) continue;
      yield { parts: withSlot(base, slots[k]!, made.value), slot: slots[k]!, value: made.value, kind: `random value ${round + 1}`, phase: 'random' };
    }
  }
}

/** "first_name = \"Zoë\" (unicode: accented letter)", for messages. */
export function describeVariant(v: Pick<Variant, 'slot' | 'value' | 'kind'>): string {
  const shown = v.value === undefined ? 'left out' : `= ${JSON.stringify(v.value).slice(0, 80)}`;
  return `${slotName(v.slot)} ${shown} (${v.kind})`;
}
