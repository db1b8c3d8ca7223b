/**
 * The one reading of a document's schemas through `$ref`, allOf, oneOf and anyOf, for every layer that looks inside
 * them: bind's inference, the value sources, the input mutations and the sandbox. One depth rule for all of them:
 * SCHEMA_DEPTH bounds each chain of references, each nesting of composition and each descent into members, so a
 * self-referencing schema (a tree, a linked list) ends instead of looping.
 */
import type { SpecDocument } from './openapi.js';
import { isObj, type JsonObject } from '../json.js';

/** How far any walk goes: references followed in a row, composition levels, member levels. */
export const SCHEMA_DEPTH = 8;

const COMPOSITION = ['allOf', 'oneOf', 'anyOf'] as const;

type Lookup = Pick<SpecDocument, 'schemaAt'>;

/** The schema a $ref names, followed until it is not one (at most SCHEMA_DEPTH references in a row). */
export function deref(spec: Lookup, schema: unknown): JsonObject | undefined {
  let s = schema;
  for (let i = 0; i < SCHEMA_DEPTH && isObj(s) && typeof s['$ref'] === 'string'; i++) s = spec.schemaAt(s['$ref']);
  return isObj(s) && typeof s['$ref'] !== 'string' ? s : undefined;
}

/** A member's schema as the walks hand it on: dereferenced, or as written when its reference leads nowhere. */
const memberSchema = (spec: Lookup, v: unknown): JsonObject => deref(spec, v) ?? (isObj(v) ? v : {});

/**
 * Every property an instance of the schema may have, with its schema: allOf parts merged and every oneOf/anyOf
 * branch's members united, in document order. Where several parts declare one member, the later part's declaration
 * stands (as allOf refines), and the schema's own `properties` over all of them.
 */
export function propertiesOf(spec: Lookup, schema: unknown, depth = 0): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  const s = deref(spec, schema);
  if (!s || depth > SCHEMA_DEPTH) return out;
  for (const key of COMPOSITION) {
    const parts = s[key];
    if (Array.isArray(parts)) for (const part of parts) for (const [k, v] of propertiesOf(spec, part, depth + 1)) out.set(k, v);
  }
  if (isObj(s['properties'])) for (const [k, v] of Object.entries(s['properties'])) out.set(k, memberSchema(spec, v));
  return out;
}

/**
 * Every property declaration under a schema at any depth, each branch's own (not merged), through array items:
 * visit(name, schema) once per declaration reached. A schema met twice (a cycle) is walked once.
 */
export function eachProperty(spec: Lookup, schema: unknown, visit: (name: string, schema: JsonObject) => void): void {
  const seen = new Set<JsonObject>();
  const walk = (x: unknown, depth: number): void => {
    const s = deref(spec, x);
    if (!s || depth > SCHEMA_DEPTH || seen.has(s)) return;
    seen.add(s);
    // Parts and items are the same member's schema: only a descent into members counts (the seen set ends cycles).
    for (const key of COMPOSITION) if (Array.isArray(s[key])) for (const part of s[key]) walk(part, depth);
    if (isObj(s['items'])) walk(s['items'], depth);
    if (isObj(s['properties'])) {
      for (const [k, v] of Object.entries(s['properties'])) {
        const d = memberSchema(spec, v);
        visit(k, d);
        walk(d, depth + 1);
      }
    }
  };
  walk(schema, 0);
}

/**
 * The schema with its references followed (sibling keywords of a $ref, as 3.1 allows, refine what it names) and its
 * allOf parts merged shallowly: properties united (a later part's declaration stands), required united, any other
 * keyword from the first part that has it. oneOf and anyOf stay as they are: a branch's rules are not the whole's.
 * Enough to see the members, constraints and required names a request must meet.
 */
export function mergedSchema(spec: Lookup, schema: unknown, depth = 0): JsonObject | undefined {
  if (!isObj(schema) || depth > SCHEMA_DEPTH) return undefined;
  const ref = schema['$ref'];
  if (typeof ref === 'string') {
    const resolved = mergedSchema(spec, spec.schemaAt(ref), depth + 1);
    const { $ref: _named, ...siblings } = schema;
    return resolved ? { ...resolved, ...siblings } : undefined;
  }
  if (!Array.isArray(schema['allOf'])) return schema;
  const merged: JsonObject = { ...schema, allOf: undefined };
  const props: JsonObject = { ...(isObj(schema['properties']) ? schema['properties'] : {}) };
  const required = new Set<string>(Array.isArray(schema['required']) ? schema['required'].map(String) : []);
  for (const part of schema['allOf']) {
    const r = mergedSchema(spec, part, depth + 1);
    if (!r) continue;
    for (const [k, v] of Object.entries(r)) if (!['properties', 'required', 'allOf'].includes(k) && merged[k] === undefined) merged[k] = v;
    if (isObj(r['properties'])) Object.assign(props, r['properties']);
    if (Array.isArray(r['required'])) for (const x of r['required']) required.add(String(x));
  }
  return { ...merged, properties: props, required: [...required] };
}
