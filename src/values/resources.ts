/**
 * The resources of a document as a client walks them: the operation that creates a member of a collection (POST on
 * the collection's path), and those that read, update and delete it (GET, PATCH or PUT, DELETE on the member's path)
 * and list the collection (GET on its path), with the member of the create's answer that names what it made.
 *
 * Built on the value sources (src/values/producers.ts), not a second inference: a member operation belongs to the
 * resource only when an active pairing says the create's answer fills its last path parameter; a suggestion never
 * makes a resource. Computed from the document alone, once per document.
 */
import { requestMediaOf, type Operation, type SpecDocument } from '../catalogue/openapi.js';
import { collectionOf, pathShape, resourceOf, singular, valueSources, type ValueSource } from './producers.js';
import { escapePointer, listArrayOf, successSchema } from './answer-pointers.js';
import { deref, propertiesOf } from '../catalogue/schema-walker.js';

/** An operation on one member of the collection, and the pairing that fills its id from the create's answer. */
export interface MemberStep {
  op: Operation;
  /** Its path parameter that names the member. */
  param: string;
  /** The active pairing: `select` points into the create's answer, `carry` maps the create's path parameters to this one's. */
  source: ValueSource;
}

export interface Resource {
  /** The collection's path segment (`cards`), and one member of it in words (`card`). */
  collection: string;
  noun: string;
  create: Operation;
  read?: MemberStep & {
    /** Where the read's answer holds the id the create gave (a pointer), when its schema shows that member. */
    idAt?: string;
    /** Pointer to the resource in the read's answer ('' for the body itself, `/data` in an envelope). */
    resourceAt: string;
  };
  update?: MemberStep & {
    /** Members the update's request may set (not readOnly) that the read answers (not writeOnly), plain values only. */
    writable: string[];
  };
  delete?: MemberStep & {
    /** Pointer to the resource in the delete's answer, when it documents one (a soft delete answers the resource). */
    resourceAt?: string;
  };
  list?: {
    op: Operation;
    /** Pointer to the id of every item (`/data/* /id` without the space). */
    select: string;
  };
}

const models = new WeakMap<SpecDocument, Resource[]>();

/** The document's resources that the walk can start: a create, and at least one member operation paired with it. */
export function resourcesOf(spec: SpecDocument): Resource[] {
  let r = models.get(spec);
  if (!r) models.set(spec, (r = build(spec)));
  return r;
}

/** The resource an operation is a step of (its create, read, update, delete or list), if any. */
export function resourceOfStep(spec: SpecDocument, op: Operation): Resource | undefined {
  return resourcesOf(spec).find((r) => r.create === op || r.read?.op === op || r.update?.op === op || r.delete?.op === op || r.list?.op === op);
}

const MEMBER_METHODS = new Set(['GET', 'PUT', 'PATCH', 'DELETE']);

function build(spec: SpecDocument): Resource[] {
  const sources = valueSources(spec);
  const byCreate = new Map<Operation, MemberStep[]>();
  for (const op of spec.operations) {
    if (!MEMBER_METHODS.has(op.method)) continue;
    for (const p of op.parameters) {
      if (p.in !== 'path') continue;
      const place = collectionOf(op.path, p.name);
      // The member itself (`/cards/{id}`), not one of its sub-resources or actions (`/cards/{id}/freeze`).
      if (!place?.last) continue;
      for (const source of sources.of(op.operationId, p.name, 'path')) {
        const create = spec.byId.get(source.producer);
        if (source.kind !== 'create' || create?.method !== 'POST' || pathShape(create.path) !== place.listPath) continue;
        byCreate.set(create, [...(byCreate.get(create) ?? []), { op, param: p.name, source }]);
        break;
      }
    }
  }
  const out: Resource[] = [];
  for (const [create, steps] of byCreate) {
    const collection = collectionOf(steps[0]!.op.path, steps[0]!.param)!.collection;
    const r: Resource = { collection, noun: singular(collection.replace(/\.[a-z]+$/i, '')), create };
    const first = (...methods: string[]) => methods.map((m) => steps.find((s) => s.op.method === m)).find((s) => s !== undefined);
    const read = first('GET');
    if (read) r.read = { ...read, ...readShape(spec, read) };
    const update = first('PATCH', 'PUT');
    if (update && r.read) r.update = { ...update, writable: writableMembers(spec, update.op, r.read.op).filter((m) => m !== unescape(memberOf(update.source.select))) };
    const del = first('DELETE');
    if (del) {
      const answered = resourceOf(spec, del.op);
      r.delete = answered ? { ...del, resourceAt: answered.pointer } : del;
    }
    const list = listStep(spec, create, steps, collection);
    if (list) r.list = list;
    out.push(r);
  }
  return out;
}

/** The last token of a pointer: the member of the create's answer that names the resource. */
const memberOf = (pointer: string): string => pointer.split('/').at(-1) ?? '';
const unescape = (t: string): string => t.replace(/~1/g, '/').replace(/~0/g, '~');

function readShape(spec: SpecDocument, step: MemberStep): { idAt?: string; resourceAt: string } {
  const where = resourceOf(spec, step.op);
  const member = unescape(memberOf(step.source.select));
  if (!where) return { resourceAt: '' };
  return { resourceAt: where.pointer, ...(where.members.includes(member) ? { idAt: `${where.pointer}/${escapePointer(member)}` } : {}) };
}

const PLAIN = new Set(['string', 'number', 'integer', 'boolean']);
const plainType = (s: Record<string, unknown>): boolean => {
  const t = s['type'];
  const types = Array.isArray(t) ? t.filter((x) => x !== 'null') : [t];
  return (types.length === 1 && PLAIN.has(String(types[0]))) || Array.isArray(s['enum']);
};

/** What an update may set and a read shows: the members a read-back can compare. */
function writableMembers(spec: SpecDocument, update: Operation, read: Operation): string[] {
  const sent = propertiesOf(spec, requestMediaOf(update)?.schema);
  const where = resourceOf(spec, read);
  if (!where) return [];
  const answered = where.pointer === '' ? propertiesOf(spec, successSchema(read)) : propertiesOf(spec, propertiesOf(spec, successSchema(read)).get(where.pointer.slice(1)));
  return [...sent]
    .filter(([name, s]) => {
      const back = answered.get(name);
      const own = deref(spec, s) ?? s;
      return back !== undefined && own['readOnly'] !== true && back['writeOnly'] !== true && plainType(own) && plainType(deref(spec, back) ?? back);
    })
    .map(([name]) => name);
}

/** The collection's list, with where each item's id sits: the list's own pairing, else its items' member of that name. */
function listStep(spec: SpecDocument, create: Operation, steps: MemberStep[], collection: string): Resource['list'] {
  const list = spec.operations.find((o) => o.method === 'GET' && pathShape(o.path) === pathShape(create.path));
  if (!list) return undefined;
  const sources = valueSources(spec);
  for (const s of steps) {
    const paired = sources.of(s.op.operationId, s.param, 'path').find((x) => x.producer === list.operationId);
    // A list's pairing reads each item (`/data/*/id`); a link may point elsewhere, and is not read as a list.
    if (paired?.select.includes('/*/')) return { op: list, select: paired.select };
  }
  const items = listArrayOf(spec, successSchema(list), collection);
  const member = unescape(memberOf(steps[0]!.source.select));
  if (!items || !propertiesOf(spec, items.item).has(member)) return undefined;
  return { op: list, select: `${items.pointer}/*/${escapePointer(member)}` };
}
