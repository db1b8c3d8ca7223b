/** What the group drivers share: per-check prerequisites, list walking, field comparison. */
import { describeRequest, summariseBody } from '../harness/assert.js';
import { recordedWalk, walkPages, type Walk } from '../harness/pages.js';
import type { JsonObject } from '../harness/world.js';
import type { HttpResponse } from '../http/client.js';
import { JUDGED_BODY_BYTES } from '../http/exchange.js';
import type { DriverScope, EffectsRead, EffectsScope } from './types.js';
import type { CallOptions, RequestParts } from '../http/request-parts.js';

/** An effect could not be observed (the read that shows it failed): the check errors with this message. */
export class EffectsUnobservable extends Error {
  override readonly name = 'EffectsUnobservable';
}

export { idOf } from '../harness/assert.js';

/** The JSON body of request parts, as an object. */
export function bodyOf(parts: RequestParts): Record<string, unknown> {
  const b = parts.body;
  return b !== null && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {};
}

export function pathParam(parts: RequestParts, name: string): string {
  const v = parts.pathParams?.[name];
  if (v === undefined) throw new Error(`driver: path parameter ${name} missing from the request parts`);
  return v;
}

const owned = new WeakMap<object, Map<string, Promise<unknown>>>();

/**
 * Prerequisites a valid request consumes (a card to freeze, a quote to trade, a KYC to submit): `fresh` makes
 * new ones; otherwise they are made once per check and principal, never shared with another check, so the first
 * valid request of every check is accepted whatever the other checks did.
 */
export function consumable<T>(scope: DriverScope, fresh: boolean, key: string, make: () => Promise<T>): Promise<T> {
  if (fresh) return make();
  let m = owned.get(scope.ctx);
  if (!m) owned.set(scope.ctx, (m = new Map()));
  const k = `${scope.as}:${key}`;
  let p = m.get(k) as Promise<T> | undefined;
  if (!p) m.set(k, (p = make()));
  return p;
}

/** Calls an operation as the scope's principal (recorded as the check's evidence). */
export function callAs(scope: EffectsScope, opId: string, parts: RequestParts = {}, opts: CallOptions = {}): Promise<HttpResponse> {
  return scope.ctx.call(opId, parts, { ...opts, as: scope.as });
}

/** The JSON object of a 2xx response, or EffectsUnobservable. */
export function readOk(res: HttpResponse, what: string): JsonObject {
  if (res.status < 200 || res.status >= 300 || typeof res.json !== 'object' || res.json === null) {
    throw new EffectsUnobservable(`cannot ${what}: ${describeRequest(res)} answered ${res.status}${summariseBody(res)}`);
  }
  return res.json as JsonObject;
}

/** Every item of a list (src/harness/pages.ts), as the scope's principal. */
export async function listAll(
  scope: EffectsScope,
  opId: string,
  query: Record<string, string> = {},
  what = `list ${opId}`,
  pathParams: Record<string, string> = {},
  opts: CallOptions = {},
): Promise<JsonObject[]> {
  return itemsWalked(await walkPages((q) => callAs(scope, opId, { pathParams, query: { ...query, ...q } }, opts), { limit: 100 }), what);
}

/** The items of a walk, or EffectsUnobservable naming the page it could not read. */
function itemsWalked(w: Walk, what: string): JsonObject[] {
  if (w.stopped) {
    const { res, why } = w.stopped;
    throw new EffectsUnobservable(why === 'status' ? `cannot ${what}: ${describeRequest(res)} answered ${res.status}${summariseBody(res)}` : `cannot ${what}: ${describeRequest(res)} answered no data array`);
  }
  return w.pages.flatMap((p) => p.items as JsonObject[]);
}

/**
 * Makes a driver's effects read and counts what it answered. With `caseName`, every request of the read is recorded
 * as that case and kept whole, so a judge counts again from the recorded answers (recountEffects).
 */
export async function readEffects(scope: EffectsScope, read: EffectsRead, caseName?: string): Promise<number> {
  const opts: CallOptions = caseName ? { evidenceBytes: JUDGED_BODY_BYTES } : {};
  const marked = async (res: Promise<HttpResponse>): Promise<HttpResponse> => {
    const r = await res;
    if (caseName) r.exchange.case = caseName;
    return r;
  };
  if (read.kind === 'read') return read.count(await marked(callAs(scope, read.read, { pathParams: read.pathParams }, opts)));
  const w = await walkPages((q) => marked(callAs(scope, read.list, { pathParams: read.pathParams ?? {}, query: { ...read.query, ...q } }, opts)), { limit: 100 });
  return read.count(itemsWalked(w, read.what));
}

/**
 * The count `readEffects` made, made again from the recorded answers of its read (in order): the same pages, the same
 * stop, the same count, or the same EffectsUnobservable.
 */
export function recountEffects(read: EffectsRead, answers: readonly HttpResponse[]): number {
  if (answers.length === 0) throw new Error(`no answer to the effects read (${read.kind === 'read' ? read.read : read.list}) recorded to count`);
  if (read.kind === 'read') return read.count(answers[answers.length - 1]!);
  return read.count(itemsWalked(recordedWalk(answers), read.what));
}

const DECIMAL = /^-?\d+(\.\d+)?$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T/;

/** Equality as a reader of the API means it: decimal strings by value, timestamps by instant, the rest as JSON. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') {
    if (DECIMAL.test(a) && DECIMAL.test(b)) return Number(a) === Number(b);
    if (TIMESTAMP.test(a) && TIMESTAMP.test(b)) return Date.parse(a) === Date.parse(b);
    return a === b;
  }
  if ((typeof a === 'number' && typeof b === 'string') || (typeof a === 'string' && typeof b === 'number')) return Number(a) === Number(b);
  return JSON.stringify(a) === JSON.stringify(b);
}

export const READ_ONLY_TIMESTAMP = '2001-02-03T04:05:06Z';

/** The read-only part of a create driver: fields to smuggle in (the check's judge says which of them took effect). */
export function readOnlyFields(fields: Record<string, unknown>): { fields: Record<string, unknown> } {
  return { fields };
}

/** The same request with one more metadata member: another body in the same scope (the reused-key check). */
export function varyMetadata(parts: RequestParts): RequestParts {
  const body = bodyOf(parts);
  const meta = (body['metadata'] as Record<string, string> | undefined) ?? {};
  return { ...parts, body: { ...body, metadata: { ...meta, fsapi_vary: 'changed body' } } };
}
