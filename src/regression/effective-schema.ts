/**
 * The effective schemas of an OpenAPI document: what the document means, written one way, so that a diff sees a
 * change of meaning and not a change of writing.
 *
 * - `allOf` is merged and a `$ref` with siblings (`deprecated: true`, `description`, `nullable`) becomes the
 *   referenced schema with them, by allof-merge (the merger api-smart-diff itself uses; it resolves internal $refs
 *   and keeps the circular ones as $refs).
 * - `oneOf`/`anyOf` become one schema that allows what any alternative allows: the members of every alternative,
 *   the union of their types and enum values, a member required only where every alternative requires it, a bound
 *   only where every alternative has one (the loosest). So a response member is gone only if no alternative has it
 *   any more, and a request member is newly required only if every alternative requires it. What the union cannot
 *   say (an alternative of a request that was removed) is found by request-alternatives.ts on the merged document.
 */
import { merge } from 'allof-merge';

export type Schema = Record<string, unknown>;
export type Document = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The document with allOf merged and $ref siblings applied (combinators kept): what request-alternatives reads. */
export function mergedDocument(doc: Document): Document {
  return merge(doc, { mergeRefSibling: true, mergeCombinarySibling: true }) as Document;
}

/** Resolves an internal "#/a/b" pointer in `root`; undefined for an external or dangling one. */
export function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Keys whose values are data or annotations, never schemas to fold. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'enum', 'const']);

/** The effective form of a merged document (`mergedDocument`): every oneOf/anyOf folded into the union of its alternatives. */
export function foldAlternatives(merged: Document): Document {
  const openapi31 = String(merged['openapi']).startsWith('3.1');
  const done = new WeakMap<object, unknown>();
  const resolving = new Set<string>();

  const fold = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(fold);
    if (!isObject(node)) return node;
    const had = done.get(node);
    if (had !== undefined) return had;
    const out: Schema = {};
    for (const [k, v] of Object.entries(node)) out[k] = DATA_KEYS.has(k) || k.startsWith('x-') ? v : fold(v);
    // A list of types is a set: the library compares it index by index, so ['string', 'null'] and ['null', 'string'] differed.
    if (Array.isArray(out['type'])) out['type'] = typeList(out['type'].map(String));
    const alternatives = [...(Array.isArray(out['oneOf']) ? out['oneOf'] : []), ...(Array.isArray(out['anyOf']) ? out['anyOf'] : [])];
    let result: unknown = out;
    if (alternatives.length) {
      const { oneOf: _o, anyOf: _a, discriminator: _d, ...siblings } = out;
      const resolved = alternatives.map(target);
      // A circular alternative cannot be inlined: the combinator stays as written, the library compares it.
      if (resolved.every((r): r is Schema => r !== undefined)) result = { ...siblingAnnotations(siblings), ...union(resolved) };
    }
    done.set(node, result);
    return result;
  };

  /** An alternative or member schema, its $ref followed (folded), or undefined inside a cycle. */
  const target = (s: unknown): Schema | undefined => {
    if (!isObject(s)) return s === true ? {} : undefined;
    const ref = s['$ref'];
    if (typeof ref !== 'string') return s;
    if (resolving.has(ref)) return undefined;
    resolving.add(ref);
    try {
      const to = resolvePointer(merged, ref);
      return isObject(to) ? target(fold(to)) : undefined;
    } finally {
      resolving.delete(ref);
    }
  };

  const typesOf = (s: Schema): Set<string> | undefined => {
    const t = s['type'];
    const set = new Set<string>(Array.isArray(t) ? t.map(String) : typeof t === 'string' ? [t] : []);
    if (!set.size) {
      if (isObject(s['properties']) || 'additionalProperties' in s) set.add('object');
      else if ('items' in s) set.add('array');
      else if (Array.isArray(s['enum'])) for (const v of s['enum']) set.add(v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? 'number' : typeof v);
      else return undefined; // no type: anything
    }
    if (s['nullable'] === true) set.add('null');
    return set;
  };

  const union = (alts: Schema[]): Schema => {
    if (alts.length === 1) return alts[0]!;
    const typed = alts.map(typesOf);
    const out: Schema = {};
    if (typed.every((t) => t)) {
      const types = new Set(typed.flatMap((t) => [...t!]));
      const real = [...types].filter((t) => t !== 'null');
      if (openapi31 || !types.has('null')) out['type'] = typeList([...types]);
      else {
        out['type'] = typeList(real);
        out['nullable'] = true;
      }
    }
    // Only the alternatives that are something other than null say what a value holds.
    const values = alts.filter((_, i) => !(typed[i]?.size === 1 && typed[i]!.has('null')));
    if (!values.length) return out;
    const objects = values.filter((a) => isObject(a['properties']) || typesOf(a)?.has('object'));
    if (objects.length) {
      const names = [...new Set(objects.flatMap((a) => Object.keys(isObject(a['properties']) ? a['properties'] : {})))];
      if (names.length) {
        const props: Schema = {};
        for (const n of names) props[n] = member(objects.flatMap((a) => (isObject(a['properties']) && n in a['properties'] ? [a['properties'][n]] : [])));
        out['properties'] = props;
      }
      const required = objects.map((a) => new Set(Array.isArray(a['required']) ? a['required'].map(String) : []));
      const all = [...required[0]!].filter((r) => required.every((s) => s.has(r)));
      if (all.length) out['required'] = all;
      const extra = objects.map((a) => a['additionalProperties']);
      if (extra.every((e) => e === false)) out['additionalProperties'] = false;
      else if (extra.every(isObject)) out['additionalProperties'] = member(extra);
    }
    const arrays = values.filter((a) => 'items' in a || typesOf(a)?.has('array'));
    if (arrays.length && arrays.every((a) => 'items' in a)) out['items'] = member(arrays.map((a) => a['items']));
    const enums = values.map((a) => (Array.isArray(a['enum']) ? a['enum'] : 'const' in a ? [a['const']] : undefined));
    if (enums.every((e) => e)) {
      const seen = new Map<string, unknown>();
      for (const v of enums.flat()) seen.set(JSON.stringify(v), v);
      out['enum'] = [...seen.values()];
    }
    for (const [key, pick] of BOUNDS) {
      const bounds = values.map((a) => a[key]);
      if (bounds.every((b) => typeof b === 'number')) out[key] = pick(...(bounds as number[]));
    }
    for (const key of ['pattern', 'format', 'multipleOf', 'uniqueItems']) {
      const first = values[0]![key];
      if (first !== undefined && values.every((a) => a[key] === first)) out[key] = first;
    }
    for (const key of ['readOnly', 'writeOnly', 'deprecated']) if (values.every((a) => a[key] === true)) out[key] = true;
    if (typeof values[0]!['description'] === 'string') out['description'] = values[0]!['description'];
    return out;
  };

  /** The union of one member's schemas across alternatives: as written when they are the same, else their union. */
  const member = (schemas: unknown[]): unknown => {
    const first = JSON.stringify(schemas[0]);
    if (schemas.every((s) => JSON.stringify(s) === first)) return schemas[0];
    const resolved = schemas.map(target);
    return resolved.every((r): r is Schema => r !== undefined) ? union(resolved) : schemas[0];
  };

  return fold(merged) as Document;
}

/** A set of types written one way: sorted, and a single one as a string. */
function typeList(types: string[]): string | string[] {
  const sorted = [...new Set(types)].sort();
  return sorted.length === 1 ? sorted[0]! : sorted;
}

const BOUNDS: [string, (...n: number[]) => number][] = [
  ['maxLength', Math.max],
  ['maximum', Math.max],
  ['maxItems', Math.max],
  ['maxProperties', Math.max],
  ['minLength', Math.min],
  ['minimum', Math.min],
  ['minItems', Math.min],
  ['minProperties', Math.min],
];

/** What a oneOf's own siblings say of the whole that the union keeps: its annotations (the rest allof-merge moved into each alternative). */
function siblingAnnotations(s: Schema): Schema {
  const out: Schema = {};
  for (const k of ['description', 'title', 'deprecated', 'readOnly', 'writeOnly']) if (k in s) out[k] = s[k];
  return out;
}
