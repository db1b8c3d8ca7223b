/**
 * What the group flows (suites/*.conformance.ts) share: reading lists and balances as evidence of the check,
 * exact decimal arithmetic, bounded waits for asynchronous state, and the webhook receiver's inspection endpoint.
 * Every request goes through the check's context, so it is recorded as the check's evidence.
 */
import type { Binding } from '../binding/binding.js';
import { check, CheckSkipped, describeRequest, expectStatus, fail, listItems, readableItems, STATUS, summariseBody } from '../harness/assert.js';
import { parseBody } from '../http/body.js';
import type { CheckContext } from '../harness/check.js';
import { walkPages } from '../harness/pages.js';
import { pollUntil } from '../harness/poll.js';
import type { JsonObject } from '../harness/world.js';
import type { HttpResponse } from '../http/client.js';
import type { CallOptions, RequestParts } from '../http/request-parts.js';
import { JUDGED_BODY_BYTES } from '../http/exchange.js';
import type { Operation } from '../catalogue/openapi.js';
import type { ReceivedDelivery } from '../webhooks/delivery.js';
import type { Facts } from '../results/model.js';
import { caseAnswer } from '../harness/judge.js';

export type { JsonObject };

export { idOf } from '../harness/assert.js';
export { caseAnswer, caseAnswerIf } from '../harness/judge.js';

/** The JSON object of a response with the expected status (a 2xx unless said), or a CheckFailure that says why. */
export function jsonOf(res: HttpResponse, expected: number | readonly number[] | ((s: number) => boolean) = STATUS.is2xx, what = 'status'): JsonObject {
  expectStatus(res, expected, what);
  const j = res.json;
  if (j === null || typeof j !== 'object' || Array.isArray(j)) fail(`${describeRequest(res)} answered ${res.status} without a JSON object body${summariseBody(res)}`);
  unwrappedOrSkip(res, j as JsonObject);
  return j as JsonObject;
}

const ENVELOPES = ['data', 'result', 'resource', 'item', 'object', 'payload'];

/**
 * A resource the suite would read in an envelope it was not told of ({ data: { id, ... } } with no binding): judging
 * its fields there would blame the target for the suite's reading, so the check is skipped with the fix.
 */
function unwrappedOrSkip(res: HttpResponse, j: JsonObject): void {
  if ('id' in j) return;
  const keys = Object.keys(j);
  const wrapper = keys.find((k) => ENVELOPES.includes(k.toLowerCase()));
  const inner = wrapper ? j[wrapper] : undefined;
  if (keys.length <= 3 && inner !== null && typeof inner === 'object' && !Array.isArray(inner) && 'id' in inner) {
    throw new CheckSkipped(
      `${describeRequest(res)} answered the resource inside \`${wrapper}\`, which the suite was not told of: bind the envelope (operations.<id>.envelope: ${wrapper} in the binding file; \`fsapi-conformance bind\` proposes it)`,
      'binding',
    );
  }
}

/** Calls an operation and expects a 2xx JSON object. */
export async function ok(ctx: CheckContext, opId: string, parts: RequestParts = {}, what?: string): Promise<JsonObject> {
  return jsonOf(await ctx.call(opId, parts), STATUS.is2xx, what);
}

/** Walks a list's pages until `stop` says so after a page; answers every item read. A page that is not a 2xx is the target's failure; one whose items cannot be read, the suite's gap. */
async function walk(ctx: CheckContext, opId: string, parts: RequestParts, stop: (page: JsonObject[]) => boolean): Promise<JsonObject[]> {
  const w = await walkPages((query) => ctx.call(opId, { ...parts, query: { ...parts.query, ...query } }), { limit: 100, stop: (p) => stop(p.items as JsonObject[]) });
  if (w.stopped?.why === 'status') jsonOf(w.stopped.res);
  if (w.stopped) readableItems(w.stopped.res, opId);
  return w.pages.flatMap((p) => p.items as JsonObject[]);
}

/** Every item of a list, walking next_cursor (src/harness/pages.ts). */
export function listAll(ctx: CheckContext, opId: string, parts: RequestParts = {}): Promise<JsonObject[]> {
  return walk(ctx, opId, parts, () => false);
}

/** The first item of a list matching (walking pages until found), and every item read. */
export async function firstMatch(ctx: CheckContext, opId: string, parts: RequestParts, match: (item: JsonObject) => boolean): Promise<{ item: JsonObject | undefined; items: JsonObject[] }> {
  const items = await walk(ctx, opId, parts, (page) => page.some(match));
  return { item: items.find(match), items };
}

/**
 * Reads a list until an item matches, bounded by the webhook wait (state a real target may reach later).
 * Returns the match and the items of the last walk.
 */
export async function findInList(
  ctx: CheckContext,
  opId: string,
  parts: RequestParts,
  match: (item: JsonObject) => boolean,
): Promise<{ item: JsonObject | undefined; items: JsonObject[] }> {
  const r = await pollUntil(() => firstMatch(ctx, opId, parts, match), (x) => x.item !== undefined, ctx.config.webhookWaitMs, ctx.signal);
  return r.value;
}

/** Reads a resource until a condition holds, bounded by the webhook wait; answers the last value read. */
export async function readUntil(ctx: CheckContext, opId: string, parts: RequestParts, done: (j: JsonObject) => boolean): Promise<{ value: JsonObject; ok: boolean }> {
  return pollUntil(async () => jsonOf(await ctx.call(opId, parts)), done, ctx.config.webhookWaitMs, ctx.signal);
}

// --- Money ----------------------------------------------------------------------------------------------------------

const SCALE = 8;
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** A decimal amount (string, or a number a non-conformant target may send) as an integer of 10^-8 units. */
export function units(v: unknown, what = 'amount'): bigint {
  const s = typeof v === 'number' ? String(v) : v;
  if (typeof s !== 'string' || !DECIMAL.test(s)) fail(`${what} is not a decimal amount: ${JSON.stringify(v)}`);
  const negative = s.startsWith('-');
  const [whole = '0', frac = ''] = (negative ? s.slice(1) : s).split('.');
  const value = BigInt(whole) * 10n ** BigInt(SCALE) + BigInt((frac + '0'.repeat(SCALE)).slice(0, SCALE));
  return negative ? -value : value;
}

/** 10^-8 units as a decimal string with 2 places (cents) when exact, else with as many as needed. */
export function show(u: bigint): string {
  const negative = u < 0n;
  const a = negative ? -u : u;
  const whole = a / 10n ** BigInt(SCALE);
  let frac = (a % 10n ** BigInt(SCALE)).toString().padStart(SCALE, '0').replace(/0+$/, '');
  if (frac.length < 2) frac = frac.padEnd(2, '0');
  return `${negative ? '-' : ''}${whole}.${frac}`;
}

export const CENT = 10n ** BigInt(SCALE - 2);

/** amount × rate in 10^-8 units, exactly (before any rounding). */
export function times(amount: bigint, rate: bigint): bigint {
  return (amount * rate) / 10n ** BigInt(SCALE);
}

/** An account's balance now (GET by id, as the check's evidence). */
export async function balanceOf(ctx: CheckContext, accountId: string): Promise<bigint> {
  const a = await ok(ctx, 'getAccount', { pathParams: { account_id: accountId } });
  return units(a['balance'], `the balance of ${accountId}`);
}

/** An account's balance read as one of a flow's cases (`name`): its judge reads it again from that answer. */
export async function balanceCase(ctx: CheckContext, name: string, accountId: string): Promise<bigint> {
  return recordedBalance([await callCase(ctx, name, 'getAccount', { pathParams: { account_id: accountId } })], name).balance;
}

/**
 * The balance a flow read as its case `name` (balanceCase), from the recorded answer, and the account it is of. Where
 * the run also recorded it as a fact, the two must agree: a fact edited after the run fails, naming both.
 */
export function recordedBalance(answers: readonly HttpResponse[], name: string, facts?: Facts): { balance: bigint; account: string } {
  const res = caseAnswer(answers, name);
  const a = jsonOf(res);
  const account = typeof a['id'] === 'string' ? a['id'] : 'the account';
  const balance = units(a['balance'], `the balance of ${account}`);
  const fact = facts?.[name];
  if (fact !== undefined) {
    check(typeof fact === 'string' && DECIMAL.test(fact) && units(fact) === balance, `the recorded fact ${name} (${JSON.stringify(fact)}) disagrees with the balance its read of ${account} answered (${show(balance)})`);
  }
  return { balance, account };
}

/** Expects an account's balance to move by `delta` from `before` (read until it does, bounded by the webhook wait). */
export async function expectBalance(ctx: CheckContext, accountId: string, before: bigint, delta: bigint, why: string): Promise<void> {
  const want = before + delta;
  const r = await pollUntil(() => balanceOf(ctx, accountId), (b) => b === want, ctx.config.webhookWaitMs, ctx.signal);
  check(r.ok, `${why}: account ${accountId} holds ${show(r.value)}; expected ${show(want)} (${show(before)} ${delta < 0n ? '-' : '+'} ${show(delta < 0n ? -delta : delta)})`);
}

// --- Webhook receiver -------------------------------------------------------------------------------------------------

/**
 * What the run's receiver got: attempts for an object (and event type), waiting (long poll, no sleeps) until at
 * least `min` arrived or the webhook wait passed.
 */
export async function received(ctx: CheckContext, q: { objectId?: string; type?: string; min?: number }): Promise<ReceivedDelivery[]> {
  const receiver = ctx.config.receiver;
  if (!receiver) ctx.skip('no webhook receiver in this run (FSAPI_WEBHOOK_LISTEN)', 'credential');
  const wait = ctx.config.webhookWaitMs;
  const res = await ctx.send({
    method: 'GET',
    path: receiver.inspectUrl,
    // The receiver files deliveries under the type they carry: the vendor's spelling of the event type.
    query: { object_id: q.objectId, type: q.type === undefined ? undefined : ctx.binding.eventToVendor(q.type), min: q.min ?? 1, timeout_ms: q.min === 0 ? 0 : wait },
    timeoutMs: wait + 10_000,
    unpaced: true,
  });
  res.exchange.case = INSPECT_RECEIVER;
  if (res.status !== 200 || !Array.isArray(res.json)) throw new Error(`the webhook receiver's inspection answered ${res.status}`);
  const got = res.json as ReceivedDelivery[];
  // What arrived is the check's evidence: its judge finds the deliveries there, not in the inspection's answer.
  for (const d of got) ctx.recordDelivery(d);
  return got;
}

/** The case of a check's reads of its receiver's inspection endpoint (what it asked for: object, type, wait). */
export const INSPECT_RECEIVER = 'inspect-receiver';

/**
 * The deliveries a check recorded (requests the target sent to the receiver), in the order recorded, each with its
 * body read as the receiver reads it (raw: `type`, `data.object.id`, `id`; undefined when it is no JSON object).
 */
export function recordedDeliveries(answers: readonly HttpResponse[]): { res: HttpResponse; event: JsonObject | undefined }[] {
  return answers
    .filter((r) => r.exchange.received === true)
    .map((res) => {
      const { json } = parseBody(res.exchange.request.body ?? '');
      return { res, event: json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as JsonObject) : undefined };
    });
}

/** A raw delivered event's object id (`data.object.id`, where the receiver reads it). */
export function deliveredObjectId(event: JsonObject | undefined): unknown {
  return ((event?.['data'] as JsonObject | undefined)?.['object'] as JsonObject | undefined)?.['id'];
}

/**
 * A list page's items as the run's walk read them (walk above): a page that is not a 2xx fails as it did there, one
 * without a `data` array is the suite's gap (skipped) or, read as a bare array, the end of the walk.
 */
export function walkedPageItems(res: HttpResponse, opId: string): JsonObject[] {
  if (!STATUS.is2xx(res.status)) jsonOf(res);
  const items = listItems(res);
  if (items) return items as JsonObject[];
  readableItems(res, opId);
  return [];
}

/**
 * The event a delivery carried (its body parsed; through the binding, when given, in the reference's terms, as an
 * event read by id is), or a failure naming the attempt.
 */
export function deliveredEvent(d: ReceivedDelivery, binding?: Binding): JsonObject {
  try {
    const j = JSON.parse(d.body) as unknown;
    if (j && typeof j === 'object' && !Array.isArray(j)) return (binding ? binding.eventToReference(j) : j) as JsonObject;
  } catch {
    // fall through
  }
  fail(`delivery attempt ${d.seq} (webhook-id ${d.webhook_id ?? 'none'}) carried a body that is not a JSON object: ${d.body.slice(0, 120)}`);
}

/** Deep equality of JSON values (object member order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a as object).sort();
    const kb = Object.keys(b as object).sort();
    return sameJson(ka, kb) && ka.every((k) => sameJson((a as JsonObject)[k], (b as JsonObject)[k]));
  }
  return false;
}

/** The first member path where two JSON values differ ("created_at: x vs y"), for failure messages. */
export function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (sameJson(a, b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a as object), ...Object.keys(b as object)])) {
      const d = firstDifference((a as JsonObject)[k], (b as JsonObject)[k], path ? `${path}.${k}` : k);
      if (d) return d;
    }
  }
  return `${path || '(root)'}: ${JSON.stringify(a)?.slice(0, 80)} vs ${JSON.stringify(b)?.slice(0, 80)}`;
}

/** A digit run of 12 to 19 digits (a card or account number) anywhere in a text. */
export const LONG_NUMBER = /(?<!\d)\d{12,19}(?!\d)/;

/** Calls until the answer is a 2xx (a read-after-write a real target may serve late), bounded by the webhook wait. */
export async function readBack(ctx: CheckContext, opId: string, parts: RequestParts): Promise<HttpResponse> {
  const r = await pollUntil(() => ctx.call(opId, parts), (res) => STATUS.is2xx(res.status), ctx.config.webhookWaitMs, ctx.signal);
  return r.value;
}

/** The value at a member path ("address.country") of a JSON object. */
export function at(j: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as JsonObject)[k] : undefined), j);
}

/** A copy of a JSON object with the value at a member path replaced. */
export function withValue(j: JsonObject, path: string, value: unknown): JsonObject {
  const out = structuredClone(j);
  const keys = path.split('.');
  let o: JsonObject = out;
  for (const k of keys.slice(0, -1)) o = o[k] as JsonObject;
  o[keys[keys.length - 1]!] = value;
  return out;
}

/** Reads a list (all its pages) until a condition on the whole list holds, bounded by the webhook wait. */
export async function listUntil(ctx: CheckContext, opId: string, parts: RequestParts, done: (items: JsonObject[]) => boolean): Promise<{ items: JsonObject[]; ok: boolean }> {
  const r = await pollUntil(() => listAll(ctx, opId, parts), done, ctx.config.webhookWaitMs, ctx.signal);
  return { items: r.value, ok: r.ok };
}

/**
 * Calls an operation as one of a flow's cases: the name is recorded with the exchange, so the flow's judge finds
 * the answer by it, in the run and in `verify` alike; its body is kept whole (JUDGED_BODY_BYTES) for that judge.
 */
export async function callCase(ctx: CheckContext, name: string, opId: Operation | string, parts: RequestParts = {}, opts: CallOptions = {}): Promise<HttpResponse> {
  const res = await ctx.call(opId, parts, { evidenceBytes: JUDGED_BODY_BYTES, ...opts });
  res.exchange.case = name;
  return res;
}

/**
 * The check's context with every call marked as one of its cases (callCase: a list walked page by page, or polled),
 * so its judge finds those answers by the name, in the run and in `verify` alike.
 */
export function inCase(ctx: CheckContext, name: string): CheckContext {
  // Everything else is the check's own context (its world, skip, evidence), read through the prototype.
  return Object.assign(Object.create(ctx) as CheckContext, {
    call: (op: Operation | string, parts?: RequestParts, opts?: CallOptions) => callCase(ctx, name, op, parts, opts),
  });
}
