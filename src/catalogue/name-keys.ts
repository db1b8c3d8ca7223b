/**
 * Keys spelled like JSON reference keywords (`$ref`, `$id`, ...) where a document means a name or data, not a
 * reference: a schema property called `$ref` (a vendor's schema of JSON Schema itself), an example, enum value,
 * default or extension that holds such a key. The $ref resolver and the structural validator treat every `$ref`
 * key they meet as a reference (the validator refuses the document with no place), so these keys are renamed
 * before either sees the document and named back afterwards. Which places are names is read from the structure
 * of OpenAPI 3.0/3.1 (src/catalogue/prepare.ts uses this).
 */
import { isObj, type JsonObject } from '../json.js';
import { DATA_KEYWORDS, SUBSCHEMA, SUBSCHEMA_LIST, SUBSCHEMA_MAP } from './json-schema.js';

/** The keys the resolver or the validator read as references or anchors wherever they meet them. */
const POINTER_WORDS = new Set(['$ref', '$id', '$anchor', '$dynamicRef', '$dynamicAnchor', '$schema']);
/** Prefix of a renamed key: the NUL character never starts a key of a real document, and JSON carries it. */
const MARK = '\u0000name:';

/** The key as the document writes it (a renamed one named back). */
export const originalKey = (key: string): string => (key.startsWith(MARK) ? key.slice(MARK.length) : key);
const renamed = (key: string): string => (POINTER_WORDS.has(key) ? MARK + key : key);

/** A path of keys with every renamed one named back, for messages and line lookups. */
export const originalPath = <K extends string | number>(path: readonly K[]): (K | string)[] => path.map((k) => (typeof k === 'string' ? originalKey(k) : k));

type Kind =
  | 'document' | 'components' | 'pathItem' | 'operation' | 'parameter' | 'requestBody' | 'response' | 'mediaType'
  | 'encoding' | 'example' | 'link' | 'callback' | 'schema';

/** Per kind of OpenAPI object: its fields that hold one object of a kind, a list of them, or a map of them by name. */
const FIELDS: Record<Exclude<Kind, 'schema'>, Record<string, { one: Kind } | { list: Kind } | { map: Kind }>> = {
  document: { paths: { map: 'pathItem' }, webhooks: { map: 'pathItem' }, components: { one: 'components' } },
  components: {
    schemas: { map: 'schema' },
    responses: { map: 'response' },
    parameters: { map: 'parameter' },
    examples: { map: 'example' },
    requestBodies: { map: 'requestBody' },
    headers: { map: 'parameter' },
    links: { map: 'link' },
    callbacks: { map: 'callback' },
    pathItems: { map: 'pathItem' },
  },
  pathItem: {
    ...Object.fromEntries(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].map((m) => [m, { one: 'operation' as const }])),
    parameters: { list: 'parameter' },
  },
  operation: { parameters: { list: 'parameter' }, requestBody: { one: 'requestBody' }, responses: { map: 'response' }, callbacks: { map: 'callback' } },
  // A header is a parameter without name and in.
  parameter: { schema: { one: 'schema' }, content: { map: 'mediaType' }, examples: { map: 'example' } },
  requestBody: { content: { map: 'mediaType' } },
  response: { headers: { map: 'parameter' }, content: { map: 'mediaType' }, links: { map: 'link' } },
  mediaType: { schema: { one: 'schema' }, examples: { map: 'example' }, encoding: { map: 'encoding' } },
  encoding: { headers: { map: 'parameter' } },
  example: {},
  link: {},
  callback: {},
};
/** Fields of OpenAPI objects that hold data, not structure. */
const DATA_FIELDS = new Set(['example', 'value', 'parameters', 'requestBody']);

/** Schema keywords whose keys are names: those of subschemas, and `dependentRequired`'s (to lists of names). */
const NAME_MAP = new Set([...SUBSCHEMA_MAP, 'dependentRequired']);

/** Maps whose keys are OpenAPI's own (paths, status codes, callback expressions): there `x-` keys are extensions. */
const EXTENSIBLE_MAPS = new Set(['paths', 'webhooks', 'responses']);

/**
 * A copy of the document with every key that is a name or data, and spelled like a reference keyword, renamed
 * (restoreNames names them back). Keys in the reference keywords' own places are left: they are references.
 */
export function protectNames(doc: JsonObject): JsonObject {
  return walk(doc, 'document') as JsonObject;
}

function walk(v: unknown, kind: Kind): unknown {
  if (Array.isArray(v)) return v.map((x) => walk(x, kind));
  if (!isObj(v)) return v;
  if (kind === 'schema') return walkSchema(v);
  // A Reference Object: its target is walked where it is.
  if (typeof v['$ref'] === 'string') return { ...v };
  const fields = FIELDS[kind];
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    const field = fields[k];
    if (k.startsWith('x-') || (!field && DATA_FIELDS.has(k))) out[k] = data(x);
    else if (kind === 'callback') out[k] = walk(x, 'pathItem');
    else if (!field) out[k] = structuredClone(x);
    else if ('one' in field) out[k] = walk(x, field.one);
    else if ('list' in field) out[k] = Array.isArray(x) ? x.map((e) => walk(e, field.list)) : structuredClone(x);
    else out[k] = nameMap(x, field.map, EXTENSIBLE_MAPS.has(k));
  }
  return out;
}

/** A map of objects by name (components, media types, headers...): a name is never a reference. */
function nameMap(v: unknown, kind: Kind, extensible: boolean): unknown {
  if (!isObj(v)) return structuredClone(v);
  // `$ref` with a string is a reference in the map's place (not OpenAPI, but some documents write it): left as it is.
  if (typeof v['$ref'] === 'string') return structuredClone(v);
  const out: JsonObject = {};
  for (const [name, x] of Object.entries(v)) out[extensible ? name : renamed(name)] = extensible && name.startsWith('x-') ? data(x) : walk(x, kind);
  return out;
}

function walkSchema(s: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(s)) {
    if (DATA_KEYWORDS.has(k) || k.startsWith('x-')) out[k] = data(x);
    else if (SUBSCHEMA.has(k) && isObj(x)) out[k] = walkSchema(x);
    else if (SUBSCHEMA_LIST.has(k) && Array.isArray(x)) out[k] = x.map((e) => (isObj(e) ? walkSchema(e) : e));
    else if (NAME_MAP.has(k) && isObj(x)) out[k] = Object.fromEntries(Object.entries(x).map(([name, e]) => [renamed(name), isObj(e) ? walkSchema(e) : structuredClone(e)]));
    else out[k] = structuredClone(x);
  }
  return out;
}

/** Data: every reference keyword in it is a plain key. */
function data(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(data);
  if (!isObj(v)) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [renamed(k), data(x)]));
}

/** Names back every key protectNames renamed, in place (objects the resolver shares are visited once). */
export function restoreNames(doc: JsonObject): JsonObject {
  const seen = new WeakSet<object>();
  const visit = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) return v.forEach(visit);
    const o = v as JsonObject;
    const keys = Object.keys(o);
    if (keys.some((k) => k.startsWith(MARK))) {
      // Rebuilt in the same order: a schema's properties keep the order the document gives them.
      const entries = keys.map((k) => [originalKey(k), o[k]] as const);
      for (const k of keys) delete o[k];
      for (const [k, x] of entries) o[k] = x;
    }
    for (const x of Object.values(o)) visit(x);
  };
  visit(doc);
  return doc;
}
