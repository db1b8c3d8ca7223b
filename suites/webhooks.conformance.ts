/**
 * Webhooks: view webhook delivery history and event details (seed: Events). Deliveries are read from the run's
 * receiver (src/runner/receiver.ts) through its long-poll endpoint: no sleeps.
 */
import { cardCollection, metadata } from '../fixtures/factories.js';
import { check, fail } from '../src/harness/assert.js';
import type { CheckContext, CheckDef } from '../src/harness/check.js';
import { STATUS } from '../src/harness/assert.js';
import { judgeSkips } from '../src/harness/judge.js';
import type { HttpResponse } from '../src/http/client.js';
import { defineSuite } from '../src/vitest-suite/suite.js';
import { verify } from '../src/webhooks/signature.js';
import {
  callCase,
  caseAnswer,
  caseAnswerIf,
  deliveredEvent,
  deliveredObjectId,
  findInList,
  firstDifference,
  idOf,
  inCase,
  INSPECT_RECEIVER,
  jsonOf,
  listUntil,
  received,
  recordedDeliveries,
  sameJson,
  walkedPageItems,
  type JsonObject,
} from '../src/world/flow-support.js';
import { FAIL_FIRST_MARKER, type ReceivedDelivery } from '../src/webhooks/delivery.js';

const base = { family: 'flow', group: 'webhooks', writes: true } as const;

/**
 * Creates a customer (its customer.created event is the one the check follows); `failFirst` asks the receiver to
 * refuse the first attempt. Through the World, which falls back to a business customer when the target refuses
 * individuals: whether it should is FSAPI-CUS-006's question, not a webhook check's.
 */
async function causeCustomer(ctx: CheckContext, failFirst = false): Promise<string> {
  const extra = failFirst ? { metadata: metadata(ctx.config.label, { fsapi_webhook: FAIL_FIRST_MARKER }) } : {};
  // The create is the check's own evidence (case CAUSE): its judge reads the customer it follows from that answer.
  const customer = await ctx.world.newCustomer(extra, (res) => {
    res.exchange.case = CAUSE;
    ctx.attach(res.exchange, res);
  });
  return idOf(customer);
}

/**
 * A card collection: it records two events (collection.created, collection.succeeded) in one request, so their
 * deliveries are adjacent in any history.
 */
async function causeCollection(ctx: CheckContext, failFirst = false): Promise<string> {
  const account = await ctx.world.account();
  const body = cardCollection(ctx.faker, ctx.config.label, idOf(account), '12.00', 'USD', undefined, failFirst ? { fsapi_webhook: FAIL_FIRST_MARKER } : {});
  return causedId([await callCase(ctx, CAUSE, 'createCollection', { body })]);
}

/** The case of the request that made the object whose events a check follows (a customer, a collection). */
const CAUSE = 'cause';

/** The id of the object whose events the check follows, from the answer that created it. */
function causedId(answers: readonly HttpResponse[]): string {
  return idOf(jsonOf(caseAnswer(answers, CAUSE), STATUS.is2xx, 'status of the create whose events the check follows'));
}

/** Attempts grouped by the event they carried (its id), in arrival order. */
function byEvent(attempts: ReceivedDelivery[]): Map<string, ReceivedDelivery[]> {
  const m = new Map<string, ReceivedDelivery[]>();
  for (const a of [...attempts].sort((x, y) => x.seq - y.seq)) {
    const id = String(deliveredEvent(a)['id']);
    m.set(id, [...(m.get(id) ?? []), a]);
  }
  return m;
}

/** The cases of the webhook flows' reads: the history page, the events list walked, the event read by id. */
const HISTORY = 'history';
const EVENTS = 'events';
const EVENT = 'event';
/** The history read for one delivered event. */
const historyOf = (eventId: string) => `history:${eventId}`;

/** Whether an event (as the reference reads it) carries the object as its `data.object`. */
const about = (id: string) => (e: JsonObject): boolean => deliveredObjectId(e) === id;

/**
 * The recorded deliveries about the object, grouped by the event they carried (its raw id, as the receiver and the
 * run read it), in the order they were recorded. A delivery whose body was cut or is no JSON object is left out.
 */
function deliveredEvents(answers: readonly HttpResponse[], objectId: string, type?: string): Map<string, HttpResponse[]> {
  const m = new Map<string, HttpResponse[]>();
  for (const { res, event } of recordedDeliveries(answers)) {
    if (!event || deliveredObjectId(event) !== objectId || (type !== undefined && event['type'] !== type)) continue;
    const id = String(event['id']);
    m.set(id, [...(m.get(id) ?? []), res]);
  }
  return m;
}

/** What the check asked its receiver for, from its last inspection read; none when the run had no receiver. */
function inspected(answers: readonly HttpResponse[]): { type: string | undefined; waitMs: string } | undefined {
  const res = caseAnswerIf(answers, INSPECT_RECEIVER);
  if (!res) return undefined;
  const q = new URL(res.exchange.request.url).searchParams;
  return { type: q.get('type') ?? undefined, waitMs: q.get('timeout_ms') ?? '?' };
}

/**
 * FSAPI-WH-001's judge: the history answers 2xx; for each event of the collection the receiver got (its recorded
 * deliveries), a read of the history by that event lists a delivery of it. Without a receiver, or with no delivery
 * to compare, only the history's answer is judged (the run says so).
 */
export function historyListsDelivered(answers: readonly HttpResponse[]): void {
  const col = causedId(answers);
  jsonOf(caseAnswer(answers, HISTORY), STATUS.is2xx, 'status of the delivery history');
  if (!inspected(answers)) return;
  for (const eventId of deliveredEvents(answers, col).keys()) {
    const pages = answers.filter((r) => r.exchange.case === historyOf(eventId));
    const listed = pages.some((p) => walkedPageItems(p, 'listWebhookDeliveries').some((d) => d['event_id'] === eventId));
    check(listed, `event ${eventId} was delivered to the receiver, but GET /webhooks/deliveries?event_id=${eventId} lists no delivery of it (${pages.length} page${pages.length === 1 ? '' : 's'} read)`);
  }
}

/**
 * FSAPI-WH-002's judge: the events list the run walked holds a customer.created event about the customer it made, and
 * that event reads by id with its id, type and object.
 */
export function eventReadsById(answers: readonly HttpResponse[]): void {
  const cid = causedId(answers);
  let item: JsonObject | undefined;
  for (const page of answers.filter((r) => r.exchange.case === EVENTS)) {
    item = walkedPageItems(page, 'listWebhookEvents').find(about(cid));
    if (item) break;
  }
  if (!item) fail(`no customer.created event about ${cid} is listed by GET /webhooks/events?type=customer.created`);
  const id = idOf(item);
  const event = jsonOf(caseAnswer(answers, EVENT), STATUS.is2xx, `status of GET event ${id}`);
  check(event['id'] === id, `GET /webhooks/events/${id} answered event ${JSON.stringify(event['id'])}`);
  check(event['type'] === 'customer.created', `event ${id} reads type ${JSON.stringify(event['type'])}, not customer.created`);
  check(about(cid)(event), `event ${id} does not carry customer ${cid} as its object (data.object.id ${JSON.stringify(deliveredObjectId(event))})`);
}

/**
 * FSAPI-WH-003's judge: a delivery of the event type the check asked its receiver for (customer.created, in the
 * target's spelling) about the customer it made is among the deliveries recorded.
 */
export function deliveredToReceiver(answers: readonly HttpResponse[]): void {
  const cid = causedId(answers);
  const asked = inspected(answers);
  if (!asked) judgeSkips.skip('no webhook receiver in this run (FSAPI_WEBHOOK_LISTEN)', 'credential');
  const got = deliveredEvents(answers, cid, asked.type);
  check(got.size > 0, `the receiver got no customer.created delivery for ${cid} within ${asked.waitMs} ms`);
}

export const flows: CheckDef[] = [
  {
    ...base,
    requirement: 'FSAPI-WH-001',
    operation: 'listWebhookDeliveries',
    variant: 'history-lists-deliveries',
    title: 'the delivery history answers 2xx and lists a delivery for each event of the suite the receiver got',
    uses: ['createCollection'],
    async run(ctx) {
      const col = await causeCollection(ctx);
      await callCase(ctx, HISTORY, 'listWebhookDeliveries', { query: { limit: 5 } });
      if (!ctx.config.receiver) {
        ctx.observe('no webhook receiver in this run: the history answered, but whether it holds the deliveries made cannot be told');
        return;
      }
      const got = await received(ctx, { objectId: col, min: 2 });
      if (got.length === 0) {
        ctx.observe(`the receiver got no delivery for ${col} within ${ctx.config.webhookWaitMs} ms (FSAPI-WH-003 judges delivery); the history answered`);
        return;
      }
      for (const [eventId] of byEvent(got)) {
        await listUntil(inCase(ctx, historyOf(eventId)), 'listWebhookDeliveries', { query: { event_id: eventId } }, (xs) => xs.some((d) => d['event_id'] === eventId));
      }
    },
    judge: historyListsDelivered,
  },
  {
    ...base,
    requirement: 'FSAPI-WH-002',
    operation: 'getWebhookEvent',
    variant: 'event-by-id',
    title: 'an event the suite caused (customer.created) is retrievable by id with its type and object',
    uses: ['createCustomer', 'listWebhookEvents'],
    async run(ctx) {
      const cid = await causeCustomer(ctx);
      const { item } = await findInList(inCase(ctx, EVENTS), 'listWebhookEvents', { query: { type: 'customer.created' } }, about(cid));
      if (item) await callCase(ctx, EVENT, 'getWebhookEvent', { pathParams: { event_id: idOf(item) } });
    },
    judge: eventReadsById,
  },
  {
    ...base,
    requirement: 'FSAPI-WH-003',
    variant: 'delivered',
    title: 'the receiver at the configured Webhook URL gets a delivery for an event the suite caused',
    needs: ['webhooks'],
    uses: ['createCustomer'],
    async run(ctx) {
      await received(ctx, { objectId: await causeCustomer(ctx), type: 'customer.created', min: 1 });
    },
    judge: deliveredToReceiver,
  },
  {
    ...base,
    requirement: 'FSAPI-WH-101',
    variant: 'signed',
    title: 'every delivery of the events the check caused verifies with the webhook secret (Standard Webhooks v1), its timestamp within 300 s of receipt',
    needs: ['webhooks'],
    uses: ['createCustomer', 'createCollection'],
    async run(ctx) {
      // Three events of two kinds: a customer's, and a collection's two. (The receiver serves what it holds in one
      // answer, so the check reads the deliveries of its own objects, not the whole run's.)
      const cid = await causeCustomer(ctx);
      const col = await causeCollection(ctx);
      const own = [...(await received(ctx, { objectId: cid, min: 1 })), ...(await received(ctx, { objectId: col, min: 2 }))];
      if (own.length === 0) ctx.skip(`no delivery arrived for ${cid} or ${col} within ${ctx.config.webhookWaitMs} ms (FSAPI-WH-003 judges delivery): no signature to verify`, 'prerequisite');
      const secret = ctx.config.credentials.webhookSecret!;
      const bad = own
        .map((d) => ({ d, r: verify(secret, d.headers, d.body, { nowSeconds: Math.floor(Date.parse(d.received_at) / 1000) }) }))
        .filter((x) => !x.r.ok);
      check(
        bad.length === 0,
        `${bad.length} of ${own.length} deliveries do not verify with the configured secret: ${bad
          .slice(0, 3)
          .map(({ d, r }) => `webhook-id ${d.webhook_id ?? 'none'} (${d.event_type ?? '?'}): ${r.ok ? '' : r.reason}`)
          .join('; ')}`,
      );
      ctx.observe(`${own.length} deliveries verified`);
    },
  },
  {
    ...base,
    requirement: 'FSAPI-WH-102',
    variant: 'retry-same-id',
    title: 'a delivery the receiver fails (503) is retried with the same webhook-id and body',
    needs: ['webhooks'],
    uses: ['createCustomer'],
    async run(ctx) {
      const cid = await causeCustomer(ctx, true);
      const got = await received(ctx, { objectId: cid, type: 'customer.created', min: 2 });
      if (got.length === 0) fail(`the receiver got no customer.created delivery for ${cid} within ${ctx.config.webhookWaitMs} ms: nothing was delivered, so nothing could be retried`);
      const [first, retry] = [...got].sort((a, b) => a.seq - b.seq);
      if (first!.answered < 400) ctx.skip(`the receiver could not fail the first attempt (it answered ${first!.answered}): the delivered object carries no metadata ${JSON.stringify({ fsapi_webhook: FAIL_FIRST_MARKER })}, so no retry can be provoked`, 'prerequisite');
      if (!retry) fail(`the first attempt for ${cid} was answered ${first!.answered}, and no retry arrived within ${ctx.config.webhookWaitMs} ms`);
      check(retry.webhook_id === first!.webhook_id, `the retry carried webhook-id ${JSON.stringify(retry.webhook_id)}; the failed attempt carried ${JSON.stringify(first!.webhook_id)}`);
      check(retry.body === first!.body, `the retry's body differs from the failed attempt's (${firstDifference(deliveredEvent(first!), deliveredEvent(retry)) ?? 'bytes differ'})`);
    },
  },
  {
    ...base,
    requirement: 'FSAPI-WH-103',
    operation: 'listWebhookDeliveries',
    variant: 'attempts-match',
    title: 'for each event received, the history holds a delivery with as many attempts as arrived and the receiver\'s answers',
    needs: ['webhooks'],
    uses: ['createCollection', 'getWebhookDelivery'],
    async run(ctx) {
      const col = await causeCollection(ctx, true);
      // Two events, each failed once by the receiver and retried: four attempts.
      const got = await received(ctx, { objectId: col, min: 4 });
      if (got.length === 0) {
        ctx.observe(`the receiver got no delivery for ${col} within ${ctx.config.webhookWaitMs} ms (FSAPI-WH-003 judges delivery)`);
        return;
      }
      for (const [eventId] of byEvent(got)) {
        // The history settles (no retry pending) before it is compared with what arrived by then.
        const settled = (d: JsonObject) => d['event_id'] === eventId && d['status'] !== 'pending';
        const { items } = await listUntil(ctx, 'listWebhookDeliveries', { query: { event_id: eventId } }, (xs) => xs.some(settled));
        const delivery = items.find(settled) ?? items.find((d) => d['event_id'] === eventId);
        const attempts = byEvent(await received(ctx, { objectId: col, min: 0 })).get(eventId) ?? [];
        if (!delivery) fail(`event ${eventId} reached the receiver ${attempts.length} time(s), but the history lists no delivery of it`);
        const answers = attempts.map((a) => a.answered);
        const listed = (Array.isArray(delivery['attempts']) ? (delivery['attempts'] as JsonObject[]) : []).map((a) => a['response_status']);
        check(listed.length === attempts.length, `delivery ${idOf(delivery)} of event ${eventId} lists ${listed.length} attempt(s); ${attempts.length} arrived at the receiver`);
        check(sameJson(listed, answers), `delivery ${idOf(delivery)} of event ${eventId} records answers [${listed.join(', ')}]; the receiver answered [${answers.join(', ')}]`);
        const one = jsonOf(await ctx.call('getWebhookDelivery', { pathParams: { delivery_id: idOf(delivery) } }), STATUS.is2xx, `status of GET delivery ${idOf(delivery)}`);
        const n = Array.isArray(one['attempts']) ? (one['attempts'] as JsonObject[]).length : 0;
        check(n === attempts.length, `GET delivery ${idOf(delivery)} shows ${n} attempts; ${attempts.length} arrived`);
      }
    },
  },
  {
    ...base,
    requirement: 'FSAPI-WH-104',
    operation: 'getWebhookEvent',
    variant: 'equals-delivered',
    title: 'the event read by id equals the delivered body',
    needs: ['webhooks'],
    uses: ['createCustomer'],
    async run(ctx) {
      const cid = await causeCustomer(ctx);
      const got = await received(ctx, { objectId: cid, type: 'customer.created', min: 1 });
      if (got.length === 0) ctx.skip(`no delivery arrived for ${cid} within ${ctx.config.webhookWaitMs} ms (FSAPI-WH-003 judges delivery): nothing to compare`, 'prerequisite');
      const delivered = deliveredEvent(got[0]!, ctx.binding);
      const id = String(delivered['id']);
      const event = jsonOf(await ctx.call('getWebhookEvent', { pathParams: { event_id: id } }), STATUS.is2xx, `status of GET event ${id} (delivered to the receiver)`);
      check(sameJson(event, delivered), `GET /webhooks/events/${id} differs from the delivered body: ${firstDifference(event, delivered)}`);
    },
  },
];

await defineSuite('webhooks', flows);
