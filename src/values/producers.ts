/**
 * Which operation of a document produces the value of another operation's parameter: the static half of "values
 * the target itself returned", computed from the document alone at plan time so that it can be shown (spec.
 * value_sources in conformance.json) before anything is sent.
 *
 * A pairing comes from the document's OpenAPI `links` where it declares them (certain), else it is inferred the way
 * Schemathesis infers links from resources: the path segment before a parameter names the collection
 * (`/cards/{card_token}` -> `/cards`), the collection's list (GET) and create (POST) on that path produce it, and
 * the member that carries it is the one of the produced resource's schema whose name matches the parameter
 * (`card_token`, `cardToken`, `token` once the resource's own name is dropped, else `id`). A parameter that names a
 * resource elsewhere (`?account_id=`) pairs with the list whose collection it names. Each pairing has a confidence
 * and its reason; below ACTIVE_CONFIDENCE it is a suggestion, shown and never acted on.
 */
import type { Operation, Parameter, SpecDocument } from '../catalogue/openapi.js';
import { isObj } from '../json.js';
import type { ValueSourceAccount } from '../results/model.js';
import { escapePointer, listArrayOf, successSchema } from './answer-pointers.js';
import { propertiesOf } from '../catalogue/schema-walker.js';
import { ACTIVE_CONFIDENCE } from '../confidence.js';

export { ACTIVE_CONFIDENCE };

export type ProducerKind = 'list' | 'create' | 'read';

export interface ValueSource {
  /** The operation whose parameter is filled, and the parameter. */
  operation: string;
  parameter: string;
  in: Parameter['in'];
  /** The operation whose answer holds the value. */
  producer: string;
  kind: ProducerKind;
  /** JSON pointer into the producer's answer body; a `*` token stands for every item of an array. */
  select: string;
  /** The producer's own path parameters, each filled with the value of this consumer parameter. */
  carry: Record<string, string>;
  via: 'link' | 'inferred';
  confidence: number;
  reason: string;
  /** Confident enough to act on (>= ACTIVE_CONFIDENCE); else only a suggestion. */
  active: boolean;
}

export interface ValueSourceModel {
  readonly sources: readonly ValueSource[];
  /** The active sources of one parameter, best first: links, then lists (safe reads), then creates. */
  of(operation: string, parameter: string, where: Parameter['in']): ValueSource[];
}

const models = new WeakMap<SpecDocument, ValueSourceModel>();

/** The model of a document, computed once per loaded document. */
export function valueSources(spec: SpecDocument): ValueSourceModel {
  let m = models.get(spec);
  if (!m) models.set(spec, (m = buildModel(spec)));
  return m;
}

const KIND_ORDER: Record<ProducerKind, number> = { list: 0, read: 1, create: 2 };

function buildModel(spec: SpecDocument): ValueSourceModel {
  const found = new Map<string, ValueSource>();
  const add = (s: Omit<ValueSource, 'active'>): void => {
    const key = `${s.operation}|${s.in}|${s.parameter}|${s.producer}`;
    const known = found.get(key);
    // A declared link beats an inference on the same pair; otherwise the more confident reading.
    if (known && (known.via === 'link' || known.confidence >= s.confidence) && s.via !== 'link') return;
    found.set(key, { ...s, confidence: round(s.confidence), active: s.confidence >= ACTIVE_CONFIDENCE });
  };
  for (const s of declaredLinks(spec)) add(s);
  const index = indexOf(spec);
  for (const op of spec.operations) {
    for (const p of op.parameters) {
      if (p.in === 'path') for (const s of byCollection(spec, index, op, p)) add(s);
      if (p.in === 'path' || (p.in === 'query' && p.required)) for (const s of byName(spec, index, op, p)) add(s);
    }
  }
  const sources = [...found.values()].sort(
    (a, b) =>
      a.operation.localeCompare(b.operation) ||
      a.parameter.localeCompare(b.parameter) ||
      Number(b.via === 'link') - Number(a.via === 'link') ||
      KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
      b.confidence - a.confidence,
  );
  const active = new Map<string, ValueSource[]>();
  for (const s of sources) {
    if (!s.active) continue;
    const k = `${s.operation}|${s.in}|${s.parameter}`;
    active.set(k, [...(active.get(k) ?? []), s]);
  }
  return { sources, of: (operation, parameter, where) => active.get(`${operation}|${where}|${parameter}`) ?? [] };
}

const round = (n: number): number => Math.round(n * 100) / 100;

// --- Declared links ------------------------------------------------------------------------------------------------

/** Response links of every operation (`links: { name: { operationId | operationRef, parameters } }`). */
function declaredLinks(spec: SpecDocument): Omit<ValueSource, 'active'>[] {
  const out: Omit<ValueSource, 'active'>[] = [];
  for (const producer of spec.operations) {
    const raw = producer.pointer.reduce<unknown>((o, k) => (isObj(o) ? o[k] : undefined), spec.raw);
    const responses = isObj(raw) && isObj(raw['responses']) ? raw['responses'] : {};
    for (const [status, response] of Object.entries(responses)) {
      if (!/^2/.test(status) || !isObj(response) || !isObj(response['links'])) continue;
      for (const [name, link] of Object.entries(response['links'])) {
        if (!isObj(link) || !isObj(link['parameters'])) continue;
        const consumer = linkTarget(spec, link);
        if (!consumer || consumer === producer) continue;
        const params = Object.entries(link['parameters']).map(([k, expr]) => ({ target: parameterOf(consumer, k), expr }));
        // `$request.path.x` carries the producer's own parameter to the consumer's: read the other way, the
        // producer's x is filled with the consumer's value.
        const carry: Record<string, string> = {};
        for (const { target, expr } of params) {
          const m = typeof expr === 'string' ? /^\$request\.path\.(.+)$/.exec(expr) : null;
          if (m && target) carry[m[1]!] = target.name;
        }
        for (const { target, expr } of params) {
          if (!target || typeof expr !== 'string') continue;
          const body = /^\$response\.body(#.*)?$/.exec(expr);
          if (!body) continue;
          out.push({
            operation: consumer.operationId,
            parameter: target.name,
            in: target.in,
            producer: producer.operationId,
            kind: kindOf(producer),
            select: decodeURIComponent((body[1] ?? '#').slice(1)),
            carry,
            via: 'link',
            confidence: 1,
            reason: `the document's link ${name} of ${producer.operationId} (${status}) gives ${target.name} as ${expr}`,
          });
        }
      }
    }
  }
  return out;
}

function linkTarget(spec: SpecDocument, link: Record<string, unknown>): Operation | undefined {
  if (typeof link['operationId'] === 'string') return spec.byId.get(link['operationId']);
  const ref = link['operationRef'];
  if (typeof ref !== 'string' || !ref.startsWith('#/paths/')) return undefined;
  const [path, method] = ref
    .slice('#/paths/'.length)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  return spec.operations.find((o) => o.path === path && o.method.toLowerCase() === method?.toLowerCase());
}

/** A link's parameter key: `name`, or `path.name` / `query.name` / `header.name` when names repeat across locations. */
function parameterOf(op: Operation, key: string): Parameter | undefined {
  const m = /^(path|query|header)\.(.+)$/.exec(key);
  return m ? op.parameters.find((p) => p.in === m[1] && p.name === m[2]) : (op.parameters.find((p) => p.name === key && p.in === 'path') ?? op.parameters.find((p) => p.name === key));
}

function kindOf(op: Operation): ProducerKind {
  if (op.method === 'POST') return 'create';
  return op.method === 'GET' && op.parameters.every((p) => p.in !== 'path' || !op.path.endsWith(`{${p.name}}`)) ? 'list' : 'read';
}

// --- Inference from paths and member names -----------------------------------------------------------------------

const PARAM = /\{([^}]+)\}/;
const segmentsOf = (path: string): string[] => path.split('/').filter((s) => s !== '');
/** The path with parameter names blanked: `/a/{x}/b` and `/a/{y}/b` are the same place. */
export const pathShape = (path: string): string => path.replace(/\{[^}]+\}/g, '{}');

/** cards -> card, companies -> company, addresses -> address, statuses -> status. */
export function singular(word: string): string {
  if (/ies$/i.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|us|sh|ch|x|z)es$/i.test(word)) return word.slice(0, -2);
  if (/[^s]s$/i.test(word)) return word.slice(0, -1);
  return word;
}

/** Lower case without separators: `card_token`, `cardToken` and `Card-Token` compare equal. */
const squash = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The member of a resource that carries a parameter, with how it was matched: the parameter's own name, the name
 * without the resource's (`card_token` of cards -> `token`), or the resource's `id`.
 */
function memberFor(members: string[], param: string, resource: string | undefined): { member: string; how: string; score: number } | undefined {
  const exact = members.find((m) => m === param) ?? members.find((m) => squash(m) === squash(param));
  if (exact) return { member: exact, how: `member ${exact} has the parameter's name`, score: 0.9 };
  if (resource) {
    const stripped = squash(param).replace(new RegExp(`^${squash(singular(resource))}`), '');
    const m = stripped && stripped !== squash(param) ? members.find((x) => squash(x) === stripped) : undefined;
    if (m) return { member: m, how: `member ${m} is ${param} without the resource's name`, score: 0.9 };
    // `{id}` of disputes is a dispute's `dispute_id`.
    const named = members.find((x) => squash(x) === squash(singular(resource)) + squash(param));
    if (named) return { member: named, how: `member ${named} is the ${singular(resource)}'s ${param}`, score: 0.85 };
  }
  const id = members.find((m) => m === 'id') ?? members.find((m) => squash(m) === 'id');
  if (id) return { member: id, how: `member ${id} is the resource's id`, score: 0.8 };
  return undefined;
}

/** Where in a producer's answer the resource (create, read) sits: the body, or an envelope member holding it. */
export function resourceOf(spec: SpecDocument, producer: Operation): { pointer: string; members: string[] } | undefined {
  const schema = successSchema(producer);
  const props = propertiesOf(spec, schema);
  if (props.size === 0) return undefined;
  for (const env of ['data', 'result', 'resource', 'item', 'object']) {
    const inner = [...props].find(([k]) => k.toLowerCase() === env)?.[1];
    if (inner && !props.has('id') && propertiesOf(spec, inner).size > 0) return { pointer: `/${[...props.keys()].find((k) => k.toLowerCase() === env)!}`, members: [...propertiesOf(spec, inner).keys()] };
  }
  return { pointer: '', members: [...props.keys()] };
}

type Located = { pointer: string; members: string[] } | undefined;
/** Per producer: read once, however many parameters it produces (a large document's schemas are deep). */
const located = new WeakMap<Operation, Map<string, Located>>();

/** Where a producer's answer holds the value: each item of its list, or the resource it made. */
function locate(spec: SpecDocument, producer: Operation, kind: ProducerKind, collection: string | undefined): Located {
  const memo = located.get(producer) ?? new Map<string, Located>();
  located.set(producer, memo);
  const key = `${kind}|${collection ?? ''}`;
  if (memo.has(key)) return memo.get(key);
  let out: Located;
  if (kind !== 'list') out = resourceOf(spec, producer);
  else {
    const list = listArrayOf(spec, successSchema(producer), collection);
    out = list ? { pointer: `${list.pointer}/*`, members: [...propertiesOf(spec, list.item).keys()] } : undefined;
  }
  memo.set(key, out);
  return out;
}

/** The producer's path parameters carried from the consumer's, by position in the shared path. */
export function carryByPosition(producer: Operation, consumer: Operation): Record<string, string> {
  const out: Record<string, string> = {};
  const mine = segmentsOf(producer.path);
  const theirs = segmentsOf(consumer.path);
  mine.forEach((seg, i) => {
    const a = PARAM.exec(seg)?.[1];
    const b = theirs[i] !== undefined ? PARAM.exec(theirs[i]!)?.[1] : undefined;
    if (a && b) out[a] = b;
  });
  return out;
}

/** The operations by path shape, and the lists without path parameters by the resource their last segment names. */
interface OperationIndex {
  byShape: Map<string, Operation[]>;
  listsOf: Map<string, { op: Operation; last: string }[]>;
}

function indexOf(spec: SpecDocument): OperationIndex {
  const byShape = new Map<string, Operation[]>();
  const listsOf = new Map<string, { op: Operation; last: string }[]>();
  for (const op of spec.operations) {
    const k = pathShape(op.path);
    byShape.set(k, [...(byShape.get(k) ?? []), op]);
    const last = segmentsOf(op.path).at(-1)?.replace(/\.[a-z]+$/i, '');
    if (op.method !== 'GET' || PARAM.test(op.path) || !last) continue;
    const resource = squash(singular(last));
    listsOf.set(resource, [...(listsOf.get(resource) ?? []), { op, last }]);
  }
  return { byShape, listsOf };
}

/**
 * The collection a path parameter names a member of: the segment before it, and the path (parameters blanked) where
 * that collection is listed and created. `/cards/{card_token}/freeze` -> cards at `/cards`; `/Calls/{Sid}.json` ->
 * Calls at `/Calls.json`. Undefined when the parameter follows no collection segment.
 */
export function collectionOf(path: string, param: string): { collection: string; listPath: string; last: boolean } | undefined {
  const segs = segmentsOf(path);
  const at = segs.findIndex((s) => PARAM.exec(s)?.[1] === param);
  const collection = at > 0 ? segs[at - 1]! : undefined;
  if (!collection || PARAM.test(collection) || !segs[at]!.startsWith('{')) return undefined;
  const suffix = segs[at]!.slice(segs[at]!.indexOf('}') + 1);
  return { collection, listPath: pathShape(`/${segs.slice(0, at).join('/')}${suffix}`), last: at === segs.length - 1 };
}

/** A path parameter after a collection segment: the collection's list and create on that path produce it. */
function byCollection(spec: SpecDocument, index: OperationIndex, op: Operation, p: Parameter): Omit<ValueSource, 'active'>[] {
  const place = collectionOf(op.path, p.name);
  if (!place) return [];
  const { collection, listPath } = place;
  const out: Omit<ValueSource, 'active'>[] = [];
  for (const producer of index.byShape.get(listPath) ?? []) {
    if (producer === op || (producer.method !== 'GET' && producer.method !== 'POST')) continue;
    const kind: ProducerKind = producer.method === 'GET' ? 'list' : 'create';
    const where = locate(spec, producer, kind, collection);
    const m = where ? memberFor(where.members, p.name, collection) : undefined;
    const what = `${producer.method} ${producer.path} ${kind === 'list' ? 'lists' : 'creates'} the ${collection} that ${op.path} names`;
    if (where && m) {
      out.push({
        operation: op.operationId,
        parameter: p.name,
        in: p.in,
        producer: producer.operationId,
        kind,
        select: `${where.pointer}/${escapePointer(m.member)}`,
        carry: carryByPosition(producer, op),
        via: 'inferred',
        confidence: m.score - (kind === 'create' ? 0.05 : 0),
        reason: `${what}; ${m.how}`,
      });
    } else if (!where) {
      // The answer's schema shows no resource: an `id` is a guess, offered for review only.
      out.push({
        operation: op.operationId,
        parameter: p.name,
        in: p.in,
        producer: producer.operationId,
        kind,
        select: kind === 'list' ? '/*/id' : '/id',
        carry: carryByPosition(producer, op),
        via: 'inferred',
        confidence: 0.4,
        reason: `${what}; its answer's schema shows no ${kind === 'list' ? 'array of items' : 'members'}, so the member is a guess (id)`,
      });
    }
  }
  return out;
}

/** `account_id`, `accountId`, `AccountSid`, `card_token` -> the resource they name (account, card). */
function resourceNamed(param: string): string | undefined {
  const m = /^(.+?)[_-]?(id|ids|token|sid|uuid|key|code|number)$/i.exec(param);
  return m && m[1]!.length > 1 ? squash(m[1]!) : undefined;
}

/** A parameter naming a resource (`?account_id=`): the list of that collection (no path parameters) produces it. */
function byName(spec: SpecDocument, index: OperationIndex, op: Operation, p: Parameter): Omit<ValueSource, 'active'>[] {
  const resource = resourceNamed(p.name);
  if (!resource) return [];
  const out: Omit<ValueSource, 'active'>[] = [];
  for (const { op: producer, last } of index.listsOf.get(resource) ?? []) {
    if (producer === op) continue;
    const where = locate(spec, producer, 'list', last);
    const m = where ? memberFor(where.members, p.name, last) : undefined;
    if (!where || !m) continue;
    out.push({
      operation: op.operationId,
      parameter: p.name,
      in: p.in,
      producer: producer.operationId,
      kind: 'list',
      select: `${where.pointer}/${escapePointer(m.member)}`,
      carry: {},
      via: 'inferred',
      // Weaker than a path's own collection: the name alone says which resource.
      confidence: m.score - 0.2,
      reason: `${p.name} names a ${singular(last)}, which GET ${producer.path} lists; ${m.how}`,
    });
  }
  return out;
}

/** The model's pairings as conformance.json shows them (spec.value_sources). */
export function describeSources(model: ValueSourceModel): ValueSourceAccount[] {
  return model.sources.map((s) => ({
    operation: s.operation,
    parameter: s.parameter,
    in: s.in,
    producer: s.producer,
    kind: s.kind,
    select: s.select,
    via: s.via,
    confidence: s.confidence,
    active: s.active,
    reason: s.reason,
  }));
}
