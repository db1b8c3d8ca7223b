/**
 * A dialect definition compiled against the reference document: its routes (both ways), its field and state maps,
 * and the translation of bodies between the reference's spelling and the vendor's. The document generator, the
 * truth binding and the proxy all read this, so the three cannot disagree.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { REFERENCE_SPEC_PATH } from '../../src/catalogue/index.js';
import { DIALECTS, type DialectDefinition, type DialectName } from './definitions.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

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
const paramNames = (template: string): string[] => [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);

function templatePattern(template: string): RegExp {
  const escaped = template.split(/\{[^}]+\}/).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('([^/]+)')}$`);
}

/** Follows a local $ref ("#/components/...") in the reference document. */
export function deref(doc: JsonObject, v: Json | undefined): Json | undefined {
  if (!isObject(v) || typeof v['$ref'] !== 'string') return v;
  let cur: Json | undefined = doc;
  for (const part of v['$ref'].replace(/^#\//, '').split('/')) cur = isObject(cur) ? cur[part] : undefined;
  return cur;
}

/** Every property name declared anywhere under a schema. */
function propertyNames(schema: Json | undefined, into: Set<string>): void {
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
  const routes: Route[] = [];
  for (const refPath of new Set(operations.map((o) => o.refPath))) {
    const vendorPath = def.paths[refPath] ?? refPath;
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

/** A path (relative to the version base, e.g. "/clients/cus_1") in the other spelling, with its route; undefined when no route matches. */
export function translatePath(d: Dialect, path: string, dir: Direction): { path: string; route: Route } | undefined {
  for (const route of d.routes) {
    const m = (dir === 'toReference' ? route.vendorPattern : route.refPattern).exec(path);
    if (!m) continue;
    let i = 0;
    const target = dir === 'toReference' ? route.refPath : route.vendorPath;
    return { path: target.replace(/\{[^}]+\}/g, () => m[++i]!), route };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Bodies

/** Member names whose values are the client's own (metadata) or another delivery's copy (an event's data): kept. */
const OPAQUE = new Set(['metadata']);

/** Renames members and state values at any depth; metadata and an event's data are the client's and are kept. */
export function translateValue(d: Dialect, value: Json, dir: Direction): Json {
  const names = dir === 'toVendor' ? d.fields : d.fieldsBack;
  const states = dir === 'toVendor' ? d.states : d.statesBack;
  if (Array.isArray(value)) return value.map((v) => translateValue(d, v, dir));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  const isEvent = value['object'] === 'event';
  for (const [k, v] of Object.entries(value)) {
    const key = names.get(k) ?? k;
    if (OPAQUE.has(k) || (isEvent && k === 'data')) out[key] = v;
    else if ((k === 'status' || k === 'state') && typeof v === 'string') out[key] = states.get(v) ?? v;
    else out[key] = translateValue(d, v, dir);
  }
  return out;
}

/** A reference success body in the vendor's shape: list shape, envelope, names and states. */
export function responseToVendor(d: Dialect, op: RefOperation, body: Json): Json {
  const list = d.def.list;
  if (op.kind === 'list' && list && isObject(body) && Array.isArray(body['data'])) {
    const out: JsonObject = { [list.items]: translateValue(d, body['data'], 'toVendor') };
    if (list.has_more) out[list.has_more] = body['has_more'] ?? false;
    out[list.next_cursor] = body['next_cursor'] ?? null;
    return out;
  }
  const translated = translateValue(d, body, 'toVendor');
  return op.kind === 'resource' && d.def.envelope ? { [d.def.envelope]: translated } : translated;
}

/** An RFC 9457 problem's `errors[].field` (a JSON Pointer or a parameter name) in the vendor's names. */
export function problemToVendor(d: Dialect, body: Json): Json {
  if (!isObject(body) || !Array.isArray(body['errors']) || d.fields.size === 0) return body;
  const rename = (field: string): string => field.split('/').map((seg) => d.fields.get(seg) ?? seg).join('/');
  return { ...body, errors: body['errors'].map((e) => (isObject(e) && typeof e['field'] === 'string' ? { ...e, field: rename(e['field']) } : e)) };
}

/** Query parameters in the reference's names and state values. */
export function queryToReference(d: Dialect, query: URLSearchParams): URLSearchParams {
  const list = d.def.list;
  const out = new URLSearchParams();
  for (const [k, v] of query) {
    const name = list && k === list.cursor_param ? 'cursor' : list && k === list.limit_param ? 'limit' : (d.fieldsBack.get(k) ?? k);
    out.append(name, name === 'status' ? (d.statesBack.get(v) ?? v) : v);
  }
  return out;
}
