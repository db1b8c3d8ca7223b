/**
 * What one operation looks like to the matcher: its words, path skeleton, fields, envelope, list shape, actions and
 * the resource it names.
 */
import type { Operation, SpecDocument } from '../../catalogue/openapi.js';
import type { ListShape } from '../format.js';
import { isObj, type JsonObject } from '../../json.js';
import { pathParamNames } from '../../http/path-template.js';
import { deref, propertiesOf as propertyMap } from '../../catalogue/schema-walker.js';
import { effectOf, type Effect } from './effect.js';
import { ACTION_OF, CRUD, GENERIC_HEADS, PATH_ACTIONS, SYNONYMS, UNFOLDED_HEADS, rawWords, singular, squash, words } from './vocabulary.js';

/** An object schema's properties (the catalogue's walk: $ref, allOf, every oneOf/anyOf branch), by name. */
export const propertiesOf = (spec: SpecDocument, schema: unknown): Record<string, JsonObject> => Object.fromEntries(propertyMap(spec, schema));

export const jsonSchema = (media: { mediaType: string; schema: unknown }[] | undefined): unknown => (media ?? []).find((m) => m.mediaType.includes('json'))?.schema;
export const successSchema = (op: Operation): unknown => {
  const ok = op.responses.filter((r) => r.status.startsWith('2')).sort((a, b) => a.status.localeCompare(b.status))[0];
  return ok ? jsonSchema(ok.content) : undefined;
};

/** What one operation looks like to the matcher. */
export interface Shape {
  op: Operation;
  idWords: string[];
  pathWords: string[];
  /** The path without a version prefix (/v2/customers is /customers of version 2). */
  route: string;
  /** Static segments (synonyms folded) and parameters in order: "customer/{}/kyc". */
  skeleton: string;
  /** The same, the words as the document spells them: /payments and /transfers differ here. */
  rawSkeleton: string;
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
  /** What its collection does with money (moves it between accounts, takes it in, settles a bill), if it says. */
  effect: Effect | undefined;
  /** Its resource segment is spelled as a plural (/accounts), not a singular (/account). */
  plural: boolean | undefined;
}

export const LIST_ITEM_NAMES = ['data', 'items', 'results', 'records', 'entries', 'content', 'elements', 'values', 'list', 'objects'];
export const typed = (v: JsonObject, t: string): boolean => v['type'] === t || (Array.isArray(v['type']) && v['type'].includes(t));

/** Objects a list's array may sit in: HAL's `_embedded` ({ _embedded: { customers: [...] } }), a cursor's page. */
const LIST_WRAPPERS = ['_embedded', 'embedded', 'cursor', 'page', 'result', 'results', 'data'];

export function listShapeOf(spec: SpecDocument, op: Operation, body: Record<string, JsonObject>): Shape['list'] {
  const isArray = (v: JsonObject) => typed(v, 'array') || isObj(v['items']);
  if (!Object.values(body).some(isArray)) {
    // The array one level down, in a wrapper object: its members are the list's (items, has_more, next).
    for (const [k, v] of Object.entries(body)) {
      if (!LIST_WRAPPERS.includes(k.toLowerCase())) continue;
      const inner = propertiesOf(spec, v);
      const innerArrays = Object.entries(inner).filter(([, x]) => isArray(x));
      // Under HAL's _embedded the array is named by its resource (customers), and is the only one.
      const hal = /^_?embedded$/i.test(k) && innerArrays.length === 1;
      const found = hal ? innerArrays : innerArrays.filter(([n]) => LIST_ITEM_NAMES.includes(n.toLowerCase()));
      if (found.length === 0) continue;
      const shape = listShapeOf(spec, op, hal ? { data: found[0]![1], ...Object.fromEntries(Object.entries(inner).filter(([n]) => n !== found[0]![0])) } : inner);
      if (!shape) continue;
      const prefix = (m: string | undefined) => (m === undefined ? undefined : `${k}.${m === 'data' && hal ? found[0]![0] : m}`);
      const out: ListShape = { ...shape.shape, items: prefix(shape.shape.items)! };
      for (const key of ['has_more', 'next_cursor', 'total', 'total_pages'] as const) if (shape.shape[key]) out[key] = prefix(shape.shape[key]);
      // A total beside the wrapper (HAL's `count`, Dwolla's `total`) is the body's own.
      const total = Object.keys(body).find((n) => /^(total|total_?count|totalCount|count)$/i.test(n));
      if (total && !out.total && !out.page_param && !out.cursor_param) out.total = total;
      return { ...shape, items: out.items, shape: out };
    }
    return undefined;
  }
  const arrays = Object.entries(body).filter(([, v]) => isArray(v));
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
export function actionsOf(op: Operation): Set<string> {
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


/** The collection a path addresses: without a trailing parameter, nor an RPC verb (/transfer/create is /transfer). */
export const collectionOf = (route: string): string => route.replace(/\/\{[^}]+\}$/, '').replace(/\/(create|get|list|update|delete)$/i, '');

/** The words naming an operation's resource, and its head noun (the last static path segment's last word). */
export function resourceOf(op: Operation): { words: Set<string>; head: string | undefined; bySynonym: boolean } {
  const isNoun = (w: string) => !CRUD.has(SYNONYMS[w] ?? w) && !ACTION_OF.has(w) && !PATH_ACTIONS[w];
  const statics = routeOf(op.path).split('/').filter((s) => s && !s.startsWith('{'));
  const nounSegments = statics.map((s) => rawWords(s).filter(isNoun)).filter((ws) => ws.length > 0);
  const ws = new Set([...nounSegments.flat(), ...rawWords(op.operationId).filter(isNoun)].map((w) => SYNONYMS[w] ?? w));
  const last = nounSegments[nounSegments.length - 1] ?? [];
  const meaningful = last.filter((w) => !GENERIC_HEADS.has(w));
  const headRaw = meaningful[meaningful.length - 1] ?? [...nounSegments.flat()].reverse().find((w) => !GENERIC_HEADS.has(w));
  const head = headRaw === undefined ? undefined : UNFOLDED_HEADS.has(headRaw) ? headRaw : (SYNONYMS[headRaw] ?? headRaw);
  return { words: ws, head, bySynonym: head !== undefined && head !== headRaw };
}

/** A path without its version prefix: /v2/customers, /api/v1/customers and /2024-01/customers are /customers. */
export const routeOf = (path: string): string => path.replace(/^(\/api)?(\/v\d+(\.\d+)*|\/\d{4}-\d{2}(-\d{2})?)(?=\/)/i, '') || path;

export function shapeOf(spec: SpecDocument, op: Operation, effects?: ReadonlyMap<string, Effect>): Shape {
  const route = routeOf(op.path);
  const segments = route.split('/').filter(Boolean);
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
    route,
    skeleton: segments.map((s) => (s.startsWith('{') ? '{}' : words(s).join('-'))).join('/'),
    rawSkeleton: segments.map((s) => (s.startsWith('{') ? '{}' : rawWords(s).join('-'))).join('/'),
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
    collection: collectionOf(route),
    effect: effects?.get(collectionOf(route)) ?? effectOf(spec, op),
  };
}
