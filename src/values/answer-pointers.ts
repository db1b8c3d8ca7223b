/**
 * Reading a document's schemas for what the value sources need: the array a list answer holds its items in, and the
 * values a pointer selects. The walk through $ref, allOf, oneOf and anyOf is the catalogue's (schema-walker.ts).
 */
import type { JsonSchema } from '../catalogue/json-schema.js';
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import { deref, propertiesOf } from '../catalogue/schema-walker.js';
import { isObj, type JsonObject } from '../json.js';

const typeOf = (s: JsonObject): string | undefined => (Array.isArray(s['type']) ? s['type'].find((t) => t !== 'null') : typeof s['type'] === 'string' ? s['type'] : undefined);

export const isArraySchema = (s: JsonObject | undefined): boolean => s !== undefined && (typeOf(s) === 'array' || s['items'] !== undefined);

/** Members vendors hold a list's items in, most common first (the reference's own `data` among them). */
export const LIST_MEMBERS = ['data', 'items', 'results', 'records', 'list', 'entries', 'content', 'values', 'elements', 'rows', 'nodes', 'edges'];

/**
 * Where a list answer holds its items: '' when the body is the array itself, else the pointer of the array member
 * (`/data`, or a member named after the collection, `/calls`), with the items' schema. Undefined when the schema
 * shows no array of objects.
 */
export function listArrayOf(spec: Pick<SpecDocument, 'schemaAt'>, schema: unknown, collection?: string, depth = 0): { pointer: string; item: JsonObject } | undefined {
  const s = deref(spec, schema);
  if (!s) return undefined;
  if (isArraySchema(s)) {
    const item = deref(spec, s['items']);
    return item ? { pointer: '', item } : undefined;
  }
  const arrays = [...propertiesOf(spec, s)].filter(([, v]) => isArraySchema(v)).map(([k, v]) => ({ name: k, item: deref(spec, v['items']) }));
  const usable = arrays.filter((a): a is { name: string; item: JsonObject } => a.item !== undefined && propertiesOf(spec, a.item).size > 0);
  const rank = (n: string): number => {
    const i = LIST_MEMBERS.indexOf(n.toLowerCase());
    if (i >= 0) return i;
    return collection && n.toLowerCase() === collection.toLowerCase() ? -1 : 100;
  };
  const best = usable.sort((a, b) => rank(a.name) - rank(b.name))[0];
  if (best) return { pointer: `/${escapePointer(best.name)}`, item: best.item };
  // One level down: HAL's `_embedded: { customers: [...] }`, `{ data: { items: [...] } }`.
  if (depth > 0) return undefined;
  for (const [name, member] of propertiesOf(spec, s)) {
    if (isArraySchema(member) || propertiesOf(spec, member).size === 0) continue;
    const inner = listArrayOf(spec, member, collection, depth + 1);
    if (inner) return { pointer: `/${escapePointer(name)}${inner.pointer}`, item: inner.item };
  }
  return undefined;
}

/** The JSON schema of an operation's first documented success with a JSON body, if any. */
export function successSchema(op: Operation): JsonSchema | undefined {
  for (const r of op.responses) {
    if (!r.status.startsWith('2')) continue;
    const media = r.content.find((c) => c.mediaType === 'application/json' || c.mediaType.endsWith('+json')) ?? r.content[0];
    if (media?.schema !== undefined) return media.schema;
  }
  return undefined;
}

export const escapePointer = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapePointer = (s: string): string => s.replace(/~1/g, '/').replace(/~0/g, '~');

/**
 * The values a JSON pointer selects in a body, where a `*` token stands for every element of an array (a list's
 * items): `/data/* /token` (without the space) reads the token of each item.
 */
export function select(body: unknown, pointer: string): unknown[] {
  if (pointer === '') return [body];
  let current: unknown[] = [body];
  for (const raw of pointer.slice(1).split('/')) {
    const token = unescapePointer(raw);
    const next: unknown[] = [];
    for (const v of current) {
      if (token === '*' && Array.isArray(v)) next.push(...v);
      else if (Array.isArray(v) && /^\d+$/.test(token)) next.push(v[Number(token)]);
      else if (isObj(v) && token in v) next.push(v[token]);
    }
    current = next.filter((x) => x !== undefined);
  }
  return current;
}
