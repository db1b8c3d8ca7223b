/**
 * Invalid variants of a request body, generated from the request schema of the spec in use (so they hold for a
 * vendor's document too): each required property removed, and each constrained property (enum, format,
 * pattern, bounds, lengths) given one clearly invalid value, nested objects one level down included.
 * One mutation per (property, kind): enough to see validation happen, never a combinatorial explosion.
 */
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import type { JsonSchema } from '../catalogue/json-schema.js';
import { pathToPointer } from '../catalogue/yaml-file.js';
import { jsonBodyOf } from './support.js';
import { isObj, type JsonObject } from '../json.js';
import { mergedSchema } from '../catalogue/schema-walker.js';
import { matchesLinear } from '../catalogue/linear-pattern.js';


export interface Mutation {
  /** Property path from the body root, e.g. ["address", "country"]. */
  path: string[];
  kind: 'missing' | 'invalid';
  /** The broken constraint, for people ("format date", "pattern ^[A-Z]{2}$", "required"). */
  constraint: string;
  /** The invalid value (kind invalid). */
  value?: unknown;
}

export const pointerOf = (m: Pick<Mutation, 'path'>): string => pathToPointer(m.path);
export const dottedOf = (m: Pick<Mutation, 'path'>): string => m.path.join('.');

export function slugOf(m: Mutation): string {
  return `${m.kind === 'missing' ? 'missing' : 'bad'}-${m.path.join('-')}`;
}

export function describeMutation(m: Mutation): string {
  return m.kind === 'missing' ? `without ${dottedOf(m)}` : `with ${dottedOf(m)} ${JSON.stringify(shortValue(m.value))} (breaks ${m.constraint})`;
}

function shortValue(v: unknown): unknown {
  return typeof v === 'string' && v.length > 40 ? `${v.slice(0, 12)}...(${v.length} characters)` : v;
}

/** Whether a text matches a pattern (undefined: the engine cannot run it). */
type PatternMatcher = (pattern: string, text: string) => boolean | undefined;

/** One clearly invalid string for a pattern: a near miss where the pattern's meaning is recognisable. */
function breakPattern(pattern: string, matches: PatternMatcher): string | undefined {
  const candidates: string[] = [];
  if (pattern.includes('\\+')) candidates.push('14155550123'); // E.164 without its plus sign
  if (/^\^\[A-Z\]\{2\}\$$/.test(pattern)) candidates.push('USA'); // three letters for a two-letter country
  if (/^\^\[A-Z\]\{2\}-/.test(pattern)) candidates.push('CA'); // subdivision without its country
  if (/\{4\}-\[0-9\]\{2\}-/.test(pattern) || /\\d\{4\}-\\d\{2\}-/.test(pattern)) candidates.push('31/12/1990');
  const prefix = /^\^([a-z]+_)/.exec(pattern)?.[1];
  if (prefix) candidates.push(`${prefix}!invalid!`); // an id of the right kind, malformed
  candidates.push('not valid!', '!!', ' ');
  // On the document's engine, as its validators: a pattern it cannot run gets no near miss (none can be proven one).
  return candidates.find((c) => matches(pattern, c) === false);
}

const FORMAT_VALUES: Record<string, string> = {
  date: '31/12/1990',
  'date-time': '31/12/1990 10:00',
  email: 'not-an-email',
  uri: 'not a uri',
  'uri-reference': 'http://exa mple.com/ bad',
  uuid: 'not-a-uuid',
  ipv4: '999.1.1.1',
};

/** The invalid value for a property's most telling constraint, or undefined when it has none this can break. */
export function invalidValue(s: JsonObject, matches: PatternMatcher = matchesLinear): { value: unknown; constraint: string } | undefined {
  if (Array.isArray(s['enum']) && s['enum'].length > 0) {
    let v = 'fsapi_not_a_listed_value';
    while (s['enum'].includes(v)) v += '_x';
    return { value: typeof s['enum'][0] === 'string' ? v : 'fsapi-not-a-number', constraint: `enum ${JSON.stringify(s['enum']).slice(0, 60)}` };
  }
  if ('const' in s) return { value: typeof s['const'] === 'string' ? `${s['const']}_not` : 'fsapi_not_the_constant', constraint: `const ${JSON.stringify(s['const'])}` };
  const type = s['type'];
  const isType = (t: string) => type === t || (Array.isArray(type) && type.includes(t));
  if (typeof s['format'] === 'string' && FORMAT_VALUES[s['format']] && (type === undefined || isType('string'))) {
    return { value: FORMAT_VALUES[s['format']], constraint: `format ${s['format']}` };
  }
  if (typeof s['pattern'] === 'string') {
    const v = breakPattern(s['pattern'], matches);
    if (v !== undefined) return { value: v, constraint: `pattern ${s['pattern']}` };
  }
  if (isType('integer') || isType('number')) {
    if (typeof s['minimum'] === 'number') return { value: s['minimum'] - 1, constraint: `minimum ${s['minimum']}` };
    if (typeof s['exclusiveMinimum'] === 'number') return { value: s['exclusiveMinimum'], constraint: `exclusiveMinimum ${s['exclusiveMinimum']}` };
    if (typeof s['maximum'] === 'number') return { value: s['maximum'] + 1, constraint: `maximum ${s['maximum']}` };
  }
  if (isType('string') || type === undefined) {
    if (typeof s['minLength'] === 'number' && s['minLength'] >= 1) return { value: '', constraint: `minLength ${s['minLength']}` };
    // Very long limits (an uploaded file) would make a body the size check's business, not validation's.
    if (typeof s['maxLength'] === 'number' && s['maxLength'] <= 10_000) return { value: 'x'.repeat(s['maxLength'] + 1), constraint: `maxLength ${s['maxLength']}` };
  }
  if (isType('array') && typeof s['minItems'] === 'number' && s['minItems'] >= 1) return { value: [], constraint: `minItems ${s['minItems']}` };
  return undefined;
}

/** The mutations of an operation's JSON request body, in schema order. */
export function mutationsFor(spec: SpecDocument, op: Operation): Mutation[] {
  const root = mergedSchema(spec, jsonBodyOf(op)?.schema);
  if (!root) return [];
  const out: Mutation[] = [];
  const visit = (schema: JsonObject, path: string[], depth: number) => {
    const props = isObj(schema['properties']) ? schema['properties'] : {};
    const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
    for (const [name, raw] of Object.entries(props)) {
      const p = [...path, name];
      if (required.has(name)) out.push({ path: p, kind: 'missing', constraint: 'required' });
      const s = mergedSchema(spec, raw as JsonSchema);
      if (!s) continue;
      const bad = invalidValue(s, spec.matchesPattern);
      if (bad) out.push({ path: p, kind: 'invalid', constraint: bad.constraint, value: bad.value });
      // One level down, for objects the body always carries (address inside a customer).
      if (depth === 0 && required.has(name) && isObj(s['properties'])) visit(s, p, depth + 1);
    }
  };
  visit(root, [], 0);
  return out;
}

/** The body with the mutation applied, or undefined when the valid body has nothing at that place. */
export function applyMutation(body: unknown, m: Mutation): unknown {
  const copy = structuredClone(body);
  let parent: unknown = copy;
  for (const seg of m.path.slice(0, -1)) {
    if (!isObj(parent)) return undefined;
    parent = parent[seg];
  }
  if (!isObj(parent)) return undefined;
  const leaf = m.path[m.path.length - 1]!;
  if (m.kind === 'missing') {
    if (!(leaf in parent)) return undefined;
    delete parent[leaf];
  } else {
    parent[leaf] = structuredClone(m.value);
  }
  return copy;
}
