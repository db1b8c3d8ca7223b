/**
 * The sandbox's HTTP behaviour: authentication, tenancy, the processing order, input errors, what never leaks,
 * the plain-HTTP listener, and pagination. Responses to documented operations are held to the spec.
 */
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operation, SpecDocument } from '../src/catalogue/index.js';
import { startSandbox, type RunningSandbox } from '../sandbox/index.js';
import { REALM_CHALLENGE } from '../sandbox/pipeline.js';
import { referenceSpec } from '../sandbox/routes.js';
import { Flows, LEAK_PATTERN, SandboxClient, customerBody, type CustomerView, type ListEnvelope, type ProblemBody } from './helpers/sandbox-client.js';

let sb: RunningSandbox;
let spec: SpecDocument;
let api: SandboxClient;
let beta: SandboxClient;
let flows: Flows;
/** One object of each kind, to fill path parameters. */
let ids: Record<string, string>;

beforeAll(async () => {
  sb = await startSandbox({ httpPort: 0 });
  spec = await referenceSpec();
  api = new SandboxClient(sb, spec, sb.tenants[0]!);
  beta = api.as(sb.tenants[1]!);
  flows = new Flows(api);
  const c = await flows.approvedCustomer(['cards']);
  const acc = await flows.account(c.id);
  ids = { customer_id: c.id, account_id: acc.id, feature: 'cards' };
});

afterAll(async () => {
  await api?.close();
  await sb?.close();
});

/** Path parameters for any operation: real ids where the test made them, well-formed unknown ones elsewhere. */
function paramsFor(op: Operation): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of op.parameters.filter((x) => x.in === 'path')) out[p.name] = ids[p.name] ?? String(p.example);
  return out;
}

/** A body valid for the operation (the spec's own example). */
function exampleBody(op: Operation): unknown {
  return op.requestBody?.content[0]?.examples[0];
}

async function countCustomers(client: SandboxClient): Promise<number> {
  return (await client.call<ListEnvelope<CustomerView>>('listCustomers', { query: { limit: 100 } })).body.data.length;
}

describe('authentication', () => {
  it('answers 401 with a challenge and a problem body to every operation without Api-Key', async () => {
    for (const op of spec.operations) {
      const res = await api.call<ProblemBody>(op.operationId, { params: paramsFor(op), body: exampleBody(op), key: null });
      expect(res.status, op.operationId).toBe(401);
      expect(res.headers['www-authenticate']).toBe(REALM_CHALLENGE);
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(res.body).toMatchObject({ status: 401, code: 'unauthorized', title: 'Unauthorized' });
    }
  });

  it('accepts only a tenant’s sandbox secret key in the Api-Key header', async () => {
    const alpha = sb.tenants[0]!;
    const cases: [string, Record<string, string | null>, Record<string, string>?][] = [
      ['empty key', { key: '' }],
      ['unknown key', { key: 'sk_sandbox_FAKE_nobody_000000000000' }],
      ['revoked key', { key: sb.revoked_key }],
      ['public key', { key: alpha.public_key }],
      ['live secret key', { key: sb.live_key }],
      ['live public key', { key: alpha.live_public_key }],
      ['Bearer only', { key: null }, { authorization: `Bearer ${alpha.secret_key}` }],
    ];
    for (const [label, opts, headers] of cases) {
      const res = await api.call<ProblemBody>('listAccounts', { ...opts, ...(headers ? { headers } : {}) });
      expect(res.status, label).toBe(401);
      expect(res.headers['www-authenticate'], label).toBe(REALM_CHALLENGE);
    }
    for (const name of ['api_key', 'apiKey', 'Api-Key']) {
      const res = await api.call('listAccounts', { key: null, query: { [name]: alpha.secret_key } });
      expect(res.status, name).toBe(401);
    }
    expect((await api.call('listAccounts')).status).toBe(200);
  });

  it('processes no write refused for want of a valid key', async () => {
    const before = await countCustomers(api);
    for (const key of [null, 'sk_sandbox_FAKE_nobody_000000000000', sb.revoked_key]) {
      const res = await api.call('createCustomer', { body: customerBody(1), key });
      expect(res.status).toBe(401);
    }
    expect(await countCustomers(api)).toBe(before);
  });
});

describe('tenancy', () => {
  it('requires x-tenant-id (400 tenant_required) and refuses another business’s (403 tenant_mismatch)', async () => {
    const missing = await api.call<ProblemBody>('listAccounts', { tenantId: null });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('tenant_required');
    expect(missing.body.errors).toEqual([{ field: 'x-tenant-id', message: 'is required' }]);
    for (const tenantId of [sb.tenants[1]!.tenant_id, 'ten_unknown']) {
      const res = await api.call<ProblemBody>('listAccounts', { tenantId });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('tenant_mismatch');
    }
    const write = await api.call<ProblemBody>('createCustomer', { body: customerBody(2), tenantId: null });
    expect(write.status).toBe(400);
  });

  it('never serves or lists another business’s objects (404 by id)', async () => {
    const theirs = new Flows(beta);
    const c = await theirs.customer();
    const acc = await theirs.account(c.id);
    const mine = await flows.customer();
    expect((await api.call('getCustomer', { params: { customer_id: c.id } })).status).toBe(404);
    expect((await api.call('getAccount', { params: { account_id: acc.id } })).status).toBe(404);
    expect((await api.call('getKycStatus', { params: { customer_id: c.id } })).status).toBe(404);
    expect((await beta.call('getCustomer', { params: { customer_id: mine.id } })).status).toBe(404);
    const lists = await api.call<ListEnvelope<CustomerView>>('listCustomers', { query: { limit: 100 } });
    expect(lists.body.data.map((x) => x.id)).not.toContain(c.id);
    const theirList = await beta.call<ListEnvelope<CustomerView>>('listCustomers', { query: { limit: 100 } });
    expect(theirList.body.data.map((x) => x.id)).toEqual([c.id]);
    const events = await beta.call<ListEnvelope<{ data: { object: { id: string } } }>>('listWebhookEvents', { query: { limit: 100 } });
    expect(events.body.data.every((e) => e.data.object.id !== mine.id)).toBe(true);
  });
});

describe('processing order, routing and input errors', () => {
  it('authenticates before routing: an unknown path or method with a bad key is 401; with a good key 404 or 405', async () => {
    const bad = { 'api-key': 'nope', 'x-tenant-id': sb.tenants[0]!.tenant_id };
    const good = { 'api-key': sb.tenants[0]!.secret_key, 'x-tenant-id': sb.tenants[0]!.tenant_id };
    expect((await api.raw('GET', 'no-such-thing', { headers: bad })).status).toBe(401);
    expect((await api.raw('PUT', 'accounts', { headers: bad })).status).toBe(401);
    const unknown = await api.raw('GET', 'no-such-thing', { headers: good });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: 404, code: 'not_found' });
    expect((await api.raw('GET', 'no-such-thing', { headers: { 'api-key': good['api-key'] } })).status).toBe(400);
    for (const [method, path, allow] of [
      ['PUT', 'accounts', 'GET, POST'],
      ['DELETE', 'customers', 'GET, POST'],
      ['POST', `accounts/${ids['account_id']}`, 'GET'],
      ['PATCH', 'fx/rates', 'GET'],
      ['TRACE', 'customers', 'GET, POST'],
    ] as const) {
      const res = await api.raw(method, path, { headers: good });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers['allow']).toBe(allow);
      expect(res.body).toMatchObject({ status: 405, code: 'method_not_allowed' });
    }
  });

  it('serves nothing outside /v1/ (404, whatever the credentials)', async () => {
    const origin = new URL(sb.base_url).origin;
    const good = { 'api-key': sb.tenants[0]!.secret_key, 'x-tenant-id': sb.tenants[0]!.tenant_id };
    for (const path of ['/', '/accounts', '/v2/accounts', '/v0/accounts', '/v1', '/V1/accounts']) {
      const res = await api.raw('GET', `${origin}${path}`, { headers: good });
      expect(res.status, path).toBe(404);
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    }
  });

  it('names every invalid field of a body (JSON pointers) in one 400', async () => {
    const body = customerBody(3, { date_of_birth: '10/12/1990', phone: '14155550123', email: 'not-an-email', nickname: 'x' });
    (body['address'] as Record<string, unknown>)['country'] = 'USA';
    delete body['first_name'];
    const res = await api.call<ProblemBody>('createCustomer', { body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(new Set(res.body.errors!.map((e) => e.field))).toEqual(
      new Set(['/first_name', '/date_of_birth', '/phone', '/email', '/nickname', '/address/country']),
    );
    for (const [field, value] of [
      ['date_of_birth', '1990-02-30'],
      ['type', 'robot'],
      ['gender', 'x'],
    ]) {
      const one = await api.call<ProblemBody>('createCustomer', { body: customerBody(4, { [field!]: value }) });
      expect(one.status, field).toBe(400);
      expect(one.body.errors!.map((e) => e.field)).toEqual([`/${field}`]);
    }
    const state = await api.call<ProblemBody>('createCustomer', {
      body: customerBody(5, { address: { address_line1: 'x', city: 'y', country: 'US', postal_code: '1', state: 'CA' } }),
    });
    expect(state.body.errors!.map((e) => e.field)).toEqual(['/address/state']);
  });

  it('validates query and path parameters: limit 1..100, enums, id formats, cursors', async () => {
    for (const limit of ['0', '101', 'abc', '1.5', '-1']) {
      const res = await api.call<ProblemBody>('listCustomers', { query: { limit } });
      expect(res.status, limit).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'limit' })]);
    }
    const status = await api.call<ProblemBody>('listTransfers', { query: { status: 'lost' } });
    expect(status.body.errors!.map((e) => e.field)).toEqual(['status']);
    const currency = await api.call<ProblemBody>('listAccounts', { query: { currency: 'usd' } });
    expect(currency.body.errors!.map((e) => e.field)).toEqual(['currency']);
    const id = await api.call<ProblemBody>('getCustomer', { params: { customer_id: 'not-an-id' } });
    expect(id.status).toBe(400);
    expect(id.body.errors!.map((e) => e.field)).toEqual(['customer_id']);
    const cursor = await api.call<ProblemBody>('listCustomers', { query: { cursor: 'c_garbage' } });
    expect(cursor.status).toBe(400);
    expect(cursor.body.code).toBe('invalid_cursor');
  });

  it('refuses malformed JSON (400), other media types (415), bodies over 1 MiB (413), in that order, creating nothing', async () => {
    const before = await countCustomers(api);
    const malformed = await api.call<ProblemBody>('createCustomer', { rawBody: '{"first_name": "Ada",' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('malformed_json');
    const valid = JSON.stringify(customerBody(6));
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', null]) {
      const res = await api.call<ProblemBody>('createCustomer', { rawBody: valid, contentType });
      expect(res.status, String(contentType)).toBe(415);
      expect(res.body.code).toBe('unsupported_media_type');
    }
    expect((await api.call('createCustomer', { rawBody: valid, contentType: 'application/json; charset=utf-8' })).status).toBe(201);
    const big = JSON.stringify(customerBody(7, { metadata: { pad: 'x'.repeat(2 * 1024 * 1024) } }));
    const tooLarge = await api.call<ProblemBody>('createCustomer', { rawBody: big });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.code).toBe('payload_too_large');
    expect((await api.call('createCustomer', { rawBody: big, contentType: 'text/plain' })).status).toBe(415);
    const empty = await api.call<ProblemBody>('activateFeature', { params: { customer_id: ids['customer_id']!, feature: 'fx' }, contentType: null });
    expect(empty.status).toBe(400);
    expect(await countCustomers(api)).toBe(before + 1);
  });

  it('requires a well-formed Idempotency-Key on every POST (400 naming it), before validating the body', async () => {
    for (const op of spec.operations.filter((o) => o.method === 'POST')) {
      const res = await api.call<ProblemBody>(op.operationId, { params: paramsFor(op), body: { bogus: true }, idempotencyKey: null });
      expect(res.status, op.operationId).toBe(400);
      expect(res.body.code).toBe('idempotency_key_required');
      expect(res.body.errors).toEqual([{ field: 'Idempotency-Key', message: 'is required on every POST' }]);
    }
    for (const key of ['has space', 'x'.repeat(256), 'tab\there']) {
      const res = await api.call<ProblemBody>('createCustomer', { body: customerBody(9), idempotencyKey: key });
      expect(res.status, key).toBe(400);
      expect(res.body.code).toBe('invalid_idempotency_key');
    }
    expect((await api.call('createCustomer', { body: customerBody(9), idempotencyKey: 'x'.repeat(255) })).status).toBe(201);
  });

  it('never answers with a stack trace, a file path or the framework’s name', async () => {
    const good = { 'api-key': sb.tenants[0]!.secret_key, 'x-tenant-id': sb.tenants[0]!.tenant_id };
    const probes: [string, string, Record<string, string>, string?][] = [
      ['GET', 'customers/%E0%A4%A', good],
      ['GET', 'customers/%00', good],
      ['POST', 'customers', { ...good, 'content-type': 'application/json', 'idempotency-key': 'leak-1' }, '{"a":'],
      ['POST', 'customers', { ...good, 'content-type': 'application/json', 'idempotency-key': 'leak-2' }, '[1,2'],
      ['POST', 'customers', { ...good, 'content-type': 'application/json', 'idempotency-key': 'leak-3' }, '\u0000\u0001'],
      ['PROPFIND', 'customers', good],
      ['OPTIONS', 'customers', good],
      ['HEAD', 'customers', good],
      ['GET', '../../etc/passwd', good],
      ['GET', 'customers?limit=1&limit=2', good],
      ['POST', 'customers', { ...good, 'content-type': 'application/json', 'idempotency-key': 'leak-4' }, '"just a string"'],
      ['POST', 'customers', { ...good, 'content-type': 'application/json', 'idempotency-key': 'leak-5' }, 'null'],
    ];
    for (const [method, path, headers, body] of probes) {
      const res = await api.raw(method, path, { headers, ...(body !== undefined ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
      expect(res.text, `${method} ${path}`).not.toMatch(LEAK_PATTERN);
      if (method !== 'HEAD') expect(res.headers['content-type'], `${method} ${path}`).toBe('application/problem+json; charset=utf-8');
      expect(Object.keys(res.headers).join(' ')).not.toMatch(/powered|server/i);
    }
  });
});

describe('plain HTTP', () => {
  it('answers every request 403 https_required, processing nothing', async () => {
    const before = await countCustomers(api);
    const plain = sb.plain_http_url!;
    expect(plain).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/$/);
    const agent = new Agent();
    try {
      const cases: [string, string, Record<string, string>, string?][] = [
        ['GET', 'accounts', { 'api-key': 'sk_plain_probe', 'x-tenant-id': sb.tenants[0]!.tenant_id }],
        ['POST', 'customers', { 'api-key': sb.tenants[0]!.secret_key, 'x-tenant-id': sb.tenants[0]!.tenant_id, 'content-type': 'application/json', 'idempotency-key': 'plain-1' }, JSON.stringify(customerBody(10))],
        ['GET', 'no-such-path', {}],
        ['DELETE', '../../', {}],
      ];
      for (const [method, path, headers, body] of cases) {
        const res = await request(`${plain}${path}`, { method: method as 'GET', headers, body, dispatcher: agent });
        const text = await res.body.text();
        expect(res.statusCode, `${method} ${path}`).toBe(403);
        expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
        expect(JSON.parse(text)).toMatchObject({ status: 403, code: 'https_required' });
      }
    } finally {
      await agent.close();
    }
    expect(await countCustomers(api)).toBe(before);
  });
});

describe('pagination', () => {
  it('walks a list newest first in pages of `limit`, each object once, has_more false only on the last page', async () => {
    const own = await startSandbox();
    const client = new SandboxClient(own, spec, own.tenants[0]!);
    try {
      const made: string[] = [];
      const f = new Flows(client);
      for (let i = 0; i < 5; i++) made.unshift((await f.customer()).id);
      const seen: string[] = [];
      const shape: [number, boolean][] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await client.call<ListEnvelope<CustomerView>>('listCustomers', { query: { limit: 2, ...(cursor ? { cursor } : {}) } });
        seen.push(...page.body.data.map((c) => c.id));
        shape.push([page.body.data.length, page.body.has_more]);
        if (!page.body.has_more) {
          expect(page.body.next_cursor).toBeNull();
          break;
        }
        expect(page.body.next_cursor).toMatch(/^c_/);
        cursor = page.body.next_cursor!;
      }
      expect(shape).toEqual([
        [2, true],
        [2, true],
        [1, false],
      ]);
      expect(seen).toEqual(made);
      const all = await client.call<ListEnvelope<CustomerView>>('listCustomers', {});
      expect(all.body.data.map((c) => c.id)).toEqual(made);
      const max = await client.call<ListEnvelope<CustomerView>>('listCustomers', { query: { limit: 100 } });
      expect(max.body.has_more).toBe(false);
    } finally {
      await client.close();
      await own.close();
    }
  });
});
