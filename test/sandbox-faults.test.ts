/**
 * Fault switches. For every fault in the registry, a probe observes the one behaviour it breaks: the probe must
 * see it intact on a sandbox without faults and broken on a sandbox with only that fault. The table is typed by
 * fault name, so a fault without a probe does not compile.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SpecDocument } from '../src/catalogue/index.js';
import { loadRequirements, REQUIREMENTS_PATH } from '../src/catalogue/index.js';
import { UsageError } from '../src/errors.js';
import { verify } from '../src/webhooks/signature.js';
import { createCore, type SandboxCore } from '../sandbox/core.js';
import { FAULTS, parseFaults, type FaultName } from '../sandbox/faults.js';
import { startSandbox, type RunningSandbox } from '../sandbox/index.js';
import { referenceSpec } from '../sandbox/routes.js';
import {
  Flows,
  LEAK_PATTERN,
  SandboxClient,
  TestReceiver,
  coreRequest,
  customerBody,
  eventually,
  type AccountView,
  type CardView,
  type CollectionView,
  type CustomerView,
  type DeliveryView,
  type EventView,
  type ExternalAccountView,
  type FeatureView,
  type FxQuoteView,
  type FxTradeView,
  type KycVerificationView,
  type ListEnvelope,
  type ProblemBody,
  type Received,
  type TransactionView,
  type TransferView,
} from './helpers/sandbox-client.js';

interface Env {
  sb: RunningSandbox;
  api: SandboxClient;
  beta: SandboxClient;
  flows: Flows;
  betaFlows: Flows;
}

/** A probe answers: is the behaviour broken here? Network probes get a running sandbox; core probes the pipeline. */
type Probe = { net: (env: Env) => Promise<boolean> } | { core: (core: SandboxCore) => Promise<boolean> };

let spec: SpecDocument;
let receiver: TestReceiver;
let hookUrl: string;
/** Markers whose first delivery the receiver fails (503). */
const failFirst = new Set<string>();

async function open(faults: string[]): Promise<Env> {
  const sb = await startSandbox({ faults, httpPort: 0, webhookRetryDelaysMs: [5, 5, 5, 5] });
  sb.setWebhook(sb.tenants[0]!.tenant_id, { url: hookUrl, secret: sb.webhook_secret });
  const api = new SandboxClient(sb, spec, sb.tenants[0]!).unchecked();
  const beta = api.as(sb.tenants[1]!);
  return { sb, api, beta, flows: new Flows(api), betaFlows: new Flows(beta) };
}

async function shut(env: Env): Promise<void> {
  await env.api.close();
  await env.sb.close();
}

let clean: Env;

beforeAll(async () => {
  spec = await referenceSpec();
  receiver = new TestReceiver();
  receiver.respond = (r) => {
    for (const m of failFirst) {
      if (r.body.includes(m)) {
        failFirst.delete(m);
        return 503;
      }
    }
    return 200;
  };
  hookUrl = await receiver.listen();
  clean = await open([]);
});

afterAll(async () => {
  if (clean) await shut(clean);
  await receiver?.close();
});

const good = (env: Env, extra: Record<string, string> = {}) => ({ 'api-key': env.sb.tenants[0]!.secret_key, 'x-tenant-id': env.sb.tenants[0]!.tenant_id, ...extra });
const email = () => `p-${randomUUID()}@example.com`;
const card = (number = '4242424242424242') => ({ type: 'card', card: { number, expiry_month: 12, expiry_year: 2030, cvc: '123' } });

async function byEmail(api: SandboxClient, address: string): Promise<number> {
  return (await api.call<ListEnvelope<CustomerView>>('listCustomers', { query: { email: address } })).body.data.length;
}

async function deliveriesOf(customerId: string, count = 1): Promise<Received[]> {
  return receiver.waitFor((r) => r.body.includes(customerId) && r.body.includes('"customer.created"'), count);
}

async function eventFor(env: Env, customerId: string): Promise<EventView> {
  const list = await env.api.call<ListEnvelope<EventView>>('listWebhookEvents', { query: { type: 'customer.created', limit: 100 } });
  return list.body.data.find((e) => e.data.object.id === customerId)!;
}

async function fundedPair(env: Env): Promise<{ c: CustomerView; a: AccountView; b: AccountView }> {
  const c = await env.flows.customer();
  const a = await env.flows.account(c.id);
  const b = await env.flows.account(c.id);
  await env.flows.fund(a, '50.00');
  return { c, a, b };
}

const status = async (p: Promise<{ status: number }>): Promise<number> => (await p).status;

/** A create of a customer valid for the document, with these members, answered 500. */
const crashes = async (env: Env, members: Record<string, string>): Promise<boolean> => (await status(env.api.call('createCustomer', { body: customerBody(1, members) }))) === 500;

const PROBES: Record<FaultName, Probe> = {
  // --- Authentication ---
  'auth-skip-on-reads': { net: async (e) => (await status(e.api.call('listAccounts', { key: null }))) === 200 },
  'auth-accept-bearer': { net: async (e) => (await status(e.api.call('listAccounts', { key: null, headers: { authorization: `Bearer ${e.sb.tenants[0]!.secret_key}` } }))) === 200 },
  'auth-accept-query-key': { net: async (e) => (await status(e.api.call('listAccounts', { key: null, query: { api_key: e.sb.tenants[0]!.secret_key } }))) === 200 },
  'auth-accept-public-key': { net: async (e) => (await status(e.api.call('listAccounts', { key: e.sb.tenants[0]!.public_key }))) === 200 },
  'auth-accept-live-key': { net: async (e) => (await status(e.api.call('listAccounts', { key: e.sb.live_key }))) === 200 },
  'auth-accept-revoked-key': { net: async (e) => (await status(e.api.call('listAccounts', { key: e.sb.revoked_key }))) === 200 },
  'auth-403-instead-of-401': { net: async (e) => (await status(e.api.call('listAccounts', { key: null }))) === 403 },
  'auth-no-www-authenticate': {
    net: async (e) => {
      const res = await e.api.call('listAccounts', { key: null });
      return res.status === 401 && res.headers['www-authenticate'] === undefined;
    },
  },
  'auth-401-not-json': { net: async (e) => !(await e.api.call('listAccounts', { key: null })).headers['content-type']!.includes('json') },
  'auth-writes-before-check': {
    net: async (e) => {
      const address = email();
      const res = await e.api.call('createCustomer', { body: customerBody(1, { email: address }), key: 'sk_sandbox_FAKE_wrong' });
      expect(res.status).toBe(401);
      return (await byEmail(e.api, address)) > 0;
    },
  },

  // --- Idempotency ---
  'idem-key-optional': { net: async (e) => (await status(e.api.call('createCustomer', { body: customerBody(1), idempotencyKey: null }))) === 201 },
  'idem-ignored': {
    net: async (e) => {
      const key = randomUUID();
      const address = email();
      await e.api.call('createCustomer', { body: customerBody(1, { email: address }), idempotencyKey: key });
      await e.api.call('createCustomer', { body: customerBody(1, { email: address }), idempotencyKey: key });
      return (await byEmail(e.api, address)) === 2;
    },
  },
  'idem-replay-new-id': {
    net: async (e) => {
      const key = randomUUID();
      const body = customerBody(1, { email: email() });
      const a = await e.api.call<CustomerView>('createCustomer', { body, idempotencyKey: key });
      const b = await e.api.call<CustomerView>('createCustomer', { body, idempotencyKey: key });
      expect(b.headers['idempotent-replayed']).toBe('true');
      return a.body.id !== b.body.id;
    },
  },
  'idem-replay-duplicates': {
    net: async (e) => {
      const key = randomUUID();
      const address = email();
      const a = await e.api.call<CustomerView>('createCustomer', { body: customerBody(1, { email: address }), idempotencyKey: key });
      const b = await e.api.call<CustomerView>('createCustomer', { body: customerBody(1, { email: address }), idempotencyKey: key });
      expect(b.body.id).toBe(a.body.id);
      return (await byEmail(e.api, address)) === 2;
    },
  },
  'idem-accept-different-body': {
    net: async (e) => {
      const key = randomUUID();
      await e.api.call('createCustomer', { body: customerBody(1), idempotencyKey: key });
      return (await status(e.api.call('createCustomer', { body: customerBody(2), idempotencyKey: key }))) !== 422;
    },
  },
  'idem-race': {
    // Five identical requests all start before any completes (in-process: no network timing involved).
    core: async (core) => {
      const t = core.fixtures.tenants[0]!;
      const req = coreRequest(t, 'POST', 'customers', customerBody(1), 'race-key');
      const answers = await Promise.all(Array.from({ length: 5 }, () => core.pipeline.handle(req)));
      const ids = new Set(answers.filter((a) => a.status === 201).map((a) => (JSON.parse(a.body!) as CustomerView).id));
      return core.store.tenants.get(t.tenant_id)!.customers.size > 1 && ids.size > 1;
    },
  },
  'idem-shared-across-tenants': {
    net: async (e) => {
      const key = randomUUID();
      const body = customerBody(1, { email: email() });
      await e.api.call('createCustomer', { body, idempotencyKey: key });
      const theirs = await e.beta.call('createCustomer', { body, idempotencyKey: key });
      return theirs.headers['idempotent-replayed'] === 'true' || theirs.status !== 201;
    },
  },
  'idem-case-insensitive': {
    net: async (e) => {
      const key = `Key-${randomUUID()}`;
      const body = customerBody(1, { email: email() });
      await e.api.call('createCustomer', { body, idempotencyKey: key });
      return (await e.api.call('createCustomer', { body, idempotencyKey: key.toLowerCase() })).headers['idempotent-replayed'] === 'true';
    },
  },
  'idem-truncated-keys': {
    net: async (e) => {
      const key = `${randomUUID()}${randomUUID()}`.slice(0, 60);
      const body = customerBody(1, { email: email() });
      await e.api.call('createCustomer', { body, idempotencyKey: `${key}a` });
      return (await e.api.call('createCustomer', { body, idempotencyKey: `${key}b` })).headers['idempotent-replayed'] === 'true';
    },
  },
  'idem-short-retention': {
    net: async (e) => {
      const key = randomUUID();
      const body = customerBody(1, { email: email() });
      await e.api.call('createCustomer', { body, idempotencyKey: key });
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(Date.now() + 5_000);
        return (await e.api.call('createCustomer', { body, idempotencyKey: key })).headers['idempotent-replayed'] !== 'true';
      } finally {
        vi.useRealTimers();
      }
    },
  },

  // --- Tenancy ---
  'tenant-isolation-broken': {
    net: async (e) => {
      const c = await e.flows.customer();
      return (await status(e.beta.call('getCustomer', { params: { customer_id: c.id } }))) === 200;
    },
  },
  'tenant-list-leak-page-two': {
    net: async (e) => {
      const theirs = await e.betaFlows.customer();
      for (let i = 0; i < 3; i++) await e.flows.customer();
      const first = await e.api.call<ListEnvelope<CustomerView>>('listCustomers', { query: { limit: 2 } });
      const second = await e.api.call<ListEnvelope<CustomerView>>('listCustomers', { query: { limit: 2, cursor: first.body.next_cursor! } });
      return second.body.data.some((c) => c.id === theirs.id);
    },
  },
  'tenant-header-trusted': { net: async (e) => (await status(e.api.call('listAccounts', { tenantId: e.sb.tenants[1]!.tenant_id }))) === 200 },
  'tenant-header-optional': { net: async (e) => (await status(e.api.call('listAccounts', { tenantId: null }))) === 200 },

  // --- Response contract ---
  'schema-drop-field': { net: async (e) => !('created_at' in (await e.api.call<CustomerView>('createCustomer', { body: customerBody(1) })).body) },
  'schema-wrong-type': { net: async (e) => typeof (await e.flows.account((await e.flows.customer()).id)).balance === 'number' },
  'schema-nested-drift': { net: async (e) => typeof (await e.flows.customer()).address.postal_code === 'number' },
  'text-plain-responses': { net: async (e) => (await e.api.call('listAccounts')).headers['content-type']!.startsWith('text/plain') },
  'undocumented-status': { net: async (e) => (await status(e.api.call('createCustomer', { body: customerBody(1) }))) === 200 },
  'no-location-header': { net: async (e) => (await e.api.call('createCustomer', { body: customerBody(1) })).headers['location'] === undefined },

  // --- Errors and input ---
  'stack-traces': { net: async (e) => LEAK_PATTERN.test((await e.api.raw('GET', 'no-such-path', { headers: good(e) })).text) },
  'problem-status-mismatch': { net: async (e) => ((await e.api.raw('GET', 'no-such-path', { headers: good(e) })).body as ProblemBody).status !== 404 },
  'malformed-json-500': { net: async (e) => (await status(e.api.call('createCustomer', { rawBody: '{"a":' }))) === 500 },
  'no-415': { net: async (e) => (await status(e.api.call('createCustomer', { body: customerBody(1), contentType: 'text/plain' }))) === 201 },
  'patch-json-refused': {
    net: async (e) => {
      const c = await e.flows.customer();
      return (await status(e.api.call('updateCustomer', { params: { customer_id: c.id }, body: { middle_name: 'Q' } }))) === 415;
    },
  },
  'no-413': {
    net: async (e) => (await status(e.api.call('createCustomer', { body: customerBody(1, { metadata: { pad: 'x'.repeat(2 * 1024 * 1024) } }) }))) !== 413,
  },
  'unbounded-limit': {
    net: async (e) => {
      for (let i = 0; i < 2; i++) await e.flows.customer();
      const res = await e.api.call<ListEnvelope<CustomerView>>('listCustomers', { query: { limit: 150 } });
      return res.status === 200;
    },
  },
  'validation-skip-required': {
    net: async (e) => {
      const body = customerBody(1);
      delete body['email'];
      return (await status(e.api.call('createCustomer', { body }))) === 201;
    },
  },
  'mass-assignment': {
    net: async (e) => {
      const c = await e.flows.customer();
      const res = await e.api.call<AccountView>('createAccount', { body: { customer_id: c.id, currency: 'USD', type: 'checking', balance: '1000.00', status: 'active' } });
      return res.status === 201 && res.body.balance === '1000.00';
    },
  },
  'validation-errors-unnamed': {
    net: async (e) => {
      const res = await e.api.call<ProblemBody>('createCustomer', { body: customerBody(1, { phone: '12' }) });
      expect(res.status).toBe(400);
      return res.body.errors === undefined;
    },
  },
  'date-format-unchecked': { net: async (e) => (await status(e.api.call('createCustomer', { body: customerBody(1, { date_of_birth: '10/12/1990' }) }))) === 201 },
  'phone-format-unchecked': { net: async (e) => (await status(e.api.call('createCustomer', { body: customerBody(1, { phone: '14155550123' }) }))) === 201 },
  'country-format-unchecked': {
    net: async (e) => {
      const address = { address_line1: '1 Main St', city: 'Austin', country: 'USA', postal_code: '73301', state: 'US-TX' };
      return (await status(e.api.call('createCustomer', { body: customerBody(1, { address }) }))) === 201;
    },
  },
  'state-format-unchecked': {
    net: async (e) => {
      const address = { address_line1: '1 Main St', city: 'Austin', country: 'US', postal_code: '73301', state: 'TX' };
      return (await status(e.api.call('createCustomer', { body: customerBody(1, { address }) }))) === 201;
    },
  },
  'customer-type-individual-refused': { net: async (e) => (await status(e.api.call('createCustomer', { body: customerBody(1, { type: 'individual' }) }))) === 422 },
  'customer-not-stored': {
    net: async (e) => {
      const c = await e.api.call<CustomerView>('createCustomer', { body: customerBody(1) });
      expect(c.status).toBe(201);
      return (await status(e.api.call('getCustomer', { params: { customer_id: c.body.id } }))) === 404;
    },
  },
  'accounts-list-empty': {
    net: async (e) => {
      const a = await e.flows.account((await e.flows.customer()).id);
      const list = await e.api.call<ListEnvelope<AccountView>>('listAccounts', { query: { limit: 100 } });
      return !list.body.data.some((x) => x.id === a.id);
    },
  },

  // --- HTTP and pagination ---
  'unknown-path-500': { net: async (e) => (await e.api.raw('GET', 'no-such-path', { headers: good(e) })).status === 500 },
  'no-405': { net: async (e) => (await e.api.raw('PUT', 'accounts', { headers: good(e) })).status !== 405 },
  'unknown-id-500': { net: async (e) => (await status(e.api.call('getCustomer', { params: { customer_id: 'cus_0000000000000000' } }))) === 500 },
  'pagination-repeats': {
    net: async (e) => {
      for (let i = 0; i < 3; i++) await e.flows.customer();
      const first = await e.api.call<ListEnvelope<CustomerView>>('listCustomers', { query: { limit: 1 } });
      const second = await e.api.call<ListEnvelope<CustomerView>>('listCustomers', { query: { limit: 1, cursor: first.body.next_cursor! } });
      return second.body.data[0]!.id === first.body.data[0]!.id;
    },
  },

  // --- Transport and versioning ---
  'plain-http-processed': { net: async (e) => (await e.api.raw('GET', `${e.sb.plain_http_url!}accounts`, { headers: good(e) })).status !== 403 },
  'plain-http-redirect': { net: async (e) => (await e.api.raw('GET', `${e.sb.plain_http_url!}accounts`, { headers: good(e) })).status === 301 },
  'version-ignored': { net: async (e) => (await e.api.raw('GET', `${new URL(e.sb.base_url).origin}/v2/accounts`, { headers: good(e) })).status === 200 },
  'unversioned-base-path': {
    net: async (e) => {
      expect((await e.api.raw('GET', `${e.sb.base_url}accounts`, { headers: good(e) })).status).toBe(200);
      return !e.sb.base_url.endsWith('/v1/');
    },
  },

  // --- Groups and webhooks ---
  'group-missing-transactions': { net: async (e) => (await status(e.api.call('listTransactions'))) === 404 },
  'webhooks-unsigned': {
    net: async (e) => {
      const c = await e.flows.customer();
      const [r] = await deliveriesOf(c.id);
      return !verify(e.sb.webhook_secret, r!.headers, r!.body).ok;
    },
  },
  'webhooks-wrong-secret': {
    net: async (e) => {
      const c = await e.flows.customer();
      const [r] = await deliveriesOf(c.id);
      return verify(e.sb.webhook_secret, r!.headers, r!.body).ok === false && r!.headers['webhook-signature'] !== undefined;
    },
  },
  'webhooks-no-retry': {
    net: async (e) => {
      const address = email();
      failFirst.add(address);
      const c = await e.flows.customer({ email: address });
      await deliveriesOf(c.id);
      const ev = await eventFor(e, c.id);
      const d = await eventually(
        () => e.api.call<ListEnvelope<DeliveryView>>('listWebhookDeliveries', { query: { event_id: ev.id } }),
        (r) => r.body.data[0]?.status !== 'pending',
      );
      return d.body.data[0]!.status === 'failed' && d.body.data[0]!.attempts.length === 1;
    },
  },
  'webhooks-new-id-on-retry': {
    net: async (e) => {
      const address = email();
      failFirst.add(address);
      const c = await e.flows.customer({ email: address });
      const [a, b] = await deliveriesOf(c.id, 2);
      return a!.headers['webhook-id'] !== b!.headers['webhook-id'];
    },
  },
  'webhooks-not-delivered': {
    // A delivery record is made when the event is; none means nothing will be sent.
    net: async (e) => {
      const c = await e.flows.customer();
      const ev = await eventFor(e, c.id);
      return (await e.api.call<ListEnvelope<DeliveryView>>('listWebhookDeliveries', { query: { event_id: ev.id } })).body.data.length === 0;
    },
  },
  'webhooks-history-incomplete': {
    net: async (e) => {
      const ids = [(await e.flows.customer()).id, (await e.flows.customer()).id];
      for (const id of ids) {
        const ev = await eventFor(e, id);
        const list = await e.api.call<ListEnvelope<DeliveryView>>('listWebhookDeliveries', { query: { event_id: ev.id } });
        if (list.body.data.length === 0) return true;
      }
      return false;
    },
  },
  'events-not-viewable': {
    net: async (e) => {
      const c = await e.flows.customer();
      const ev = await eventFor(e, c.id);
      return (await status(e.api.call('getWebhookEvent', { params: { event_id: ev.id } }))) === 404;
    },
  },
  'event-details-differ': {
    net: async (e) => {
      const c = await e.flows.customer();
      const [r] = await deliveriesOf(c.id);
      const ev = JSON.parse(r!.body) as EventView;
      return (await e.api.call('getWebhookEvent', { params: { event_id: ev.id } })).text !== r!.body;
    },
  },

  // --- Group flows ---
  'kyc-skip-review': {
    net: async (e) => {
      const c = await e.flows.approvedCustomer();
      const kyc = await e.api.call<KycVerificationView>('getKycStatus', { params: { customer_id: c.id } });
      return !kyc.body.history.some((h) => h.status === 'in_review');
    },
  },
  'kyc-reject-ignored': {
    net: async (e) => {
      const c = await e.flows.customer();
      const doc = await e.flows.document(c.id);
      await e.api.call('submitKyc', { params: { customer_id: c.id }, body: { id_type: 'passport', id_number: '000000000', document_ids: [doc.id] } });
      return (await e.api.call<KycVerificationView>('getKycStatus', { params: { customer_id: c.id } })).body.status === 'approved';
    },
  },
  'kyc-documents-not-listed': {
    net: async (e) => {
      const c = await e.flows.customer();
      await e.flows.document(c.id);
      return (await e.api.call<ListEnvelope<unknown>>('listKycDocuments', { params: { customer_id: c.id } })).body.data.length === 0;
    },
  },
  'features-without-kyc': {
    net: async (e) => {
      const c = await e.flows.customer();
      return (await status(e.api.call('activateFeature', { params: { customer_id: c.id, feature: 'cards' }, body: {} }))) === 200;
    },
  },
  'features-double-activation': {
    net: async (e) => {
      const c = await e.flows.approvedCustomer(['fx']);
      return (await status(e.api.call<FeatureView>('activateFeature', { params: { customer_id: c.id, feature: 'fx' }, body: {} }))) === 200;
    },
  },
  'account-nonzero-opening-balance': { net: async (e) => (await e.flows.account((await e.flows.customer()).id)).balance !== '0.00' },
  'external-account-full-number': {
    net: async (e) => {
      const c = await e.flows.customer();
      const res = await e.api.call<ExternalAccountView>('createExternalAccount', {
        body: { customer_id: c.id, account_holder_name: 'A', bank_name: 'B', country: 'US', currency: 'USD', account_number: '000123456789' },
      });
      return res.text.includes('000123456789');
    },
  },
  'collections-no-credit': {
    net: async (e) => {
      const a = await e.flows.account((await e.flows.customer()).id);
      await e.api.call('createCollection', { body: { account_id: a.id, amount: '10.00', currency: 'USD', method: { type: 'bank_transfer', payer_name: 'P' } } });
      return (await e.flows.balance(a.id)) === '0.00';
    },
  },
  'collections-decline-ignored': {
    net: async (e) => {
      const a = await e.flows.account((await e.flows.customer()).id);
      const res = await e.api.call<CollectionView>('createCollection', { body: { account_id: a.id, amount: '10.00', currency: 'USD', method: card('4000000000000002') } });
      return res.body.status === 'succeeded';
    },
  },
  'transfer-no-credit': {
    net: async (e) => {
      const { a, b } = await fundedPair(e);
      await e.api.call('createTransfer', { body: { source_account_id: a.id, destination: { type: 'account', account_id: b.id }, amount: '5.00', currency: 'USD' } });
      return (await e.flows.balance(b.id)) === '0.00';
    },
  },
  'transfer-overdraft': {
    net: async (e) => {
      const { a, b } = await fundedPair(e);
      const res = await e.api.call('createTransfer', { body: { source_account_id: a.id, destination: { type: 'account', account_id: b.id }, amount: '50.01', currency: 'USD' } });
      return res.status === 201;
    },
  },
  'transfer-external-stuck': {
    net: async (e) => {
      const { c, a } = await fundedPair(e);
      const ext = await e.api.call<ExternalAccountView>('createExternalAccount', {
        body: { customer_id: c.id, account_holder_name: 'A', bank_name: 'B', country: 'US', currency: 'USD', account_number: '1234567' },
      });
      const tr = await e.api.call<TransferView>('createTransfer', {
        body: { source_account_id: a.id, destination: { type: 'external_account', external_account_id: ext.body.id }, amount: '5.00', currency: 'USD' },
      });
      return (await e.api.call<TransferView>('getTransfer', { params: { transfer_id: tr.body.id } })).body.status === 'processing';
    },
  },
  'card-transition-unchecked': {
    net: async (e) => {
      const c = await e.flows.approvedCustomer(['cards']);
      const a = await e.flows.account(c.id);
      const issued = await e.api.call<CardView>('issueCard', { body: { customer_id: c.id, account_id: a.id, type: 'virtual' } });
      return (await status(e.api.call('unfreezeCard', { params: { card_id: issued.body.id }, body: {} }))) === 200;
    },
  },
  'card-without-feature': {
    net: async (e) => {
      const c = await e.flows.approvedCustomer();
      const a = await e.flows.account(c.id);
      return (await status(e.api.call('issueCard', { body: { customer_id: c.id, account_id: a.id, type: 'virtual' } }))) === 201;
    },
  },
  'card-full-number': {
    net: async (e) => {
      const c = await e.flows.approvedCustomer(['cards']);
      const a = await e.flows.account(c.id);
      return /\d{12,19}/.test((await e.api.call('issueCard', { body: { customer_id: c.id, account_id: a.id, type: 'virtual' } })).text);
    },
  },
  'wallet-any-network': {
    net: async (e) => {
      const c = await e.flows.approvedCustomer(['crypto_wallets']);
      return (await status(e.api.call('createWallet', { body: { customer_id: c.id, asset: 'BTC', network: 'ethereum' } }))) === 201;
    },
  },
  'fx-wrong-rate': {
    net: async (e) => {
      const c = await e.flows.approvedCustomer(['fx']);
      const [usd, eur] = [await e.flows.account(c.id), await e.flows.account(c.id, 'EUR')];
      await e.flows.fund(usd, '100.00');
      const q = await e.api.call<FxQuoteView>('createFxQuote', { body: { source_currency: 'USD', target_currency: 'EUR', source_amount: '100.00' } });
      const t = await e.api.call<FxTradeView>('createFxTrade', { body: { quote_id: q.body.id, source_account_id: usd.id, target_account_id: eur.id } });
      return t.body.target_amount !== '92.00' || (await e.flows.balance(eur.id)) !== '92.00';
    },
  },
  'fx-quote-reuse': {
    net: async (e) => {
      const c = await e.flows.approvedCustomer(['fx']);
      const [usd, eur] = [await e.flows.account(c.id), await e.flows.account(c.id, 'EUR')];
      await e.flows.fund(usd, '100.00');
      const q = await e.api.call<FxQuoteView>('createFxQuote', { body: { source_currency: 'USD', target_currency: 'EUR', source_amount: '10.00' } });
      const trade = { quote_id: q.body.id, source_account_id: usd.id, target_account_id: eur.id };
      await e.api.call('createFxTrade', { body: trade });
      return (await status(e.api.call('createFxTrade', { body: trade }))) === 201;
    },
  },
  'fx-rates-empty': { net: async (e) => (await e.api.call<ListEnvelope<unknown>>('listFxRates')).body.data.length === 0 },
  'transactions-filter-ignored': {
    net: async (e) => {
      const { a, b } = await fundedPair(e);
      await e.flows.fund(b, '1.00');
      const list = await e.api.call<ListEnvelope<TransactionView>>('listTransactions', { query: { account_id: a.id, limit: 100 } });
      return list.body.data.some((t) => t.account_id !== a.id);
    },
  },
  // --- Valid input that crashes: a customer valid for the document, with one kind of value ---
  'crash-non-ascii': { net: async (e) => (await crashes(e, { first_name: 'Zoë' })) },
  'refuse-non-ascii-name': { net: async (e) => (await status(e.api.call('createCustomer', { body: customerBody(1, { last_name: 'Zoë' }) }))) === 422 },
  'crash-plus-email': { net: async (e) => (await crashes(e, { email: `ana+${randomUUID()}@example.com` })) },
  'crash-emoji': { net: async (e) => (await crashes(e, { first_name: 'Zo\u{1F600}' })) },
  'crash-rtl': { net: async (e) => (await crashes(e, { first_name: 'שלום' })) },
  'crash-combining-mark': { net: async (e) => (await crashes(e, { first_name: 'Zoe\u0308' })) },
  'crash-backslash': { net: async (e) => (await crashes(e, { first_name: 'Zo\\e' })) },
  'crash-double-quote': { net: async (e) => (await crashes(e, { first_name: 'Zo"e' })) },
  'crash-percent': { net: async (e) => (await crashes(e, { first_name: 'Zo%e' })) },
  'crash-max-length': { net: async (e) => (await crashes(e, { first_name: 'z'.repeat(100) })) },
  'crash-long-domain': { net: async (e) => (await crashes(e, { email: `p-${randomUUID()}@${'d'.repeat(40)}.example.com` })) },
};

describe('fault registry', () => {
  it('names each fault once, with a description and requirement ids that exist in the catalogue', () => {
    const catalogue = loadRequirements(REQUIREMENTS_PATH);
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
    for (const f of FAULTS) {
      expect(f.name, f.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(f.description.length, f.name).toBeGreaterThan(10);
      // A fault breaks a requirement, or says it breaks none on purpose and what the run shows instead.
      if (f.suggests === undefined) expect(f.breaks.length, f.name).toBeGreaterThan(0);
      else expect(f.breaks, f.name).toEqual([]);
      for (const id of f.breaks) expect(catalogue.byId.has(id), `${f.name} breaks ${id}`).toBe(true);
    }
    expect(Object.keys(PROBES).sort()).toEqual(FAULTS.map((f) => f.name).sort());
  });

  it('is documented in docs/sandbox.md, fault by fault, with the same requirements', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', 'docs', 'sandbox.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z0-9-]+)` \| ([^|]+) \|/gm)].map((m) => [m[1]!, m[2]!.trim() === 'none (a suggestion)' ? [] : m[2]!.split(',').map((b) => `FSAPI-${b.trim()}`)]);
    expect(rows).toEqual(FAULTS.map((f) => [f.name, f.breaks]));
  });

  it('refuses an unknown fault name with a UsageError naming the nearest one', () => {
    expect(() => parseFaults(['idem-ignore'])).toThrow(UsageError);
    expect(() => parseFaults(['idem-ignore'])).toThrow('unknown fault "idem-ignore" (did you mean "idem-ignored"?)');
    expect(() => parseFaults(['webhooks-unsigned-please'])).toThrow(/did you mean "webhooks-unsigned"/);
    expect([...parseFaults([' no-405 ', ''])]).toEqual(['no-405']);
  });
});

/** Probes that move the clock (vi.setSystemTime) run alone: Date is global to the concurrent probes. */
const MOVES_CLOCK = new Set<FaultName>(['idem-short-retention']);

async function judge(name: FaultName): Promise<void> {
  const probe = PROBES[name];
  if ('core' in probe) {
    for (const [faults, broken] of [
      [[], false],
      [[name], true],
    ] as const) {
      const core = await createCore({ faults: [...faults] });
      try {
        expect(await probe.core(core), `${name} ${broken ? 'on' : 'off'}`).toBe(broken);
      } finally {
        await core.close();
      }
    }
    return;
  }
  expect(await probe.net(clean), `${name} off`).toBe(false);
  const env = await open([name]);
  try {
    expect(await probe.net(env), `${name} on`).toBe(true);
  } finally {
    await shut(env);
  }
}

describe.concurrent('each fault breaks its behaviour, which is intact without it', () => {
  for (const f of FAULTS) if (!MOVES_CLOCK.has(f.name as FaultName)) it(f.name, () => judge(f.name as FaultName));
});

describe('each fault that moves the clock, alone', () => {
  for (const name of MOVES_CLOCK) it(name, () => judge(name));
});
