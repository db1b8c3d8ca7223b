/**
 * Infers a binding from a vendor's document by comparing each of its operations with the reference profile's:
 * method, path structure, operationId, summary, tags and the field names of request and response schemas. Every
 * entry carries a confidence and the reasons, for a person to review before a certification run.
 */
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import { GROUPS, type GroupSlug } from '../catalogue/groups.js';
import { SEED_FIXED, type BindingFile, type ListShape, type OperationBinding } from './format.js';
import { isObj, type Json } from '../json.js';


/** Words a vendor uses for the same thing, folded onto one. Verbs first, then the resources of the seed's groups. */
const SYNONYMS: Record<string, string> = {
  retrieve: 'get', fetch: 'get', read: 'get', show: 'get', find: 'get', describe: 'get', view: 'get',
  all: 'list', search: 'list', index: 'list', query: 'list', browse: 'list',
  add: 'create', new: 'create', open: 'create', register: 'create', make: 'create', initiate: 'create', issue: 'create', post: 'create',
  modify: 'update', edit: 'update', patch: 'update', change: 'update', put: 'update',
  remove: 'delete', destroy: 'delete', unlink: 'delete', archive: 'delete',
  client: 'customer', user: 'customer', person: 'customer', individual: 'customer', party: 'customer', holder: 'customer', consumer: 'customer',
  verification: 'kyc', identity: 'kyc', onboarding: 'kyc', kyb: 'kyc', check: 'kyc', screening: 'kyc',
  document: 'document', file: 'document', upload: 'document',
  product: 'feature', capability: 'feature', eligibility: 'feature', entitlement: 'feature',
  ledger: 'account', balance: 'account',
  beneficiary: 'external', counterparty: 'external', payee: 'external', recipient: 'external', bank: 'external', linked: 'external',
  payment: 'transfer', payout: 'transfer', send: 'transfer', movement: 'transfer', remittance: 'transfer',
  payin: 'collection', deposit: 'collection', charge: 'collection', funding: 'collection', incoming: 'collection',
  crypto: 'wallet', address: 'wallet',
  exchange: 'fx', conversion: 'fx', currency: 'fx', forex: 'fx', rate: 'fx',
  entry: 'transaction', activity: 'transaction', statement: 'transaction', history: 'transaction',
  notification: 'webhook', event: 'event', delivery: 'delivery', attempt: 'delivery', hook: 'webhook', subscription: 'webhook',
  lock: 'freeze', block: 'freeze', suspend: 'freeze', pause: 'freeze', unlock: 'unfreeze', unblock: 'unfreeze', resume: 'unfreeze', reactivate: 'unfreeze',
  enable: 'activate', turn: 'activate',
  approve: 'approve', decide: 'approve',
};
const STOP = new Set(['v1', 'api', 'the', 'a', 'an', 'of', 'for', 'by', 'to', 'and', 'or', 'in', 'on', 'with', 'id', 'ids', 'me']);

function singular(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(ches|shes|sses|xes)$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

/** Lower-case words of a name of any spelling (camelCase, snake_case, kebab, dotted), singular and folded. */
function words(s: string): string[] {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w && !STOP.has(w))
    .map((w) => {
      const one = singular(w);
      return SYNONYMS[one] ?? SYNONYMS[w] ?? one;
    });
}

/** A field name with its spelling removed: first_name, firstName and FirstName are one. */
const squash = (s: string): string => s.replace(/[^a-zA-Z0-9]/g, '').toLowerCase();

function overlap(a: string[], b: string[]): number {
  const A = new Set(a);
  const B = new Set(b);
  if (A.size === 0 || B.size === 0) return 0;
  let n = 0;
  for (const x of A) if (B.has(x)) n++;
  return n / Math.max(A.size, B.size);
}

/** Follows a schema's $ref (local, or the bundle form the loader writes) through the document's own lookup. */
function deref(spec: SpecDocument, s: unknown, depth = 0): Json | undefined {
  if (!isObj(s) || depth > 8) return undefined;
  const ref = s['$ref'];
  return typeof ref === 'string' ? deref(spec, spec.schemaAt(ref), depth + 1) : s;
}

/** The properties of an object schema (through $ref, allOf, and the first oneOf/anyOf branch). */
function propertiesOf(spec: SpecDocument, schema: unknown, depth = 0): Record<string, Json> {
  const s = deref(spec, schema);
  if (!s || depth > 6) return {};
  const out: Record<string, Json> = {};
  for (const part of [...(Array.isArray(s['allOf']) ? s['allOf'] : []), ...(Array.isArray(s['oneOf']) ? [s['oneOf'][0]] : []), ...(Array.isArray(s['anyOf']) ? [s['anyOf'][0]] : [])]) {
    Object.assign(out, propertiesOf(spec, part, depth + 1));
  }
  if (isObj(s['properties'])) for (const [k, v] of Object.entries(s['properties'])) out[k] = deref(spec, v) ?? (isObj(v) ? v : {});
  return out;
}

const jsonSchema = (media: { mediaType: string; schema: unknown }[] | undefined): unknown => (media ?? []).find((m) => m.mediaType.includes('json'))?.schema;
const successSchema = (op: Operation): unknown => {
  const ok = op.responses.filter((r) => r.status.startsWith('2')).sort((a, b) => a.status.localeCompare(b.status))[0];
  return ok ? jsonSchema(ok.content) : undefined;
};

/** What one operation looks like to the matcher. */
interface Shape {
  op: Operation;
  idWords: string[];
  pathWords: string[];
  /** Static segments and parameters in order: "customer/{}/kyc". */
  skeleton: string;
  params: string[];
  summaryWords: string[];
  groupWords: string[];
  requestFields: string[];
  resourceFields: string[];
  envelope: string | undefined;
  list: { items: string; fields: string[]; shape: ListShape } | undefined;
}

const LIST_ITEM_NAMES = ['data', 'items', 'results', 'records', 'entries', 'content', 'elements', 'values', 'list', 'objects'];

function listShapeOf(spec: SpecDocument, op: Operation, body: Record<string, Json>): Shape['list'] {
  const arrays = Object.entries(body).filter(([, v]) => v['type'] === 'array' || (Array.isArray(v['type']) && v['type'].includes('array')) || isObj(v['items']));
  if (arrays.length === 0) return undefined;
  const [items, schema] = arrays.find(([k]) => LIST_ITEM_NAMES.includes(k.toLowerCase())) ?? arrays[0]!;
  const shape: ListShape = { items };
  const names = Object.keys(body);
  const find = (re: RegExp, type?: string) => names.find((n) => re.test(n) && n !== items && (!type || body[n]!['type'] === type || (Array.isArray(body[n]!['type']) && (body[n]!['type'] as string[]).includes(type))));
  const hasMore = find(/^(has_?more|hasMore|more|has_?next(_page)?|hasNext(Page)?)$/i);
  if (hasMore) shape.has_more = hasMore;
  const query = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  const q = (re: RegExp) => query.find((n) => re.test(n));
  const page = q(/^(page|page_?number|pageNumber|page_?index|p)$/i);
  const total = find(/^(total_?pages|totalPages|page_?count|pages|last_?page)$/i);
  const next = find(/^(next_?cursor|nextCursor|next_?page_?token|nextPageToken|next|cursor|next_?token|nextToken|after|ending_before|starting_after)$/i);
  const cursor = q(/^(cursor|page_?token|pageToken|after|starting_after|startingAfter|next|continuation|continuation_?token|offset_?token)$/i);
  if (page && !cursor) {
    shape.page_param = page;
    if (total) shape.total_pages = total;
  } else {
    if (next) shape.next_cursor = next;
    if (cursor) shape.cursor_param = cursor;
  }
  const limit = q(/^(limit|per_?page|perPage|page_?size|pageSize|size|count|max_?results|maxResults|take|first)$/i);
  if (limit) shape.limit_param = limit;
  return { items, fields: Object.keys(propertiesOf(spec, deref(spec, schema)?.['items'])), shape };
}

function shapeOf(spec: SpecDocument, op: Operation): Shape {
  const segments = op.path.split('/').filter(Boolean);
  const params = segments.filter((s) => s.startsWith('{')).map((s) => s.slice(1, -1));
  const body = propertiesOf(spec, successSchema(op));
  let resourceFields = Object.keys(body);
  let envelope: string | undefined;
  let list: Shape['list'];
  if (op.method === 'GET' && !/\{[^}]+\}$/.test(op.path)) list = listShapeOf(spec, op, body);
  if (!list) {
    // A resource enveloped in one member: { data: {...} } (maybe beside meta or links).
    const wrapper = Object.entries(body).find(([k, v]) => ['data', 'result', 'resource', 'object', 'item', 'payload'].includes(k.toLowerCase()) && Object.keys(propertiesOf(spec, v)).length > 0);
    if (wrapper && Object.keys(body).length <= 3) {
      envelope = wrapper[0];
      resourceFields = Object.keys(propertiesOf(spec, wrapper[1]));
    }
  }
  return {
    op,
    idWords: words(op.operationId),
    pathWords: segments.filter((s) => !s.startsWith('{')).flatMap(words),
    skeleton: segments.map((s) => (s.startsWith('{') ? '{}' : words(s).join('-'))).join('/'),
    params,
    summaryWords: words(op.summary),
    groupWords: op.tags.flatMap(words),
    requestFields: Object.keys(propertiesOf(spec, jsonSchema(op.requestBody?.content))).map(squash),
    resourceFields: (list ? list.fields : resourceFields).map(squash),
    envelope,
    list,
  };
}

/** How well a vendor operation plays a reference operation, with the reasons (0 when the methods differ). */
function score(v: Shape, r: Shape): { score: number; reasons: string[] } {
  if (v.op.method !== r.op.method) return { score: 0, reasons: [] };
  const reasons: string[] = [];
  let s = 0;
  if (v.op.path === r.op.path) {
    s += 3;
    reasons.push('same path');
  } else if (v.skeleton === r.skeleton) {
    s += 2.5;
    reasons.push('same path once parameter names are set aside');
  } else {
    const p = overlap(v.pathWords, r.pathWords);
    if (p > 0) reasons.push(`path words in common (${Math.round(p * 100)}%)`);
    s += 1.5 * p;
    if (v.params.length === r.params.length) s += 0.3;
    // A collection and an item are different operations: a trailing parameter must match.
    if (/\}$/.test(v.op.path) !== /\}$/.test(r.op.path)) s -= 0.8;
  }
  if (v.op.operationId === r.op.operationId) {
    s += 2;
    reasons.push('same operationId');
  } else {
    const i = overlap(v.idWords, r.idWords);
    if (i > 0) reasons.push(`operationId words in common (${Math.round(i * 100)}%)`);
    s += 1.5 * i;
  }
  const sm = overlap(v.summaryWords, [...r.summaryWords, ...r.idWords]);
  s += 0.5 * sm;
  const g = overlap(v.groupWords, r.groupWords);
  if (g > 0) reasons.push('tag names its group');
  s += 0.5 * g;
  const rf = overlap(v.requestFields, r.requestFields);
  if (rf > 0) reasons.push(`request fields in common (${Math.round(rf * 100)}%)`);
  const of = overlap(v.resourceFields, r.resourceFields);
  if (of > 0) reasons.push(`response fields in common (${Math.round(of * 100)}%)`);
  s += 1.2 * rf + 1.2 * of;
  return { score: s, reasons };
}

/** Confidence of a score: 1 for the same path and operationId, lower as the evidence thins. */
const confidence = (s: number): number => Math.max(0, Math.min(1, Math.round((s / 5) * 100) / 100));
const THRESHOLD = 1.6;

export interface Inference {
  binding: BindingFile;
  /** Reference operations no vendor operation was found to play. */
  missing: string[];
}

export function inferBinding(vendor: SpecDocument, reference: SpecDocument, specLabel: string): Inference {
  const vs = vendor.operations.map((o) => shapeOf(vendor, o));
  const rs = reference.operations.map((o) => shapeOf(reference, o));
  const pairs: { v: Shape; r: Shape; score: number; reasons: string[] }[] = [];
  for (const v of vs) {
    for (const r of rs) {
      // Every path parameter must be fillable from the reference's, and no vendor one left without a value.
      if (v.params.length !== r.params.length) continue;
      const fixed = SEED_FIXED[r.op.operationId];
      // What the seed fixes is played only by the seed's own method and path.
      if (fixed && (v.op.method !== fixed.method || v.op.path !== fixed.path)) continue;
      const sc = score(v, r);
      if (sc.score >= THRESHOLD) pairs.push({ v, r, ...sc });
    }
  }
  pairs.sort((a, b) => b.score - a.score);
  const takenV = new Set<string>();
  const takenR = new Set<string>();
  const operations: Record<string, OperationBinding> = {};
  const bound: { v: Shape; r: Shape }[] = [];
  for (const p of pairs) {
    if (takenV.has(p.v.op.operationId) || takenR.has(p.r.op.operationId)) continue;
    takenV.add(p.v.op.operationId);
    takenR.add(p.r.op.operationId);
    bound.push(p);
    const entry: OperationBinding = { operation: p.v.op.operationId };
    const pp: Record<string, string> = {};
    p.r.params.forEach((name, i) => {
      const vName = p.v.params[i];
      if (vName && vName !== name) pp[name] = vName;
    });
    if (Object.keys(pp).length) entry.path_params = pp;
    if (p.v.envelope && !p.r.envelope) entry.envelope = p.v.envelope;
    if (p.r.list && p.v.list && JSON.stringify(p.v.list.shape) !== JSON.stringify(p.r.list.shape)) entry.list = p.v.list.shape;
    entry.confidence = confidence(p.score);
    entry.reason = p.reasons.join('; ') || 'weak evidence';
    operations[p.r.op.operationId] = entry;
  }

  // Field names: a reference field the vendor spells otherwise (first_name / firstName) in a bound pair's schemas.
  const fields: Record<string, string> = {};
  for (const { v, r } of bound) {
    const vNames = [...rawFields(vendor, v.op)];
    for (const refName of rawFields(reference, r.op)) {
      const twin = vNames.find((n) => n !== refName && squash(n) === squash(refName));
      if (twin && !SEED_FIXED[r.op.operationId]) fields[refName] = twin;
    }
  }
  const states = inferStates(vendor, reference, bound);

  const groups: Record<string, GroupSlug> = {};
  const unbound: { operation: string; reason: string }[] = [];
  for (const v of vs) {
    if (takenV.has(v.op.operationId)) continue;
    const g = v.op.group && v.op.group !== 'unbound' ? v.op.group : groupByWords([...v.groupWords, ...v.pathWords, ...v.idWords]);
    if (g) groups[v.op.operationId] = g;
    else unbound.push({ operation: v.op.operationId, reason: `${v.op.method} ${v.op.path} plays no reference operation, and neither its tags nor its path name a group` });
  }
  const binding: BindingFile = {
    binding: 1,
    spec: specLabel,
    ...(Object.keys(fields).length ? { fields } : {}),
    ...(Object.keys(states).length ? { states } : {}),
    operations,
    ...(Object.keys(groups).length ? { groups } : {}),
    ...(unbound.length ? { unbound } : {}),
  };
  return { binding, missing: reference.operations.map((o) => o.operationId).filter((id) => !takenR.has(id)) };
}

/** Field names of an operation's request and success response (resource, envelope or list items), as spelled. */
function rawFields(spec: SpecDocument, op: Operation): Set<string> {
  const out = new Set<string>();
  const walk = (schema: unknown, depth: number) => {
    if (depth > 3) return;
    for (const [k, v] of Object.entries(propertiesOf(spec, schema))) {
      out.add(k);
      walk(v, depth + 1);
      if (isObj(v['items'])) walk(v['items'], depth + 1);
    }
  };
  walk(jsonSchema(op.requestBody?.content), 0);
  walk(successSchema(op), 0);
  return out;
}

/** States the vendor names otherwise: enum values of `status` members of bound resources, paired by synonym. */
const STATE_WORDS: Record<string, string> = {
  locked: 'frozen', blocked: 'frozen', suspended: 'frozen', paused: 'frozen', inactive: 'frozen',
  enabled: 'active', open: 'active', live: 'active',
  verified: 'approved', accepted: 'approved', passed: 'approved', cleared: 'approved',
  denied: 'rejected', declined: 'rejected', refused: 'rejected',
  processing: 'pending', in_progress: 'pending', submitted: 'pending', under_review: 'pending', review: 'pending',
  succeeded: 'completed', settled: 'completed', posted: 'completed', done: 'completed', complete: 'completed',
  errored: 'failed', error: 'failed',
  cancelled: 'canceled', voided: 'canceled',
  closed: 'closed', terminated: 'closed',
};

function inferStates(vendor: SpecDocument, reference: SpecDocument, bound: { v: Shape; r: Shape }[]): Record<string, string> {
  const enumOf = (spec: SpecDocument, op: Operation): string[] => {
    const props = propertiesOf(spec, successSchema(op));
    const inner = Object.values(props).find((p) => Object.keys(propertiesOf(spec, p)).includes('status'));
    const status = props['status'] ?? props['state'] ?? (inner ? propertiesOf(spec, inner)['status'] : undefined);
    return Array.isArray(status?.['enum']) ? (status['enum'] as unknown[]).filter((x): x is string => typeof x === 'string') : [];
  };
  const out: Record<string, string> = {};
  for (const { v, r } of bound) {
    const refStates = enumOf(reference, r.op);
    const vStates = enumOf(vendor, v.op);
    if (refStates.length === 0 || vStates.length === 0) continue;
    for (const vs of vStates) {
      if (refStates.includes(vs)) continue;
      const meant = STATE_WORDS[vs.toLowerCase()] ?? refStates.find((x) => squash(x) === squash(vs));
      if (meant && refStates.includes(meant) && !vStates.includes(meant)) out[meant] = vs;
    }
  }
  return out;
}

function groupByWords(ws: string[]): GroupSlug | undefined {
  const counts = new Map<GroupSlug, number>();
  for (const g of GROUPS) {
    const gw = words(g.tag);
    const n = ws.filter((w) => gw.includes(w) || w === g.slug).length;
    if (n) counts.set(g.slug, n);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}
