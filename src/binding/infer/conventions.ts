/**
 * The vendor's conventions beside the pairings: query parameter and field names, enum values (`states`, `values`),
 * event types and where its errors keep their code and message.
 */
import type { Operation, SpecDocument } from '../../catalogue/openapi.js';
import { isStateMember, type ErrorShape } from '../format.js';
import { isObj, type JsonObject } from '../../json.js';
import { deref, eachProperty } from '../../catalogue/schema-walker.js';
import { rawWords, squash } from './vocabulary.js';
import { jsonSchema, propertiesOf, successSchema, typed, type Shape } from './shapes.js';

/** Reference query parameters (paging aside) the vendor spells otherwise: customer_id / customerId. */
export function queryRenames(v: Operation, r: Operation): Record<string, string> | undefined {
  const vQuery = v.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  const out: Record<string, string> = {};
  for (const p of r.parameters) {
    if (p.in !== 'query' || p.name === 'limit' || p.name === 'cursor' || vQuery.includes(p.name)) continue;
    const twin = vQuery.find((n) => squash(n) === squash(p.name));
    if (twin) out[p.name] = twin;
  }
  return Object.keys(out).length ? out : undefined;
}

/** Field names of an operation's request and success response (resource, envelope or list items), as spelled. */
export function rawFields(spec: SpecDocument, op: Operation): Set<string> {
  const out = new Set<string>();
  for (const schema of [jsonSchema(op.requestBody?.content), successSchema(op)]) eachProperty(spec, schema, (k) => out.add(k));
  return out;
}

/**
 * Every enum of an operation by member (or parameter) name: its request and success schemas at any depth (every
 * oneOf branch), and its path and query parameters.
 */
export function enumsOf(spec: SpecDocument, op: Operation): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (name: string, schema: unknown) => {
    const s = deref(spec, schema);
    const items = s ? deref(spec, s['items']) : undefined;
    // A oneOf branch's discriminating `const` is an enum of one: the branches together give the member's values.
    const e = Array.isArray(s?.['enum']) ? s['enum'] : typeof s?.['const'] === 'string' ? [s['const']] : Array.isArray(items?.['enum']) ? items['enum'] : [];
    const strings = e.filter((x): x is string => typeof x === 'string');
    if (strings.length === 0) return;
    const set = out.get(name) ?? out.set(name, new Set()).get(name)!;
    for (const x of strings) set.add(x);
  };
  for (const schema of [jsonSchema(op.requestBody?.content), successSchema(op)]) eachProperty(spec, schema, add);
  for (const p of op.parameters) if (p.in === 'path' || p.in === 'query') add(p.name, p.schema);
  return out;
}

/** States the vendor names otherwise, by synonym: used only when no value is the reference's own (any case). */
export const STATE_WORDS: Record<string, string> = {
  locked: 'frozen', blocked: 'frozen', suspended: 'frozen', paused: 'frozen', inactive: 'frozen',
  enabled: 'active', open: 'active', live: 'active',
  disabled: 'inactive', deactivated: 'inactive',
  verified: 'approved', accepted: 'approved', passed: 'approved', cleared: 'approved',
  denied: 'rejected', declined: 'rejected', refused: 'rejected',
  processing: 'pending', in_progress: 'pending', submitted: 'pending', under_review: 'pending', review: 'pending',
  succeeded: 'completed', settled: 'completed', posted: 'completed', done: 'completed', complete: 'completed',
  errored: 'failed', error: 'failed',
  cancelled: 'canceled', voided: 'canceled',
  closed: 'closed', terminated: 'closed',
};

/**
 * Enum values the vendor spells otherwise, for every member of the bound pairs: the same value in another case or
 * spelling (PASSPORT, in-review) first; a synonym only for a state the vendor spells no other way, and never onto a
 * vendor value that is a reference value of its own (SUCCEEDED is not `completed` where `succeeded` exists).
 * Status/state members go under `states` when they agree; a member that disagrees keeps its own under `values`.
 */
export function inferValues(vendor: SpecDocument, reference: SpecDocument, bound: { v: Shape; r: Shape }[], fields: Record<string, string>): { states: Record<string, string>; values: Record<string, Record<string, string>> } {
  const perMember = new Map<string, Map<string, string>>();
  // `states` applies to every status member: a synonym must not take a value that is some reference state's own
  // (completed -> SUCCEEDED would read every collection's SUCCEEDED as completed).
  const referenceStates = new Set<string>();
  for (const op of reference.operations) for (const [m, vals] of enumsOf(reference, op)) if (isStateMember(m)) for (const x of vals) referenceStates.add(squash(x));
  const fieldsBack = new Map(Object.entries(fields).map(([r, v]) => [v, r]));
  for (const { v, r } of bound) {
    const refEnums = enumsOf(reference, r.op);
    const vEnums = enumsOf(vendor, v.op);
    const refBySquash = new Map([...refEnums.keys()].map((k) => [squash(k), k]));
    for (const [vName, vValues] of vEnums) {
      const refName = fieldsBack.get(vName) ?? refBySquash.get(squash(vName));
      const refValues = refName ? refEnums.get(refName) : undefined;
      if (!refName || !refValues) continue;
      const map = perMember.get(refName) ?? new Map<string, string>();
      const exactOf = (x: string) => [...vValues].find((y) => squash(y) === squash(x));
      for (const rv of refValues) {
        // Event types are `events`' to spell, wherever they appear.
        if (isEventType(rv)) continue;
        const exact = exactOf(rv);
        if (exact !== undefined) {
          if (exact !== rv) map.set(rv, exact);
          continue;
        }
        if (!isStateMember(refName)) continue;
        // A synonym, onto a vendor value that is no reference value's own spelling.
        const syn = [...vValues].find((y) => STATE_WORDS[y.toLowerCase()] === rv && !referenceStates.has(squash(y)));
        if (syn !== undefined) map.set(rv, syn);
      }
      if (map.size) perMember.set(refName, map);
    }
  }
  const states: Record<string, string> = {};
  const values: Record<string, Record<string, string>> = {};
  const stateMembers = [...perMember].filter(([m]) => isStateMember(m));
  for (const [, map] of stateMembers) for (const [rv, vv] of map) states[rv] ??= vv;
  for (const [member, map] of perMember) {
    const own = Object.fromEntries([...map].filter(([rv, vv]) => !isStateMember(member) || states[rv] !== vv));
    if (Object.keys(own).length) values[member] = own;
  }
  return { states, values };
}

/** An event type's words, whatever its spelling: customer.created, CustomerCreated and CUSTOMER_CREATED are one. */
export const eventKey = (s: string): string => rawWords(s).join(' ');
export const isEventType = (s: string): boolean => /^[a-z_]+\.[a-z_]+$/.test(s);

/** Every string enum value and webhook name in a document. */
export function enumStrings(raw: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown, depth: number): void => {
    if (depth > 60) return;
    if (Array.isArray(v)) return v.forEach((x) => walk(x, depth + 1));
    if (!isObj(v)) return;
    if (Array.isArray(v['enum'])) for (const x of v['enum']) if (typeof x === 'string') out.add(x);
    if (typeof v['const'] === 'string') out.add(v['const']);
    for (const x of Object.values(v)) walk(x, depth + 1);
  };
  walk(raw, 0);
  if (isObj(raw)) for (const key of ['webhooks', 'x-webhooks']) if (isObj(raw[key])) for (const k of Object.keys(raw[key])) out.add(k);
  return out;
}

/**
 * Event types the vendor spells otherwise (CustomerCreated, CUSTOMER_CREATED), from the enums and webhooks of its
 * document: the same words, in one spelling only. Synonyms are not folded here: on real documents they paired
 * wallet.created with a postal address.created.
 */
export function inferEvents(vendor: SpecDocument, reference: SpecDocument): Record<string, string> {
  const refEvents = [...enumStrings(reference.raw)].filter(isEventType);
  const candidates = [...enumStrings(vendor.raw)].filter((s) => rawWords(s).length >= 2);
  const out: Record<string, string> = {};
  const claimed = new Set<string>();
  for (const e of refEvents) {
    if (candidates.includes(e)) continue;
    const fits = candidates.filter((c) => !claimed.has(c) && eventKey(c) === eventKey(e));
    if (fits.length === 1) {
      out[e] = fits[0]!;
      claimed.add(fits[0]!);
    }
  }
  return out;
}

/**
 * Where the vendor's error answers keep their code and message, from its documented 4xx and 5xx schemas: the
 * shape most of them share, unless that is an RFC 9457 problem document (the reference's own, nothing to bind).
 */
export function inferErrors(vendor: SpecDocument): ErrorShape | undefined {
  const tally = new Map<string, { shape: ErrorShape | undefined; n: number }>();
  const seen = new Set<unknown>();
  for (const op of vendor.operations) {
    for (const r of op.responses) {
      if (!/^[45]|^default$/.test(r.status)) continue;
      const schema = jsonSchema(r.content);
      if (schema === undefined || seen.has(schema)) continue;
      seen.add(schema);
      const shape = errorShapeOf(vendor, schema);
      const key = shape ? JSON.stringify(shape) : 'problem';
      const t = tally.get(key) ?? { shape, n: 0 };
      t.n++;
      tally.set(key, t);
    }
  }
  const best = [...tally.values()].sort((a, b) => b.n - a.n)[0];
  return best?.shape;
}

export const CODE_NAMES = /^(code|error_?code|errorCode|error_?type|errorType|type|error)$/i;
export const MESSAGE_NAMES = /^(message|msg|detail|details|description|error_?description|errorDescription|error_?message|errorMessage)$/i;

export function errorShapeOf(spec: SpecDocument, schema: unknown): ErrorShape | undefined {
  const top = propertiesOf(spec, schema);
  if ('title' in top && ('status' in top || 'detail' in top || 'type' in top)) return undefined;
  const search = (props: Record<string, JsonObject>, prefix: string, depth: number): ErrorShape | undefined => {
    const str = (n: string) => typed(props[n]!, 'string') || (props[n]!['type'] === undefined && !isObj(props[n]!['properties']));
    const names = Object.keys(props);
    const code = names.filter((n) => CODE_NAMES.test(n) && str(n)).sort((a, b) => rank(a) - rank(b))[0];
    const message = names.find((n) => MESSAGE_NAMES.test(n) && str(n));
    if (code || message) return { ...(code ? { code: prefix + code } : {}), ...(message ? { message: prefix + message } : {}) };
    if (depth > 1) return undefined;
    for (const [k, v] of Object.entries(props)) {
      const inner = propertiesOf(spec, v);
      if (Object.keys(inner).length) {
        const found = search(inner, `${prefix}${k}.`, depth + 1);
        if (found) return found;
      }
    }
    return undefined;
  };
  return search(top, '', 0);
}

/** `code` over `error_code` over `type` over `error`: the member most likely to hold the machine-readable code. */
export const rank = (n: string): number => (/^code$/i.test(n) ? 0 : /code/i.test(n) ? 1 : /type/i.test(n) ? 2 : 3);
