/**
 * Infers a binding from a vendor's document by comparing each of its operations with the reference profile's:
 * method, path structure, operationId, summary, tags and the field names of request and response schemas. Every
 * entry carries a confidence and the reasons, for a person to review before a certification run. A pairing whose
 * confidence is below SUGGESTION_THRESHOLD is only a suggestion (written commented out, never used by a run); a
 * pairing that contradicts the reference operation's action (freeze, upload, ...) or names another resource is
 * not proposed at all. It also infers the vendor's conventions: field, query and path parameter names, enum values
 * (`states`, `values`), event types, the error shape, envelopes and list paging.
 */
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import { GROUPS, type GroupSlug } from '../catalogue/groups.js';
import { isStateMember, SEED_FIXED, type BindingFile, type ErrorShape, type ListShape, type OperationBinding } from './format.js';
import { isObj, type Json } from '../json.js';
import { pathParamNames } from '../http/path-template.js';
import { deref, eachProperty, propertiesOf as propertyMap } from '../catalogue/schema-walker.js';


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
  // A balance is no account (GET /counterparties/{id}/balance does not read one).
  ledger: 'account',
  beneficiary: 'external', counterparty: 'external', payee: 'external', recipient: 'external', bank: 'external', linked: 'external',
  payment: 'transfer', payout: 'transfer', send: 'transfer', movement: 'transfer', remittance: 'transfer',
  payin: 'collection', deposit: 'collection', charge: 'collection', funding: 'collection', incoming: 'collection',
  // An address is more often a postal one than a wallet's.
  crypto: 'wallet',
  exchange: 'fx', conversion: 'fx', currency: 'fx', forex: 'fx', rate: 'fx',
  // A statement is not a transaction (a vendor's listStatements does not play listTransactions).
  entry: 'transaction', activity: 'transaction', history: 'transaction',
  // A subscription is a webhook endpoint's registration (or a billing plan's), not an event or a delivery.
  // A notification is an event sent to an endpoint: a delivery.
  notification: 'delivery', event: 'event', delivery: 'delivery', attempt: 'delivery', hook: 'webhook',
  lock: 'freeze', block: 'freeze', suspend: 'freeze', pause: 'freeze', unlock: 'unfreeze', unblock: 'unfreeze', resume: 'unfreeze', reactivate: 'unfreeze',
  enable: 'activate', turn: 'activate',
  approve: 'approve', decide: 'approve',
};
const STOP = new Set(['v1', 'api', 'the', 'a', 'an', 'of', 'for', 'by', 'to', 'and', 'or', 'in', 'on', 'with', 'id', 'ids', 'me']);

/**
 * What an operation does to an existing resource beyond create/read/update/delete, by the words that say it. The
 * reference's actions (freeze, unfreeze, activate, submit, upload) must be the vendor operation's own; an operation
 * with another action (renew, upload an image) does not play them, nor a plain create or read.
 */
const ACTIONS: Record<string, string[]> = {
  freeze: ['freeze', 'lock', 'block', 'suspend', 'pause'],
  unfreeze: ['unfreeze', 'unlock', 'unblock', 'resume', 'reactivate', 'unsuspend', 'unpause'],
  activate: ['activate', 'enable'],
  deactivate: ['deactivate', 'disable'],
  approve: ['approve', 'accept'],
  reject: ['reject', 'decline', 'deny'],
  submit: ['submit'],
  upload: ['upload'],
  download: ['download', 'export'],
  cancel: ['cancel', 'void', 'revoke'],
  close: ['close', 'terminate'],
  renew: ['renew', 'reissue', 'replace'],
  refund: ['refund', 'reverse', 'reversal'],
  capture: ['capture'],
  verify: ['verify', 'validate', 'confirm'],
  simulate: ['simulate'],
  retry: ['retry', 'resend', 'redeliver'],
};
const ACTION_OF = new Map(Object.entries(ACTIONS).flatMap(([action, ws]) => ws.map((w) => [w, action] as const)));
/** Said only as a path's trailing action segment (POST /capabilities/{id}/request): too common a word elsewhere. */
const PATH_ACTIONS: Record<string, string> = { request: 'activate', start: 'submit' };
/** Actions that create a record: a vendor's plain create plays them (uploadKycDocument as POST /documents). */
const CREATE_LIKE = new Set(['submit', 'upload']);
/** Head nouns too ambiguous to fold: an exchange alone is as often a bank connection as a currency exchange. */
const UNFOLDED_HEADS = new Set(['exchange']);
/** A resource's head noun that says nothing of which resource it is: the word before it does. */
const GENERIC_HEADS = new Set(['order', 'request', 'item', 'record', 'detail', 'info', 'data', 'object', 'resource', 'entity', 'summary', 'list']);

function singular(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(ches|shes|sses|xes)$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

/** Lower-case singular words of a name of any spelling (camelCase, snake_case, kebab, dotted), not yet folded. */
function rawWords(s: string): string[] {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w && !STOP.has(w))
    .map(singular);
}

/** Lower-case words of a name of any spelling, singular and folded onto the reference's vocabulary. */
function words(s: string): string[] {
  return rawWords(s).map((w) => SYNONYMS[w] ?? w);
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

/** An object schema's properties (the catalogue's walk: $ref, allOf, every oneOf/anyOf branch), by name. */
const propertiesOf = (spec: SpecDocument, schema: unknown): Record<string, Json> => Object.fromEntries(propertyMap(spec, schema));

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
  params: readonly string[];
  summaryWords: string[];
  groupWords: string[];
  requestFields: string[];
  resourceFields: string[];
  envelope: string | undefined;
  list: { items: string; fields: string[]; shape: ListShape } | undefined;
  /** Its actions beyond create/read/update/delete (freeze, upload, ...). */
  actions: Set<string>;
  /** Words naming its resource (path and operationId, actions and verbs aside), and the head noun among them. */
  resourceWords: Set<string>;
  head: string | undefined;
  /** The head noun only by a synonym (a "user" read as a customer). */
  headBySynonym: boolean;
  /** The collection its path addresses (the path without a trailing parameter). */
  collection: string;
  /** Its resource segment is spelled as a plural (/accounts), not a singular (/account). */
  plural: boolean | undefined;
}

const LIST_ITEM_NAMES = ['data', 'items', 'results', 'records', 'entries', 'content', 'elements', 'values', 'list', 'objects'];
const typed = (v: Json, t: string): boolean => v['type'] === t || (Array.isArray(v['type']) && v['type'].includes(t));

function listShapeOf(spec: SpecDocument, op: Operation, body: Record<string, Json>): Shape['list'] {
  const arrays = Object.entries(body).filter(([, v]) => typed(v, 'array') || isObj(v['items']));
  if (arrays.length === 0) return undefined;
  const query = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  const q = (re: RegExp) => query.find((n) => re.test(n));
  const named = arrays.find(([k]) => LIST_ITEM_NAMES.includes(k.toLowerCase()));
  // A resource with an array member (a KYC verification's document_ids) is no list: the member must be named as
  // a list's items are, or the operation must take paging parameters.
  if (!named && !q(/^(limit|cursor|page|offset|page_?size|pageSize|per_?page|perPage|page_?token|pageToken|starting_after|after)$/i)) return undefined;
  const [items, schema] = named ?? arrays[0]!;
  const shape: ListShape = { items };
  const names = Object.keys(body);
  const find = (re: RegExp, type?: string) => names.find((n) => re.test(n) && n !== items && (!type || typed(body[n]!, type)));
  const hasMore = find(/^(has_?more|hasMore|more|has_?next(_page)?|hasNext(Page)?)$/i);
  if (hasMore) shape.has_more = hasMore;
  const page = q(/^(page|page_?number|pageNumber|page_?index|p)$/i);
  const totalPages = find(/^(total_?pages|totalPages|page_?count|pages|last_?page)$/i);
  const next = find(/^(next_?cursor|nextCursor|next_?page_?token|nextPageToken|next|cursor|next_?token|nextToken|after|ending_before|starting_after)$/i);
  const cursor = q(/^(cursor|page_?token|pageToken|after|starting_after|startingAfter|next|continuation|continuation_?token|offset_?token)$/i);
  const offset = q(/^(offset|skip|start|start_?index|startIndex|from)$/i);
  const total = find(/^(total|total_?count|totalCount|total_?items|totalItems|total_?results|totalResults|count)$/i);
  if (page && !cursor) {
    shape.page_param = page;
    if (totalPages) shape.total_pages = totalPages;
  } else if (offset && !cursor) {
    shape.offset_param = offset;
  } else {
    if (next) shape.next_cursor = next;
    if (cursor) shape.cursor_param = cursor;
  }
  // The total tells an offset list's last page (a cursor or page list says so its own way).
  if (total && !shape.page_param && !shape.cursor_param) shape.total = total;
  const limit = q(/^(limit|per_?page|perPage|page_?size|pageSize|size|count|max_?results|maxResults|take|first)$/i);
  if (limit) shape.limit_param = limit;
  return { items, fields: Object.keys(propertiesOf(spec, deref(spec, schema)?.['items'])), shape };
}

/** The actions an operation names: a word of its operationId, or its path's trailing segments after a parameter. */
function actionsOf(op: Operation): Set<string> {
  const out = new Set<string>();
  for (const w of rawWords(op.operationId)) {
    const a = ACTION_OF.get(w);
    if (a) out.add(a);
  }
  const segments = op.path.split('/').filter(Boolean);
  const lastParam = segments.map((s) => s.startsWith('{')).lastIndexOf(true);
  if (lastParam >= 0) {
    for (const s of segments.slice(lastParam + 1)) {
      for (const w of rawWords(s)) {
        const a = ACTION_OF.get(w) ?? PATH_ACTIONS[w];
        if (a) out.add(a);
      }
    }
  }
  return out;
}

const CRUD = new Set(['get', 'list', 'create', 'update', 'delete']);

/** The words naming an operation's resource, and its head noun (the last static path segment's last word). */
function resourceOf(op: Operation): { words: Set<string>; head: string | undefined; bySynonym: boolean } {
  const isNoun = (w: string) => !CRUD.has(SYNONYMS[w] ?? w) && !ACTION_OF.has(w) && !PATH_ACTIONS[w];
  const statics = op.path.split('/').filter((s) => s && !s.startsWith('{'));
  const nounSegments = statics.map((s) => rawWords(s).filter(isNoun)).filter((ws) => ws.length > 0);
  const ws = new Set([...nounSegments.flat(), ...rawWords(op.operationId).filter(isNoun)].map((w) => SYNONYMS[w] ?? w));
  const last = nounSegments[nounSegments.length - 1] ?? [];
  const meaningful = last.filter((w) => !GENERIC_HEADS.has(w));
  const headRaw = meaningful[meaningful.length - 1] ?? [...nounSegments.flat()].reverse().find((w) => !GENERIC_HEADS.has(w));
  const head = headRaw === undefined ? undefined : UNFOLDED_HEADS.has(headRaw) ? headRaw : (SYNONYMS[headRaw] ?? headRaw);
  return { words: ws, head, bySynonym: head !== undefined && head !== headRaw };
}

function shapeOf(spec: SpecDocument, op: Operation): Shape {
  const segments = op.path.split('/').filter(Boolean);
  const params = pathParamNames(op.path);
  const body = propertiesOf(spec, successSchema(op));
  let resourceFields = Object.keys(body);
  let envelope: string | undefined;
  let list: Shape['list'];
  const whole = deref(spec, successSchema(op));
  if (op.method === 'GET' && whole && typed(whole, 'array')) {
    // The body is the array itself.
    list = { items: '', fields: Object.keys(propertiesOf(spec, whole['items'])), shape: { items: '' } };
  } else if (op.method === 'GET' && !/\{[^}]+\}$/.test(op.path)) list = listShapeOf(spec, op, body);
  if (!list) {
    // A resource enveloped in one member: { data: {...} } (maybe beside meta or links).
    const wrapper = Object.entries(body).find(([k, v]) => ['data', 'result', 'resource', 'object', 'item', 'payload'].includes(k.toLowerCase()) && Object.keys(propertiesOf(spec, v)).length > 0);
    if (wrapper && Object.keys(body).length <= 3) {
      envelope = wrapper[0];
      resourceFields = Object.keys(propertiesOf(spec, wrapper[1]));
    }
  }
  const resource = resourceOf(op);
  const resourceSegment = segments.filter((x) => !x.startsWith('{') && rawWords(x).some((w) => !ACTION_OF.has(w) && !PATH_ACTIONS[w])).pop();
  const lastWord = resourceSegment?.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean).pop();
  return {
    plural: lastWord === undefined ? undefined : singular(lastWord) !== lastWord,
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
    actions: actionsOf(op),
    resourceWords: resource.words,
    head: resource.head,
    headBySynonym: resource.bySynonym,
    collection: op.path.replace(/\/\{[^}]+\}$/, ''),
  };
}

/**
 * Why a vendor operation cannot play a reference operation, whatever else they share: another action, or none where
 * the reference has one (a card's image upload does not freeze it; a renewal is not an issue).
 */
function contradiction(v: Shape, r: Shape): string | undefined {
  // A list does not read one object, nor one object a list.
  if (v.op.method === 'GET' && v.list && !r.list) return `${v.op.operationId} answers a list, and ${r.op.operationId} one object`;
  if (v.op.method === 'GET' && r.list && !v.list && /\}$/.test(v.op.path)) return `${v.op.operationId} reads one object, and ${r.op.operationId} lists`;
  for (const a of r.actions) {
    if (v.actions.has(a)) continue;
    if (CREATE_LIKE.has(a) && v.actions.size === 0) continue;
    return `${r.op.operationId} ${a}s, and ${v.op.operationId} (${v.op.method} ${v.op.path}) does not say so`;
  }
  const other = [...v.actions].filter((a) => !r.actions.has(a));
  if (other.length) return `${v.op.operationId} (${v.op.method} ${v.op.path}) ${other.join(', ')}s, which ${r.op.operationId} does not`;
  return undefined;
}

/**
 * How well a vendor operation plays a reference operation, with the reasons (0 when the methods differ).
 * `pluralApi`: the vendor names its collections in the plural, so a singular path is one object of its own.
 */
function score(v: Shape, r: Shape, pluralApi: boolean, creates: { vendor: ReadonlySet<string>; reference: ReadonlySet<string> }): { score: number; reasons: string[] } {
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
    // A write to a collection and a write to an item are different operations: a trailing parameter must match.
    // (A read is judged by what it answers, a list or one object: see contradiction; a singleton such as a
    // customer's KYC is read at /customers/{id}/kyc or /verifications/{customer} alike.)
    if (v.op.method !== 'GET' && /\}$/.test(v.op.path) !== /\}$/.test(r.op.path)) s -= 0.8;
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
  // The reference's answer has members, and the vendor's shares none (or declares none): no evidence it is the same.
  if (of === 0 && r.resourceFields.length >= 3 && (v.op.method === 'GET' || v.resourceFields.length >= 3)) {
    s -= 0.6;
    reasons.push('no response field in common');
  }
  if (pluralApi && v.plural === false && r.plural === true) {
    s -= 1;
    reasons.push(`${v.op.path} is singular in an API of plural collections: one object of its own, not a collection`);
  }
  // Its resource is named by another noun (a payment schedule is not a transfer): the rest must make up for it.
  if (v.head && !r.resourceWords.has(v.head)) {
    s -= 1;
    reasons.push(`its resource is a "${v.head}", which ${r.op.operationId} does not name`);
  }
  // A resource that is the reference's only by a synonym, and that the document never writes, is the platform's
  // own (Fireblocks' and Xero's console users read as customers): the API's customers are made through the API.
  if (v.headBySynonym && creates.reference.has(r.collection) && !creates.vendor.has(v.collection)) {
    s -= 1.5;
    reasons.push(`its resource is a ${r.head ?? 'reference resource'} only by a synonym, and the document writes none at ${v.collection}: likely the platform's own, not the API's`);
  }
  if (r.actions.size > 0) reasons.push(`the same action (${[...r.actions].join(', ')})`);
  return { score: s, reasons };
}

/** Confidence of a score: 1 for the same path and operationId, lower as the evidence thins. */
const confidence = (s: number): number => Math.max(0, Math.min(1, Math.round((s / 5) * 100) / 100));
/** Pairs scoring below this are not proposed at all. */
const THRESHOLD = 1.6;
/**
 * Pairs below this confidence are written as commented suggestions, not active entries. Chosen on real vendor
 * documents (docs/binding.md, "How sure bind is"): the lowest value that left no wrong pairing active.
 */
export const SUGGESTION_THRESHOLD = 0.67;

export interface Inference {
  binding: BindingFile;
  /** Pairings too weak to act on: written commented out for a person to take or leave. */
  suggestions: { reference: string; entry: OperationBinding }[];
  /** Reference operations no vendor operation was found to play (suggestions aside). */
  missing: string[];
  threshold: number;
}

export function inferBinding(vendor: SpecDocument, reference: SpecDocument, specLabel: string, opts: { threshold?: number } = {}): Inference {
  const threshold = opts.threshold ?? SUGGESTION_THRESHOLD;
  const vs = vendor.operations.map((o) => shapeOf(vendor, o));
  const rs = reference.operations.map((o) => shapeOf(reference, o));
  const spelled = vs.filter((v) => v.plural !== undefined);
  const pluralApi = spelled.filter((v) => v.plural).length > spelled.length / 2;
  // Collections the API writes: a POST, PUT or PATCH on the collection or on a member of it (a KYC singleton is
  // submitted at /identity-verifications/{customer}; Xero creates with a PUT).
  const creatableIn = (ops: readonly Operation[]) => new Set(ops.filter((o) => o.method === 'POST' || o.method === 'PUT' || o.method === 'PATCH').map((o) => o.path.replace(/\/\{[^}]+\}$/, '')));
  const creates = { vendor: creatableIn(vendor.operations), reference: creatableIn(reference.operations) };
  const pairs: { v: Shape; r: Shape; score: number; reasons: string[] }[] = [];
  for (const v of vs) {
    for (const r of rs) {
      // Every path parameter must be fillable from the reference's, and no vendor one left without a value.
      if (v.params.length !== r.params.length) continue;
      const fixed = SEED_FIXED[r.op.operationId];
      // What the seed fixes is played only by the seed's own method and path.
      if (fixed && (v.op.method !== fixed.method || v.op.path !== fixed.path)) continue;
      if (v.op.method !== r.op.method || contradiction(v, r)) continue;
      const sc = score(v, r, pluralApi, creates);
      if (sc.score >= THRESHOLD) pairs.push({ v, r, ...sc });
    }
  }
  pairs.sort((a, b) => b.score - a.score);
  const takenV = new Set<string>();
  const takenR = new Set<string>();
  const operations: Record<string, OperationBinding> = {};
  const suggestions: Inference['suggestions'] = [];
  const bound: { v: Shape; r: Shape; entry: OperationBinding }[] = [];
  for (const p of pairs) {
    if (takenV.has(p.v.op.operationId) || takenR.has(p.r.op.operationId)) continue;
    // A suggestion holds its reference operation (no weaker pair of it is proposed), not its vendor operation.
    takenR.add(p.r.op.operationId);
    const entry: OperationBinding = { operation: p.v.op.operationId };
    const pp: Record<string, string> = {};
    p.r.params.forEach((name, i) => {
      const vName = p.v.params[i];
      if (vName && vName !== name) pp[name] = vName;
    });
    if (Object.keys(pp).length) entry.path_params = pp;
    const query = queryRenames(p.v.op, p.r.op);
    if (query) entry.query = query;
    if (p.v.envelope && !p.r.envelope) entry.envelope = p.v.envelope;
    if (p.r.list && p.v.list && JSON.stringify(p.v.list.shape) !== JSON.stringify(p.r.list.shape)) entry.list = p.v.list.shape;
    entry.confidence = confidence(p.score);
    entry.reason = p.reasons.join('; ') || 'weak evidence';
    if (entry.confidence < threshold) {
      suggestions.push({ reference: p.r.op.operationId, entry });
      continue;
    }
    takenV.add(p.v.op.operationId);
    operations[p.r.op.operationId] = entry;
    bound.push({ ...p, entry });
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
  const events = inferEvents(vendor, reference);
  const { states, values } = inferValues(vendor, reference, bound, fields);
  const errors = inferErrors(vendor);

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
    ...(Object.keys(values).length ? { values } : {}),
    ...(Object.keys(events).length ? { events } : {}),
    ...(errors ? { errors } : {}),
    operations,
    ...(Object.keys(groups).length ? { groups } : {}),
    ...(unbound.length ? { unbound } : {}),
  };
  return { binding, suggestions, threshold, missing: reference.operations.map((o) => o.operationId).filter((id) => !operations[id]) };
}

/** Reference query parameters (paging aside) the vendor spells otherwise: customer_id / customerId. */
function queryRenames(v: Operation, r: Operation): Record<string, string> | undefined {
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
function rawFields(spec: SpecDocument, op: Operation): Set<string> {
  const out = new Set<string>();
  for (const schema of [jsonSchema(op.requestBody?.content), successSchema(op)]) eachProperty(spec, schema, (k) => out.add(k));
  return out;
}

/**
 * Every enum of an operation by member (or parameter) name: its request and success schemas at any depth (every
 * oneOf branch), and its path and query parameters.
 */
function enumsOf(spec: SpecDocument, op: Operation): Map<string, Set<string>> {
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
const STATE_WORDS: Record<string, string> = {
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
function inferValues(vendor: SpecDocument, reference: SpecDocument, bound: { v: Shape; r: Shape }[], fields: Record<string, string>): { states: Record<string, string>; values: Record<string, Record<string, string>> } {
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
const eventKey = (s: string): string => rawWords(s).join(' ');
const isEventType = (s: string): boolean => /^[a-z_]+\.[a-z_]+$/.test(s);

/** Every string enum value and webhook name in a document. */
function enumStrings(raw: unknown): Set<string> {
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
function inferEvents(vendor: SpecDocument, reference: SpecDocument): Record<string, string> {
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
function inferErrors(vendor: SpecDocument): ErrorShape | undefined {
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

const CODE_NAMES = /^(code|error_?code|errorCode|error_?type|errorType|type|error)$/i;
const MESSAGE_NAMES = /^(message|msg|detail|details|description|error_?description|errorDescription|error_?message|errorMessage)$/i;

function errorShapeOf(spec: SpecDocument, schema: unknown): ErrorShape | undefined {
  const top = propertiesOf(spec, schema);
  if ('title' in top && ('status' in top || 'detail' in top || 'type' in top)) return undefined;
  const search = (props: Record<string, Json>, prefix: string, depth: number): ErrorShape | undefined => {
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
const rank = (n: string): number => (/^code$/i.test(n) ? 0 : /code/i.test(n) ? 1 : /type/i.test(n) ? 2 : 3);

function groupByWords(ws: string[]): GroupSlug | undefined {
  const counts = new Map<GroupSlug, number>();
  for (const g of GROUPS) {
    const gw = words(g.tag);
    const n = ws.filter((w) => gw.includes(w) || w === g.slug).length;
    if (n) counts.set(g.slug, n);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}
