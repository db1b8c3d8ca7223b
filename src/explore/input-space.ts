/**
 * The input space of one operation, read from its document around a valid request: the body members (at any depth
 * of objects) and optional query parameters a client may set, each with its schema, and whether it is optional.
 * Members that name a resource (`customer_id`, path parameters) are left as the valid request has them: another
 * value names nothing on the target, and the refusal says nothing of its input handling. So does a page position the
 * target issued (`cursor`): another value names no page.
 */
import { requestMediaOf, type Operation, type SpecDocument } from '../catalogue/openapi.js';
import { mergedSchema, propertiesOf } from '../catalogue/schema-walker.js';
import { isObj, type JsonObject } from '../json.js';
import type { RequestParts } from '../http/request-parts.js';
import { namesResource } from '../values/provenance.js';

export interface Slot {
  in: 'body' | 'query';
  /** Member names from the body's root, or the query parameter's name alone. */
  path: string[];
  schema: JsonObject;
  /** The member may be left out (not in its object's `required`, or an optional query parameter). */
  optional: boolean;
  /** The value the valid request has there (undefined: absent). */
  base: unknown;
}

/** A page position the target issues (cursor pagination): a value made here names no page, as a made-up id names nothing. */
const PAGE_POSITION = /^(cursor|after|before|starting_?after|ending_?before|continuation(_?token)?)$/i;

/** Whether a member or parameter of that name takes values a client chooses (not a resource's id, not a page position). */
export const clientChosen = (name: string): boolean => !namesResource(name) && !PAGE_POSITION.test(name);

/** How deep into nested objects members are explored (an address's lines, a card's expiry). */
const DEPTH = 4;

export const slotName = (s: Pick<Slot, 'in' | 'path'>): string => (s.in === 'query' ? `query ${s.path[0]}` : s.path.join('.'));

/** Where a valid request holds an object, or (`EVERY_OBJECT`) wherever the document allows one. */
const EVERY_OBJECT = Symbol('every object');

function bodySlots(spec: SpecDocument, schema: unknown, value: unknown, at: string[], out: Slot[], depth: number): void {
  const s = mergedSchema(spec, schema);
  if (!s || depth > DEPTH || (value !== undefined && value !== EVERY_OBJECT && !isObj(value))) return;
  const required = new Set(Array.isArray(s['required']) ? s['required'].map(String) : []);
  for (const [name, raw] of propertiesOf(spec, s)) {
    const member = mergedSchema(spec, raw);
    if (!member || member['readOnly'] === true || !clientChosen(name)) continue;
    const objectMember = member['type'] === 'object' || isObj(member['properties']);
    // Any valid request: a member whose schema gives properties (its own, or its branches') may hold an object.
    const base = value === EVERY_OBJECT ? (objectMember || propertiesOf(spec, member).size > 0 ? EVERY_OBJECT : undefined) : isObj(value) ? value[name] : undefined;
    const path = [...at, name];
    const nested = isObj(base) || base === EVERY_OBJECT || (base === undefined && objectMember);
    if (nested && (isObj(base) || base === EVERY_OBJECT)) bodySlots(spec, member, base, path, out, depth + 1);
    if (!nested || !required.has(name) || base === EVERY_OBJECT) out.push({ in: 'body', path, schema: member, optional: !required.has(name), base: base === EVERY_OBJECT ? undefined : base });
  }
}

/**
 * Every slot of the operation's input around the valid request `base`, in document order. Without one, every slot
 * any valid request could have: each member of every object the document allows, at the same depth.
 */
export function inputSlots(spec: SpecDocument, op: Operation, base?: RequestParts): Slot[] {
  const out: Slot[] = [];
  const media = requestMediaOf(op);
  if (media && (base === undefined || base.body !== undefined)) bodySlots(spec, media.schema, base ? base.body : EVERY_OBJECT, [], out, 0);
  for (const p of op.parameters) {
    if (p.in !== 'query' || p.required || !clientChosen(p.name) || !isObj(p.schema)) continue;
    const schema = mergedSchema(spec, p.schema) ?? p.schema;
    out.push({ in: 'query', path: [p.name], schema, optional: true, base: base?.query?.[p.name] });
  }
  return out;
}

/** The request with one slot set to a value (undefined: left out), every other part as it was. */
export function withSlot(base: RequestParts, slot: Pick<Slot, 'in' | 'path'>, value: unknown): RequestParts {
  if (slot.in === 'query') {
    const query = { ...(base.query ?? {}) };
    if (value === undefined) delete query[slot.path[0]!];
    else query[slot.path[0]!] = typeof value === 'number' || typeof value === 'boolean' ? value : String(value);
    return { ...base, query };
  }
  const body = structuredClone(base.body) as JsonObject;
  let at: JsonObject = body;
  for (const name of slot.path.slice(0, -1)) {
    if (!isObj(at[name])) at[name] = {};
    at = at[name] as JsonObject;
  }
  const last = slot.path[slot.path.length - 1]!;
  if (value === undefined) delete at[last];
  else at[last] = value;
  return { ...base, body };
}
