/**
 * Idempotency-Key semantics (IETF draft, as the profile fixes them): replay, reuse with another request, in flight,
 * exact comparison, per-tenant scope, retention, and what is never stored.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SpecDocument } from '../src/catalogue/index.js';
import { createCore } from '../sandbox/core.js';
import { startSandbox, type RunningSandbox } from '../sandbox/index.js';
import { referenceSpec } from '../sandbox/routes.js';
import { Flows, SandboxClient, customerBody, type CardView, type CustomerView, type ListEnvelope, type ProblemBody } from './helpers/sandbox-client.js';

let sb: RunningSandbox;
let spec: SpecDocument;
let api: SandboxClient;
let beta: SandboxClient;

beforeAll(async () => {
  sb = await startSandbox();
  spec = await referenceSpec();
  api = new SandboxClient(sb, spec, sb.tenants[0]!);
  beta = api.as(sb.tenants[1]!);
});

afterAll(async () => {
  await api?.close();
  await sb?.close();
});

async function customers(client: SandboxClient = api): Promise<string[]> {
  return (await client.call<ListEnvelope<CustomerView>>('listCustomers', { query: { limit: 100 } })).body.data.map((c) => c.id);
}

describe('Idempotency-Key', () => {
  it('replays a completed request: same status, same body bytes, same Location, marked, nothing created', async () => {
    const key = randomUUID();
    const body = customerBody(1);
    const first = await api.call<CustomerView>('createCustomer', { body, idempotencyKey: key });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const before = await customers();
    // Key order in the body does not make it another request.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const second = await api.call<CustomerView>('createCustomer', { body: reordered, idempotencyKey: key });
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers['location']).toBe(first.headers['location']);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(await customers()).toEqual(before);
  });

  it('replays actions and 202s too, without acting again', async () => {
    const flows = new Flows(api);
    const c = await flows.approvedCustomer(['cards']);
    const acc = await flows.account(c.id);
    const card = (await api.call<CardView>('issueCard', { body: { customer_id: c.id, account_id: acc.id, type: 'virtual' } })).body;
    const key = randomUUID();
    const freeze = await api.call<CardView>('freezeCard', { params: { card_id: card.id }, body: {}, idempotencyKey: key });
    const again = await api.call<CardView>('freezeCard', { params: { card_id: card.id }, body: {}, idempotencyKey: key });
    expect([freeze.status, again.status, again.headers['idempotent-replayed']]).toEqual([200, 200, 'true']);
    const fresh = await api.call<ProblemBody>('freezeCard', { params: { card_id: card.id }, body: {} });
    expect(fresh.status).toBe(409);
    const other = await flows.customer();
    const doc = await flows.document(other.id);
    const submission = { params: { customer_id: other.id }, body: { id_type: 'passport', id_number: 'P7654321', document_ids: [doc.id] }, idempotencyKey: randomUUID() };
    const sub = await api.call('submitKyc', submission);
    const replay = await api.call('submitKyc', submission);
    expect([sub.status, replay.status, replay.headers['idempotent-replayed'], replay.text]).toEqual([202, 202, 'true', sub.text]);
  });

  it('refuses the same key with another body or another path with 422 idempotency_key_reused, creating nothing', async () => {
    const key = randomUUID();
    await api.call('createCustomer', { body: customerBody(2), idempotencyKey: key });
    const before = await customers();
    const other = await api.call<ProblemBody>('createCustomer', { body: customerBody(3), idempotencyKey: key });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
    const elsewhere = await api.call<ProblemBody>('createAccount', { body: { customer_id: before[0]!, currency: 'USD', type: 'checking' }, idempotencyKey: key });
    expect(elsewhere.status).toBe(422);
    expect(await customers()).toEqual(before);
  });

  it('compares keys exactly: case and the last character of a long key make different keys', async () => {
    const before = (await customers()).length;
    const body = customerBody(4);
    const a = await api.call<CustomerView>('createCustomer', { body, idempotencyKey: 'Order-ABC-1' });
    const b = await api.call<CustomerView>('createCustomer', { body, idempotencyKey: 'order-abc-1' });
    const long = 'k'.repeat(119);
    const c = await api.call<CustomerView>('createCustomer', { body, idempotencyKey: `${long}1` });
    const d = await api.call<CustomerView>('createCustomer', { body, idempotencyKey: `${long}2` });
    expect([a, b, c, d].map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(new Set([a, b, c, d].map((r) => r.body.id)).size).toBe(4);
    expect((await customers()).length).toBe(before + 4);
  });

  it('scopes keys to the tenant: the other business’s identical request creates its own resource', async () => {
    const key = randomUUID();
    const body = customerBody(5);
    const mine = await api.call<CustomerView>('createCustomer', { body, idempotencyKey: key });
    const theirs = await beta.call<CustomerView>('createCustomer', { body, idempotencyKey: key });
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(await customers(beta)).toContain(theirs.body.id);
  });

  it('stores nothing for requests refused before the lookup (401, 400 tenant, 415, 413, malformed JSON)', async () => {
    const body = customerBody(6);
    const refusals = [
      { key: null },
      { tenantId: null },
      { contentType: 'text/plain' },
      { rawBody: JSON.stringify(customerBody(6, { metadata: { pad: 'x'.repeat(1100 * 1024) } })) },
      { rawBody: '{"first_name":' },
    ];
    for (const extra of refusals) {
      const key = randomUUID();
      const refused = await api.call('createCustomer', { body, idempotencyKey: key, ...extra });
      expect(refused.status).toBeGreaterThanOrEqual(400);
      const ok = await api.call('createCustomer', { body, idempotencyKey: key });
      expect(ok.status, JSON.stringify(Object.keys(extra))).toBe(201);
      expect(ok.headers['idempotent-replayed']).toBeUndefined();
    }
  });

  it('stores what follows the lookup: a validation refusal replays as such', async () => {
    const key = randomUUID();
    const bad = customerBody(7, { phone: '12' });
    const first = await api.call<ProblemBody>('createCustomer', { body: bad, idempotencyKey: key });
    const second = await api.call<ProblemBody>('createCustomer', { body: bad, idempotencyKey: key });
    expect([first.status, second.status, second.headers['idempotent-replayed']]).toEqual([400, 400, 'true']);
    expect(second.text).toBe(first.text);
  });

  it('creates exactly one resource from 50 parallel identical POSTs; the others get 409 or the replay', async () => {
    const key = randomUUID();
    const body = customerBody(8, { email: `burst-${key}@example.com` });
    const answers = await Promise.all(Array.from({ length: 50 }, () => api.call<CustomerView | ProblemBody>('createCustomer', { body, idempotencyKey: key })));
    const created = answers.filter((r) => r.status === 201);
    const inFlight = answers.filter((r) => r.status === 409);
    expect(created.length + inFlight.length).toBe(50);
    expect(new Set(created.map((r) => (r.body as CustomerView).id)).size).toBe(1);
    expect(created.filter((r) => r.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    for (const r of inFlight) expect((r.body as ProblemBody).code).toBe('idempotency_in_flight');
    const found = await api.call<ListEnvelope<CustomerView>>('listCustomers', { query: { email: body['email'] as string } });
    expect(found.body.data).toHaveLength(1);
  });

  it('answers 409 to a duplicate that arrives while the first is in flight (driven in-process, no timing)', async () => {
    const core = await createCore();
    try {
      const t = core.fixtures.tenants[0]!;
      const req = {
        method: 'POST',
        url: '/v1/customers',
        headers: { 'api-key': t.sandbox_secret_key, 'x-tenant-id': t.tenant_id, 'content-type': 'application/json', 'idempotency-key': 'in-flight-1' },
        body: Buffer.from(JSON.stringify(customerBody(9))),
        bodyTooLarge: false,
      };
      // Both start before either completes: the first marks the key in flight, then yields like a database write.
      const [a, b] = await Promise.all([core.pipeline.handle(req), core.pipeline.handle(req)]);
      expect([a.status, b.status]).toEqual([201, 409]);
      expect(JSON.parse(b.body!)).toMatchObject({ code: 'idempotency_in_flight', status: 409 });
      const c = await core.pipeline.handle(req);
      expect([c.status, c.headers['idempotent-replayed'], c.body]).toEqual([201, 'true', a.body]);
      expect(core.store.tenants.get(t.tenant_id)!.customers.size).toBe(1);
    } finally {
      await core.close();
    }
  });

  it('keeps keys for idempotencyTtlMs (24 h by default), then forgets them', async () => {
    const own = await startSandbox({ idempotencyTtlMs: 60_000 });
    const client = new SandboxClient(own, spec, own.tenants[0]!);
    try {
      const key = randomUUID();
      const body = customerBody(10);
      const first = await client.call<CustomerView>('createCustomer', { body, idempotencyKey: key });
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(Date.now() + 59_000);
        const within = await client.call<CustomerView>('createCustomer', { body, idempotencyKey: key });
        expect(within.headers['idempotent-replayed']).toBe('true');
        vi.setSystemTime(Date.now() + 2_000);
        const after = await client.call<CustomerView>('createCustomer', { body, idempotencyKey: key });
        expect(after.status).toBe(201);
        expect(after.headers['idempotent-replayed']).toBeUndefined();
        expect(after.body.id).not.toBe(first.body.id);
      } finally {
        vi.useRealTimers();
      }
    } finally {
      await client.close();
      await own.close();
    }
  });
});
