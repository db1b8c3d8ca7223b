/**
 * A dialect definition compiled against the reference document: its routes (both ways), its field and state maps,
 * and the translation of bodies between the reference's spelling and the vendor's. The document generator, the
 * truth binding and the proxy all read this, so the three cannot disagree.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { REFERENCE_SPEC_PATH } from '../../src/catalogue/index.js';
import { DIALECTS, isOffsetList, type DialectDefinition, type DialectName } from './definitions.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };
export type JsonObject = { [k: string]: JsonValue };

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export type ResponseKind = 'list' | 'resource' | 'none';

export interface RefOperation {
  id: string;
  method: string;
  refPath: string;
  tag: string;
  kind: ResponseKind;
  /** Query parameter names (after resolving $ref), without limit/cursor. */
  query: string[];
  /** The list takes limit and cursor. */
  paged: boolean;
}

export interface Route {
  refPath: string;
  vendorPath: string;
  /** Reference path parameter name -> vendor name. */
  params: Map<string, string>;
  refPattern: RegExp;
  vendorPattern: RegExp;
}

export interface Dialect {
  def: DialectDefinition;
  /** Reference field (and query parameter) name -> vendor's; only names that differ. */
  fields: Map<string, string>;
  fieldsBack: Map<string, string>;
  states: Map<string, string>;
  statesBack: Map<string, string>;
  /**
   * Enum values the vendor spells otherwise, per member (or parameter) name in the reference's spelling: reference
   * value -> vendor value. Status members included when the dialect spells every enum otherwise (upperCaseValues).
   */
  values: Map<string, Map<string, string>>;
  valuesBack: Map<string, Map<string, string>>;
  /** Reference event type -> vendor's, and back. */
  events: Map<string, string>;
  eventsBack: Map<string, string>;
  /** An id in the other spelling (cus_7Hq... <-> CUST-7Hq...); any other string as it is. */
  id(value: string, dir: Direction): string;
  routes: Route[];
  operations: RefOperation[];
  operationAt(method: string, refPath: string): RefOperation | undefined;
  vendorOperationId(refId: string): string;
}

export function loadReferenceDocument(): JsonObject {
  return parse(readFileSync(REFERENCE_SPEC_PATH, 'utf8')) as JsonObject;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const camel = (s: string): string => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
/** An enum value that is a word of the API's own (passport, not_started), not a code (USD) or a media type. */
const isWordValue = (v: unknown): v is string => typeof v === 'string' && /^[a-z][a-z0-9_]*$/.test(v);
const isEventType = (v: unknown): v is string => typeof v === 'string' && /^[a-z_]+\.[a-z_]+$/.test(v);
export const upperValue = (v: string): string => v.toUpperCase();
export const pascalEvent = (v: string): string => v.split(/[._]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
const paramNames = (template: string): string[] => [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);

function templatePattern(template: string): RegExp {
  const escaped = template.split(/\{[^}]+\}/).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('([^/]+)')}$`);
}

/** Follows a local $ref ("#/components/...") in the reference document. */
export function deref(doc: JsonObject, v: JsonValue | undefined): JsonValue | undefined {
  if (!isObject(v) || typeof v['$ref'] !== 'string') return v;
  let cur: JsonValue | undefined = doc;
  for (const part of v['$ref'].replace(/^#\//, '').split('/')) cur = isObject(cur) ? cur[part] : undefined;
  return cur;
}

/** Every property name declared anywhere under a schema. */
function propertyNames(schema: JsonValue | undefined, into: Set<string>): void {
  if (Array.isArray(schema)) for (const s of schema) propertyNames(s, into);
  if (!isObject(schema)) return;
  if (isObject(schema['properties'])) for (const k of Object.keys(schema['properties'])) into.add(k);
  for (const v of Object.values(schema)) propertyNames(v, into);
}

function responseKind(doc: JsonObject, op: JsonObject): ResponseKind {
  const responses = isObject(op['responses']) ? op['responses'] : {};
  for (const [status, r] of Object.entries(responses)) {
    if (!/^2/.test(status)) continue;
    const schema = (deref(doc, r) as JsonObject | undefined)?.['content'];
    const media = isObject(schema) ? schema['application/json'] : undefined;
    const ref = isObject(media) && isObject(media['schema']) ? media['schema']['$ref'] : undefined;
    if (typeof ref === 'string') return ref.endsWith('List') ? 'list' : 'resource';
  }
  return 'none';
}

export function referenceOperations(doc: JsonObject): RefOperation[] {
  const out: RefOperation[] = [];
  for (const [path, item] of Object.entries(doc['paths'] as JsonObject)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const params = [...(Array.isArray(item['parameters']) ? item['parameters'] : []), ...(Array.isArray(op['parameters']) ? op['parameters'] : [])];
      const query = params.map((p) => deref(doc, p)).filter((p): p is JsonObject => isObject(p) && p['in'] === 'query').map((p) => String(p['name']));
      out.push({
        id: String(op['operationId']),
        method: method.toUpperCase(),
        refPath: path,
        tag: Array.isArray(op['tags']) ? String(op['tags'][0]) : '',
        kind: responseKind(doc, op),
        query: query.filter((q) => q !== 'limit' && q !== 'cursor'),
        paged: query.includes('cursor'),
      });
    }
  }
  return out;
}

/** Names the seed fixes (the customer create body and its address): never renamed. */
function seedFixedNames(doc: JsonObject): Set<string> {
  const schemas = (doc['components'] as JsonObject)['schemas'] as JsonObject;
  const fixed = new Set<string>();
  propertyNames(schemas['CustomerCreate'], fixed);
  propertyNames(schemas['Address'], fixed);
  return fixed;
}

function fieldMap(doc: JsonObject, ops: RefOperation[]): Map<string, string> {
  const schemas = (doc['components'] as JsonObject)['schemas'] as JsonObject;
  const names = new Set<string>();
  // The problem document (RFC 9457, passed through untranslated) and the reference list envelope (replaced) keep theirs.
  for (const [name, s] of Object.entries(schemas)) if (name !== 'Problem' && name !== 'ListEnvelope') propertyNames(s, names);
  for (const op of ops) for (const q of op.query) names.add(q);
  const fixed = seedFixedNames(doc);
  const map = new Map<string, string>();
  for (const n of [...names].sort()) if (!fixed.has(n) && camel(n) !== n) map.set(n, camel(n));
  return map;
}

/** The enum schemas the seed fixes (the customer create's type and gender): their values are never respelled. */
export function seedFixedEnums(doc: JsonObject): Set<string> {
  const schemas = (doc['components'] as JsonObject)['schemas'] as JsonObject;
  const out = new Set<string>();
  for (const name of ['CustomerCreate', 'Address']) {
    const props = (schemas[name] as JsonObject)['properties'] as JsonObject;
    for (const p of Object.values(props)) if (isObject(p) && typeof p['$ref'] === 'string') out.add(p['$ref'].split('/').pop()!);
  }
  return out;
}

/** The enum values of a schema (through a $ref and array items), unless the seed fixes them. */
function enumOf(doc: JsonObject, schema: JsonValue | undefined, fixed: Set<string>): JsonValue[] | undefined {
  if (!isObject(schema)) return undefined;
  if (typeof schema['$ref'] === 'string' && fixed.has(schema['$ref'].split('/').pop()!)) return undefined;
  const s = deref(doc, schema);
  if (!isObject(s)) return undefined;
  if (Array.isArray(s['enum'])) return s['enum'];
  if (typeof s['const'] === 'string') return [s['const']];
  return isObject(s['items']) ? enumOf(doc, s['items'], fixed) : undefined;
}

/**
 * Every member and parameter whose enum the dialect spells in upper case, by its reference name: value -> VALUE.
 * Read from every property of every schema (any depth, oneOf branches included) and every parameter.
 */
function upperCaseValueMap(doc: JsonObject): Map<string, Map<string, string>> {
  const fixed = seedFixedEnums(doc);
  const out = new Map<string, Map<string, string>>();
  const add = (member: string, values: JsonValue[] | undefined) => {
    const words = (values ?? []).filter(isWordValue);
    if (words.length === 0) return;
    const m = out.get(member) ?? out.set(member, new Map()).get(member)!;
    for (const v of words) m.set(v, upperValue(v));
  };
  const walk = (v: JsonValue | undefined): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!isObject(v)) return;
    if (isObject(v['properties'])) for (const [name, p] of Object.entries(v['properties'])) add(name, enumOf(doc, p, fixed));
    for (const x of Object.values(v)) walk(x);
  };
  // The problem document (RFC 9457, or the dialect's own error shape) and the reference list envelope (replaced) keep theirs.
  for (const [name, schema] of Object.entries((doc['components'] as JsonObject)['schemas'] as JsonObject)) if (name !== 'Problem' && name !== 'ListEnvelope') walk(schema);
  const params = [...Object.values((doc['components'] as JsonObject)['parameters'] as JsonObject)];
  for (const item of Object.values(doc['paths'] as JsonObject)) {
    if (!isObject(item)) continue;
    for (const op of [item, ...METHODS.map((m) => item[m])]) if (isObject(op) && Array.isArray(op['parameters'])) params.push(...op['parameters']);
  }
  for (const p of params.map((x) => deref(doc, x))) if (isObject(p) && p['in'] !== 'header') add(String(p['name']), enumOf(doc, p['schema'], fixed));
  return out;
}

/** The event types of the reference profile (its EventType enum). */
function eventTypes(doc: JsonObject): string[] {
  const e = ((doc['components'] as JsonObject)['schemas'] as JsonObject)['EventType'];
  return isObject(e) && Array.isArray(e['enum']) ? e['enum'].filter(isEventType) : [];
}

function idTranslator(prefixes: Record<string, string> | undefined): Dialect['id'] {
  const entries = Object.entries(prefixes ?? {});
  if (entries.length === 0) return (v) => v;
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // The sandbox's ids: a prefix and 16 random base-62 characters (not a word such as kyc_verification).
  const tail = '((?=[a-z]*[A-Z0-9])[A-Za-z0-9]{16})';
  const toVendor = new RegExp(`^(${entries.map(([r]) => escape(r)).join('|')})_${tail}$`);
  const toReference = new RegExp(`^(${entries.map(([, v]) => escape(v)).join('|')})${tail}$`);
  const forward = new Map(entries);
  const back = new Map(entries.map(([r, v]) => [v, r]));
  return (value, dir) => {
    const m = (dir === 'toVendor' ? toVendor : toReference).exec(value);
    if (!m) return value;
    return dir === 'toVendor' ? `${forward.get(m[1]!)!}${m[2]!}` : `${back.get(m[1]!)!}_${m[2]!}`;
  };
}

function invert(m: Map<string, string>, what: string): Map<string, string> {
  const back = new Map<string, string>();
  for (const [k, v] of m) {
    if (back.has(v) || (m.has(v) && m.get(v) !== v)) throw new Error(`dialect ${what} map is not one-to-one at ${v}`);
    back.set(v, k);
  }
  return back;
}

export function compileDialect(def: DialectDefinition, doc: JsonObject = loadReferenceDocument()): Dialect {
  const operations = referenceOperations(doc);
  const fields = def.camelCaseFields ? fieldMap(doc, operations) : new Map<string, string>();
  const states = new Map(Object.entries(def.states ?? {}));
  const values = def.upperCaseValues ? upperCaseValueMap(doc) : new Map<string, Map<string, string>>();
  // The shorthand `states` stands for the status and state members' values.
  for (const member of ['status', 'state']) if (states.size > 0) values.set(member, new Map([...(values.get(member) ?? []), ...states]));
  const events = new Map(def.pascalCaseEvents ? eventTypes(doc).map((e) => [e, pascalEvent(e)]) : []);
  const routes: Route[] = [];
  for (const refPath of new Set(operations.map((o) => o.refPath))) {
    const vendorPath = def.paths[refPath] ?? (def.camelCasePathParams ? refPath.replace(/\{([^}]+)\}/g, (_, n: string) => `{${camel(n)}}`) : refPath);
    const refNames = paramNames(refPath);
    const vendorNames = paramNames(vendorPath);
    if (refNames.length !== vendorNames.length) throw new Error(`dialect ${def.name}: ${vendorPath} must have the parameters of ${refPath}`);
    routes.push({ refPath, vendorPath, params: new Map(refNames.map((n, i) => [n, vendorNames[i]!])), refPattern: templatePattern(refPath), vendorPattern: templatePattern(vendorPath) });
  }
  for (const p of Object.keys(def.paths)) if (!routes.some((r) => r.refPath === p)) throw new Error(`dialect ${def.name}: no reference path ${p}`);
  // Literal segments win over parameters (/exchange/quotes/{quote} before a hypothetical /exchange/{x}/{y}).
  const literalLength = (t: string): number => t.replace(/\{[^}]+\}/g, '').length;
  routes.sort((a, b) => literalLength(b.vendorPath) - literalLength(a.vendorPath));
  const byKey = new Map(operations.map((o) => [`${o.method} ${o.refPath}`, o]));
  return {
    def,
    fields,
    fieldsBack: invert(fields, 'field'),
    states,
    statesBack: invert(states, 'state'),
    values,
    valuesBack: new Map([...values].map(([member, m]) => [member, invert(m, `${member} value`)])),
    events,
    eventsBack: invert(events, 'event'),
    id: idTranslator(def.idPrefixes),
    routes,
    operations,
    operationAt: (method, refPath) => byKey.get(`${method.toUpperCase()} ${refPath}`),
    vendorOperationId: (refId) => def.operationIds[refId] ?? refId,
  };
}

const compiled = new Map<DialectName, Dialect>();
export function dialect(name: DialectName): Dialect {
  let d = compiled.get(name);
  if (!d) compiled.set(name, (d = compileDialect(DIALECTS[name])));
  return d;
}

// ---------------------------------------------------------------------------------------------------------------
// Paths

export type Direction = 'toVendor' | 'toReference';

/** A parameter's or member's value in the other spelling: an id's prefix, an enum value of that (reference) name. */
export function translateScalar(d: Dialect, refName: string | undefined, value: string, dir: Direction): string {
  const id = d.id(value, dir);
  if (id !== value) return id;
  const events = dir === 'toVendor' ? d.events : d.eventsBack;
  const event = events.get(value);
  if (event !== undefined) return event;
  const values = refName === undefined ? undefined : (dir === 'toVendor' ? d.values : d.valuesBack).get(refName);
  return values?.get(value) ?? value;
}

/**
 * A value in the reference's spelling that the dialect spells otherwise (customer.created where the vendor says
 * CustomerCreated): the vendor does not know it, as a parameter value.
 */
export function foreignValue(d: Dialect, refName: string | undefined, value: string): boolean {
  if (d.events.has(value) && !d.eventsBack.has(value)) return true;
  if (refName === undefined) return false;
  return d.values.get(refName)?.has(value) === true && d.valuesBack.get(refName)?.has(value) !== true;
}

/**
 * A path (relative to the version base, e.g. "/clients/cus_1") in the other spelling, with its route; undefined when
 * no route matches. Parameter values are translated too (ids, enum values such as a feature name); a value in the
 * reference's spelling the vendor does not use (features/cards for features/CARDS) matches no route of its.
 */
export function translatePath(d: Dialect, path: string, dir: Direction): { path: string; route: Route } | undefined {
  for (const route of d.routes) {
    const m = (dir === 'toReference' ? route.vendorPattern : route.refPattern).exec(path);
    if (!m) continue;
    let i = 0;
    const target = dir === 'toReference' ? route.refPath : route.vendorPath;
    const refNames = [...route.params.keys()];
    if (dir === 'toReference' && m.slice(1).some((raw, n) => foreignValue(d, refNames[n], safeDecode(raw)))) continue;
    const value = (raw: string, n: number): string => {
      let decoded: string;
      try {
        decoded = decodeURIComponent(raw);
      } catch {
        return raw;
      }
      const out = translateScalar(d, refNames[n], decoded, dir);
      return out === decoded ? raw : encodeURIComponent(out);
    };
    return { path: target.replace(/\{[^}]+\}/g, () => value(m[++i]!, i - 1)), route };
  }
  return undefined;
}

function safeDecode(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Bodies

/** Member names whose values are the client's own (metadata): kept. */
const OPAQUE = new Set(['metadata']);

/**
 * Renames members, ids, enum and event values at any depth (an event's data too: the vendor's events carry its
 * resources as it spells them); metadata is the client's and is kept.
 */
export function translateValue(d: Dialect, value: JsonValue, dir: Direction, refName?: string): JsonValue {
  const names = dir === 'toVendor' ? d.fields : d.fieldsBack;
  if (typeof value === 'string') return translateScalar(d, refName, value, dir);
  if (Array.isArray(value)) return value.map((v) => translateValue(d, v, dir, refName));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    const key = names.get(k) ?? k;
    const ref = dir === 'toVendor' ? k : key;
    if (OPAQUE.has(k)) out[key] = v;
    else out[key] = translateValue(d, v, dir, ref);
  }
  return out;
}

/** A reference success body in the vendor's shape: list shape, envelope, names and values. */
export function responseToVendor(d: Dialect, op: RefOperation, body: JsonValue): JsonValue {
  const list = d.def.list;
  if (op.kind === 'list' && list && isObject(body) && Array.isArray(body['data'])) {
    const items = translateValue(d, body['data'], 'toVendor');
    if (isOffsetList(list)) return { [list.items]: items, [list.total]: typeof body['total'] === 'number' ? body['total'] : body['data'].length };
    const out: JsonObject = { [list.items]: items };
    if (list.has_more) out[list.has_more] = body['has_more'] ?? false;
    out[list.next_cursor] = body['next_cursor'] ?? null;
    return out;
  }
  const translated = translateValue(d, body, 'toVendor');
  return op.kind === 'resource' && d.def.envelope ? { [d.def.envelope]: translated } : translated;
}

/**
 * An RFC 9457 problem in the vendor's terms: its `errors[].field` (a JSON Pointer or a parameter name) in the
 * vendor's names, or, for a dialect with its own error shape, `{ error: { code, message } }` whose message names
 * each invalid field.
 */
export function problemToVendor(d: Dialect, body: JsonValue): JsonValue {
  if (!isObject(body)) return body;
  const rename = (field: string): string => field.split('/').map((seg) => d.fields.get(seg) ?? seg).join('/');
  const errors = Array.isArray(body['errors']) ? body['errors'].map((e) => (isObject(e) && typeof e['field'] === 'string' ? { ...e, field: rename(e['field']) } : e)) : undefined;
  const shape = d.def.errors;
  if (shape) {
    const named = (errors ?? []).filter(isObject).map((e) => `${String(e['field'])}: ${String(e['message'])}`);
    const message = [typeof body['detail'] === 'string' ? body['detail'] : String(body['title'] ?? 'error'), ...named].join('; ');
    const out: JsonObject = {};
    // The codes are the profile's own (insufficient_funds): the vendor answers the same refusals.
    setPath(out, shape.code, typeof body['code'] === 'string' ? body['code'] : `http_${String(body['status'])}`);
    setPath(out, shape.message, message);
    return out;
  }
  return errors && d.fields.size > 0 ? { ...body, errors } : body;
}

function setPath(o: JsonObject, path: string, v: JsonValue): void {
  const keys = path.split('.');
  let cur = o;
  for (const k of keys.slice(0, -1)) cur = (isObject(cur[k]) ? cur[k] : (cur[k] = {})) as JsonObject;
  cur[keys[keys.length - 1]!] = v;
}

/** The first query parameter whose value the vendor does not know (a reference spelling it respells), if any. */
export function foreignQueryValue(d: Dialect, query: URLSearchParams): string | undefined {
  for (const [k, v] of query) {
    const name = d.fieldsBack.get(k) ?? k;
    if (foreignValue(d, name, v)) return k;
  }
  return undefined;
}

/** Query parameters in the reference's names and values (the list's own paging parameters are the proxy's). */
export function queryToReference(d: Dialect, query: URLSearchParams): URLSearchParams {
  const list = d.def.list;
  const out = new URLSearchParams();
  for (const [k, v] of query) {
    if (list && isOffsetList(list) && k === list.offset_param) continue;
    const name = list && !isOffsetList(list) && k === list.cursor_param ? 'cursor' : list && k === list.limit_param ? 'limit' : (d.fieldsBack.get(k) ?? k);
    out.append(name, translateScalar(d, name, v, 'toReference'));
  }
  return out;
}
