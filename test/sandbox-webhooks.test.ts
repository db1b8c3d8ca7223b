/**
 * Webhook deliveries: Standard Webhooks signatures, the exact event bytes, retries with the same webhook-id after a
 * failed attempt, the delivery history with every attempt, failure after five attempts, and close() cancelling
 * what is pending. Deliveries are awaited through the receiver (promises), never with fixed sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpecDocument } from '../src/catalogue/index.js';
import { verify } from '../src/webhooks/signature.js';
import { createCore } from '../sandbox/core.js';
import { startSandbox, type RunningSandbox } from '../sandbox/index.js';
import { referenceSpec } from '../sandbox/routes.js';
import {
  Flows,
  SandboxClient,
  TestReceiver,
  customerBody,
  eventually,
  type CustomerView,
  type DeliveryView,
  type EventView,
  type ListEnvelope,
  type Received,
} from './helpers/sandbox-client.js';

let sb: RunningSandbox;
let spec: SpecDocument;
let api: SandboxClient;
let receiver: TestReceiver;
let secret: string;
let receiverUrl: string;

beforeAll(async () => {
  receiver = new TestReceiver();
  const url = (receiverUrl = await receiver.listen());
  spec = await referenceSpec();
  sb = await startSandbox({ webhookRetryDelaysMs: [5, 5, 5, 5] });
  secret = sb.webhook_secret;
  sb.setWebhook(sb.tenants[0]!.tenant_id, { url, secret });
  api = new SandboxClient(sb, spec, sb.tenants[0]!);
});

afterAll(async () => {
  await api?.close();
  await sb?.close();
  await receiver?.close();
});

const eventOf = (r: Received): EventView => JSON.parse(r.body) as EventView;
const about = (id: string) => (r: Received) => eventOf(r).data.object.id === id;

async function deliveryOf(eventId: string, ok: (d: DeliveryView) => boolean): Promise<DeliveryView> {
  const list = await eventually(
    () => api.call<ListEnvelope<DeliveryView>>('listWebhookDeliveries', { query: { event_id: eventId } }),
    (r) => r.body.data.length === 1 && ok(r.body.data[0]!),
  );
  return list.body.data[0]!;
}

describe('webhook deliveries', () => {
  it('POST each event, signed the Standard Webhooks way, with the event’s exact bytes and its id as webhook-id', async () => {
    const c = (await api.call<CustomerView>('createCustomer', { body: customerBody(1) })).body;
    const [got] = await receiver.waitFor(about(c.id));
    const r = got!;
    expect(r.headers['content-type']).toBe('application/json');
    expect(verify(secret, r.headers, r.body)).toEqual({ ok: true });
    expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    const event = eventOf(r);
    expect(r.headers['webhook-id']).toBe(event.id);
    expect(event).toMatchObject({ object: 'event', type: 'customer.created', data: { object: { id: c.id, object: 'customer' } } });
    const served = await api.call<EventView>('getWebhookEvent', { params: { event_id: event.id } });
    expect(served.text).toBe(r.body);
    const d = await deliveryOf(event.id, (x) => x.status === 'succeeded');
    expect(d).toMatchObject({ event_type: 'customer.created', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/hooks$/), next_retry_at: null });
    expect(d.attempts).toEqual([{ number: 1, attempted_at: expect.any(String), response_status: 200, error: null, duration_ms: expect.any(Number) }]);
    expect((await api.call<DeliveryView>('getWebhookDelivery', { params: { delivery_id: d.id } })).body).toEqual(d);
  });

  it('retries a failed attempt with the same webhook-id and body, and records both attempts', async () => {
    const target = `failing-once-${Date.now()}@example.com`;
    let failed = false;
    receiver.respond = (r) => {
      if (!failed && eventOf(r).data.object.id !== undefined && r.body.includes(target)) {
        failed = true;
        return 503;
      }
      return 200;
    };
    try {
      const c = (await api.call<CustomerView>('createCustomer', { body: customerBody(2, { email: target }) })).body;
      const [first, second] = await receiver.waitFor(about(c.id), 2);
      expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
      expect(second!.body).toBe(first!.body);
      expect(verify(secret, second!.headers, second!.body)).toEqual({ ok: true });
      const d = await deliveryOf(eventOf(first!).id, (x) => x.status === 'succeeded');
      expect(d.attempts.map((a) => [a.number, a.response_status, a.error])).toEqual([
        [1, 503, null],
        [2, 200, null],
      ]);
      const succeeded = await api.call<ListEnvelope<DeliveryView>>('listWebhookDeliveries', { query: { status: 'succeeded', limit: 100 } });
      expect(succeeded.body.data.map((x) => x.id)).toContain(d.id);
    } finally {
      receiver.respond = () => 200;
    }
  });

  it('fails a delivery after five failed attempts, recording each (status or error)', async () => {
    const target = `always-failing-${Date.now()}@example.com`;
    receiver.respond = (r) => (r.body.includes(target) ? 500 : 200);
    try {
      const c = (await api.call<CustomerView>('createCustomer', { body: customerBody(3, { email: target }) })).body;
      const attempts = await receiver.waitFor(about(c.id), 5);
      expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
      const d = await deliveryOf(eventOf(attempts[0]!).id, (x) => x.status === 'failed');
      expect(d.attempts.map((a) => [a.number, a.response_status])).toEqual([1, 2, 3, 4, 5].map((n) => [n, 500]));
      expect(d.next_retry_at).toBeNull();
      const failed = await api.call<ListEnvelope<DeliveryView>>('listWebhookDeliveries', { query: { status: 'failed' } });
      expect(failed.body.data.map((x) => x.id)).toContain(d.id);
    } finally {
      receiver.respond = () => 200;
    }
    // No answer at all (nothing listening) is an attempt with an error and no status.
    const closed = new TestReceiver();
    const deadUrl = await closed.listen();
    await closed.close();
    sb.setWebhook(sb.tenants[0]!.tenant_id, { url: deadUrl, secret });
    try {
      const c = (await api.call<CustomerView>('createCustomer', { body: customerBody(4) })).body;
      const events = await api.call<ListEnvelope<EventView>>('listWebhookEvents', { query: { type: 'customer.created', limit: 5 } });
      const ev = events.body.data.find((e) => e.data.object.id === c.id)!;
      const d = await deliveryOf(ev.id, (x) => x.status === 'failed');
      expect(d.attempts).toHaveLength(5);
      expect(d.attempts.every((a) => a.response_status === null && a.error === 'connection refused')).toBe(true);
    } finally {
      sb.setWebhook(sb.tenants[0]!.tenant_id, { url: receiverUrl, secret });
    }
  });

  it('delivers nothing to a tenant without a webhook, and keeps the history per tenant', async () => {
    const beta = api.as(sb.tenants[1]!);
    const c = (await beta.call<CustomerView>('createCustomer', { body: customerBody(5) })).body;
    const events = await beta.call<ListEnvelope<EventView>>('listWebhookEvents', {});
    expect(events.body.data.map((e) => e.data.object.id)).toContain(c.id);
    expect((await beta.call<ListEnvelope<DeliveryView>>('listWebhookDeliveries', {})).body.data).toEqual([]);
    const mine = await api.call<ListEnvelope<DeliveryView>>('listWebhookDeliveries', { query: { limit: 100 } });
    expect(mine.body.data.length).toBeGreaterThan(0);
    expect(receiver.received.some(about(c.id))).toBe(false);
  });

  it('delivers an event for every kind of state change of a flow', async () => {
    const own = await startSandbox();
    const rx = new TestReceiver();
    const url = await rx.listen();
    own.setWebhook(own.tenants[0]!.tenant_id, { url, secret: own.webhook_secret });
    const client = new SandboxClient(own, spec, own.tenants[0]!);
    try {
      const f = new Flows(client);
      const c = await f.approvedCustomer(['cards']);
      const acc = await f.account(c.id);
      await f.fund(acc, '10.00');
      const events = await client.call<ListEnvelope<EventView>>('listWebhookEvents', { query: { limit: 100 } });
      const got = await rx.waitFor(() => true, events.body.data.length);
      expect(new Set(got.map((r) => eventOf(r).type))).toEqual(
        new Set(['customer.created', 'kyc.submitted', 'kyc.approved', 'feature.activated', 'account.created', 'collection.created', 'collection.succeeded']),
      );
      for (const r of got) expect(verify(own.webhook_secret, r.headers, r.body).ok).toBe(true);
    } finally {
      await client.close();
      await own.close();
      await rx.close();
    }
  });
});

describe('close()', () => {
  it('cancels pending retries', async () => {
    const rx = new TestReceiver();
    rx.respond = () => 503;
    const url = await rx.listen();
    const core = await createCore({ webhookRetryDelaysMs: [60_000], webhooks: {} });
    const t = core.fixtures.tenants[0]!;
    core.setWebhook(t.tenant_id, { url, secret: core.fixtures.webhook_secret });
    try {
      const res = await core.pipeline.handle({
        method: 'POST',
        url: '/v1/customers',
        headers: { 'api-key': t.sandbox_secret_key, 'x-tenant-id': t.tenant_id, 'content-type': 'application/json', 'idempotency-key': 'close-1' },
        body: Buffer.from(JSON.stringify(customerBody(6))),
        bodyTooLarge: false,
      });
      expect(res.status).toBe(201);
      await rx.waitFor(() => true);
      const delivery = () => [...core.store.tenants.get(t.tenant_id)!.deliveries.values()][0]!;
      await eventually(async () => delivery().attempts.length, (n) => n === 1);
      expect(delivery().next_retry_at).not.toBeNull();
      expect(core.scheduler.pending).toBe(1);
      await core.close();
      expect(core.scheduler.pending).toBe(0);
    } finally {
      await core.close();
      await rx.close();
    }
  });
});
