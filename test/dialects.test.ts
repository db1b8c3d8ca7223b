/**
 * Self-verification on targets spelled otherwise: four vendor dialects of the reference profile (test/dialects/),
 * each served by a translating proxy in front of the sandbox. Here: the documents are valid OpenAPI 3.1 and
 * describe what the proxy serves, the proxy translates a few hand-checked requests, and a plain run against each
 * dialect completes. (The end-to-end `bind` then `run --binding` per dialect is in bench/dialects.ts; to gate on
 * it here, run `bind --spec target.specPath` then `run --binding` with `targetEnv(target)`.)
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadSpec, type SpecDocument } from '../src/catalogue/index.js';
import type { RunReport } from '../src/results/model.js';
import { customerBody, Flows, SandboxClient } from './helpers/sandbox-client.js';
import { DIALECT_NAMES, type DialectName } from './dialects/definitions.js';
import { dialect, type JsonObject } from './dialects/dialect.js';
import { startDialectTarget, targetEnv, writeDialectFiles, type DialectTarget } from './dialects/target.js';
import { scoreBinding, type Binding } from './dialects/truth.js';
import { runCli } from './helpers/cli.js';
import { busy } from './helpers/busy.js';

interface Reply {
  status: number;
  headers: Record<string, string>;
  body: JsonObject;
}

/** Talks to a dialect target as its vendor's client would, and holds each answer to the dialect's document. */
class DialectClient {
  readonly agent: Agent;
  constructor(
    readonly target: DialectTarget,
    readonly spec: SpecDocument,
    caPem: string,
  ) {
    this.agent = new Agent({ connect: { ca: caPem } });
  }

  async send(method: string, path: string, body?: unknown, operationId?: string): Promise<Reply> {
    const headers: Record<string, string> = { 'api-key': this.target.apiKey, 'x-tenant-id': this.target.tenantId };
    if (method === 'POST') headers['idempotency-key'] = crypto.randomUUID();
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await request(`${this.target.baseUrl}${path.replace(/^\//, '')}`, { method: method as 'GET', headers, body: body === undefined ? undefined : JSON.stringify(body), dispatcher: this.agent });
    const text = await res.body.text();
    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h[k] = v;
    const parsed = (text ? JSON.parse(text) : {}) as JsonObject;
    if (operationId) {
      const op = this.spec.byId.get(operationId);
      if (!op) throw new Error(`the dialect document has no ${operationId}`);
      const verdict = this.spec.validateResponse(op, res.statusCode, h['content-type'], parsed);
      expect(verdict.kind, `${operationId} ${res.statusCode}: ${JSON.stringify(verdict)}\n${text.slice(0, 400)}`).toBe('ok');
    }
    return { status: res.statusCode, headers: h, body: parsed };
  }
}

async function open(name: DialectName): Promise<{ target: DialectTarget; api: DialectClient; flows: Flows; close(): Promise<void> }> {
  const target = await startDialectTarget(name);
  const spec = await loadSpec(target.specPath);
  const api = new DialectClient(target, spec, readFileSync(target.caFile, 'utf8'));
  const direct = new SandboxClient(target.sandbox, await loadSpec(join(import.meta.dirname, '..', 'spec', 'openapi.yaml')), target.sandbox.tenants[0]!);
  return {
    target,
    api,
    flows: new Flows(direct),
    async close() {
      await api.agent.close();
      await direct.close();
      await target.close();
    },
  };
}

describe('dialect documents', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-dialects-'));

  it.each(DIALECT_NAMES)('%s: a valid OpenAPI 3.1 document with all 46 operations under the vendor’s own ids', async (name) => {
    const files = writeDialectFiles(name, dir);
    const spec = await loadSpec(files.specPath);
    expect(spec.operations).toHaveLength(46);
    const d = dialect(name);
    for (const op of d.operations) expect(spec.byId.has(d.vendorOperationId(op.id)), op.id).toBe(true);
    const raw = parse(readFileSync(files.specPath, 'utf8')) as JsonObject;
    expect(raw['openapi']).toBe('3.1.0');
    expect(JSON.stringify(raw)).not.toContain('x-fsapi');
    // The seed's facts stay: POST /customers (with the seed's body fields) and GET /accounts, under /v1/.
    const paths = raw['paths'] as Record<string, JsonObject>;
    expect(Object.keys(paths['/customers'] ?? {})).toContain('post');
    expect(Object.keys(paths['/accounts'] ?? {})).toContain('get');
    const create = ((raw['components'] as JsonObject)['schemas'] as JsonObject)['CustomerCreate'] as JsonObject;
    expect(Object.keys(create['properties'] as JsonObject)).toEqual(expect.arrayContaining(['first_name', 'middle_name', 'last_name', 'date_of_birth', 'address']));
  });

  it('names and paths differ from the reference where a vendor would; the truth binding scores itself perfect and an empty one not', () => {
    expect(dialect('names').routes.filter((r) => r.refPath !== r.vendorPath).length).toBeGreaterThanOrEqual(15);
    expect(dialect('paths').routes.filter((r) => r.refPath.split('/')[1] !== r.vendorPath.split('/')[1]).length).toBeGreaterThanOrEqual(15);
    for (const name of DIALECT_NAMES) {
      const truth = parse(readFileSync(writeDialectFiles(name, dir).truthBindingPath, 'utf8')) as Binding;
      expect(scoreBinding(dialect(name), truth, truth).every((s) => s.right)).toBe(true);
      // "METHOD /path" names the same vendor operation as its operationId; identity path_params are no entry.
      const spelled = structuredClone(truth);
      const op = dialect(name).operations.find((o) => o.id === 'getCard')!;
      spelled.operations['getCard']!.operation = `GET ${dialect(name).routes.find((r) => r.refPath === op.refPath)!.vendorPath}`;
      spelled.operations['listAccounts']!.path_params = { tenant: 'tenant' };
      expect(scoreBinding(dialect(name), truth, spelled).every((s) => s.right)).toBe(true);
      spelled.operations['getCard']!.operation = 'GET /cards/{nope}/x';
      expect(scoreBinding(dialect(name), truth, spelled).filter((s) => !s.right).map((s) => `${s.kind} ${s.key}`)).toEqual(['operation getCard']);
      expect(scoreBinding(dialect(name), truth, { binding: 1, operations: {} }).filter((s) => s.right).length).toBeLessThan(scoreBinding(dialect(name), truth, truth).length / 2);
    }
  });
});

describe('the translating proxy', () => {
  let paths: Awaited<ReturnType<typeof open>>;
  let shapes: Awaited<ReturnType<typeof open>>;
  let names: Awaited<ReturnType<typeof open>>;
  let conventions: Awaited<ReturnType<typeof open>>;
  beforeAll(async () => {
    [paths, shapes, names, conventions] = await Promise.all([open('paths'), open('shapes'), open('names'), open('conventions')]);
  });
  afterAll(async () => {
    await Promise.all([paths?.close(), shapes?.close(), names?.close(), conventions?.close()]);
  });

  it('conventions: CUST- ids, result envelopes, UPPERCASE values both ways, offset lists with totals, {error: {code, message}}, PascalCase event filters', async () => {
    const created = await conventions.api.send('POST', '/customers', customerBody(11), 'createCustomer');
    expect(created.status).toBe(201);
    const customer = created.body['result'] as JsonObject;
    expect(customer['id']).toMatch(/^CUST-[A-Za-z0-9]{16}$/);
    expect(customer).toMatchObject({ object: 'CUSTOMER', type: 'individual', kycStatus: 'NOT_STARTED' });
    const id = String(customer['id']);
    const doc = await conventions.api.send('POST', `/customers/${id}/kyc/documents`, { type: 'PASSPORT', side: 'FRONT', fileName: 'p.png', contentType: 'image/png', content: 'iVBORw0KGgo=' }, 'uploadKycDocument');
    expect(doc.status, JSON.stringify(doc.body)).toBe(201);
    expect(doc.body['result']).toMatchObject({ type: 'PASSPORT', status: 'UPLOADED', customerId: id });
    const feature = await conventions.api.send('GET', `/customers/${id}/features/CARDS`, undefined, 'getFeatureEligibility');
    expect(feature.body['result']).toMatchObject({ name: 'CARDS', status: 'INACTIVE', reasons: ['KYC_NOT_APPROVED'] });
    await conventions.api.send('POST', '/customers', customerBody(12), 'createCustomer');
    await conventions.api.send('POST', '/customers', customerBody(13), 'createCustomer');
    const page1 = await conventions.api.send('GET', '/customers?limit=2', undefined, 'listCustomers');
    expect(Object.keys(page1.body).sort()).toEqual(['results', 'total']);
    expect(page1.body['results']).toHaveLength(2);
    const total = Number(page1.body['total']);
    expect(total).toBeGreaterThanOrEqual(3);
    // Objects created during a walk do not shift its pages: the walk holds the list as it was at offset 0.
    await conventions.api.send('POST', '/customers', customerBody(14), 'createCustomer');
    const page2 = await conventions.api.send('GET', '/customers?limit=2&offset=2', undefined, 'listCustomers');
    expect(page2.body['total']).toBe(total);
    const seen = [...(page1.body['results'] as JsonObject[]), ...(page2.body['results'] as JsonObject[])].map((c) => c['id']);
    expect(new Set(seen).size).toBe(seen.length);
    // Another list of the same query is another walk (the snapshot is the list's own).
    const accounts = await conventions.api.send('GET', '/accounts?limit=2&offset=2', undefined, 'listAccounts');
    expect((accounts.body['results'] as JsonObject[]).every((a) => String(a['id']).startsWith('ACCT-'))).toBe(true);
    const bad = await conventions.api.send('GET', '/customers/CUST-0000000000000000');
    expect(bad.status).toBe(404);
    expect(bad.headers['content-type']).toMatch(/^application\/json/);
    expect(bad.body).toEqual({ error: { code: 'not_found', message: expect.stringMatching(/No customer cus_0000000000000000/) } });
    const events = await conventions.api.send('GET', '/webhooks/events?type=CustomerCreated&limit=100', undefined, 'listWebhookEvents');
    expect(events.status).toBe(200);
    const mine = (events.body['results'] as JsonObject[]).filter((e) => ((e['data'] as JsonObject)['object'] as JsonObject)['id'] === id);
    expect(mine.map((e) => e['type'])).toEqual(['CustomerCreated']);
    expect((await conventions.api.send('GET', '/webhooks/events?type=customer.created')).status).toBe(400);
  });

  it('paths: a moved resource answers at the vendor’s path in its document’s shape; the reference path is unknown there', async () => {
    const created = await paths.api.send('POST', '/customers', customerBody(7), 'CreateCustomer');
    expect(created.status).toBe(201);
    const id = String(created.body['id']);
    const kyc = await paths.api.send('GET', `/identity-verifications/${id}`, undefined, 'GetIdentityVerification');
    expect(kyc.body).toMatchObject({ object: 'kyc_verification', customer_id: id, status: 'not_started' });
    expect((await paths.api.send('GET', `/customers/${id}/kyc`)).status).toBe(404);
    expect((await paths.api.send('GET', '/transfers')).status).toBe(404);
    const caps = await paths.api.send('GET', `/customers/${id}/capabilities`, undefined, 'ListCapabilities');
    expect((caps.body['data'] as JsonObject[]).map((f) => f['name'])).toContain('cards');
    // A create's Location names the vendor's path, not the reference's.
    const account = await paths.api.send('POST', '/accounts', { customer_id: id, currency: 'USD', type: 'checking' }, 'OpenAccount');
    const cp = await paths.api.send(
      'POST',
      '/counterparties',
      { customer_id: id, account_holder_name: 'Ada Lovelace', bank_name: 'First Example Bank', country: 'US', currency: 'USD', account_number: '000123456789', routing_number: '021000021' },
      'CreateCounterparty',
    );
    expect(account.status).toBe(201);
    expect(cp.status, JSON.stringify(cp.body)).toBe(201);
    expect(cp.headers['location']).toMatch(new RegExp(`/v1/counterparties/${String(cp.body['id'])}$`));
    // A known vendor path with a method it does not take: 405 with Allow, as the sandbox says for the reference path.
    const wrong = await paths.api.send('DELETE', `/identity-verifications/${id}`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers['allow']).toMatch(/GET/);
  });

  it('shapes: resources enveloped, camelCase members, other state names, items/next_page_token lists with page_token', async () => {
    const created = await shapes.api.send('POST', '/customers', customerBody(8), 'createCustomer');
    const customer = created.body['data'] as JsonObject;
    expect(customer).toMatchObject({ first_name: 'Ada', kycStatus: 'not_started' });
    expect(customer['createdAt']).toEqual(expect.any(String));
    expect(customer).not.toHaveProperty('created_at');
    await shapes.api.send('POST', '/customers', customerBody(9), 'createCustomer');
    const page1 = await shapes.api.send('GET', '/customers?page_size=1', undefined, 'listCustomers');
    expect(Object.keys(page1.body).sort()).toEqual(['items', 'next_page_token']);
    expect(page1.body['items']).toHaveLength(1);
    const token = page1.body['next_page_token'];
    expect(token).toEqual(expect.any(String));
    const page2 = await shapes.api.send('GET', `/customers?page_size=1&page_token=${encodeURIComponent(String(token))}`, undefined, 'listCustomers');
    expect((page2.body['items'] as JsonObject[])[0]!['id']).not.toBe((page1.body['items'] as JsonObject[])[0]!['id']);
    // A card (its prerequisites built on the sandbox directly) is `enabled`, then `locked` once frozen through the proxy.
    const owner = await shapes.flows.approvedCustomer(['cards']);
    const acc = await shapes.flows.account(owner.id);
    const issued = await shapes.api.send('POST', '/cards', { customerId: owner.id, accountId: acc.id, type: 'virtual' }, 'issueCard');
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    const card = { id: String((issued.body['data'] as JsonObject)['id']), customer_id: owner.id };
    const got = await shapes.api.send('GET', `/cards/${card.id}`, undefined, 'getCard');
    expect(got.body['data']).toMatchObject({ id: card.id, status: 'enabled', customerId: card.customer_id, accountId: acc.id });
    const frozen = await shapes.api.send('POST', `/cards/${card.id}/freeze`, {}, 'freezeCard');
    expect((frozen.body['data'] as JsonObject)['status']).toBe('locked');
    const locked = await shapes.api.send('GET', `/cards?customerId=${card.customer_id}&status=locked`, undefined, 'listCards');
    expect((locked.body['items'] as JsonObject[]).map((c) => c['id'])).toEqual([card.id]);
    // Problems pass through, their field pointers in the vendor's names.
    const bad = await shapes.api.send('POST', '/accounts', { customerId: 'nope', currency: 'USD', type: 'checking' });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    const fields = ((bad.body['errors'] as JsonObject[] | undefined) ?? []).map((e) => String(e['field']));
    expect(fields.join(' ')).not.toContain('customer_id');
  });

  it('names: the reference paths answer under the vendor’s parameter names and operationIds', async () => {
    const created = await names.api.send('POST', '/customers', customerBody(10), 'customers.create');
    const id = String(created.body['id']);
    const got = await names.api.send('GET', `/customers/${id}`, undefined, 'customers.retrieve');
    expect(got.body).toMatchObject({ id, object: 'customer', created_at: expect.any(String) });
    const feature = await names.api.send('GET', `/customers/${id}/features/cards`, undefined, 'customers.features.retrieve');
    expect(feature.body).toMatchObject({ name: 'cards', eligible: false });
  });
});

describe('a plain run against each dialect (no binding)', { timeout: busy(300_000) }, () => {
  it.each(DIALECT_NAMES)('%s: the run completes with a verdict and no internal error', async (name) => {
    const target = await startDialectTarget(name);
    try {
      const reportDir = mkdtempSync(join(tmpdir(), `fsapi-dialect-run-${name}-`));
      const r = await runCli(['run', '--groups', 'customers,accounts,cards', '--report-dir', reportDir], targetEnv(target));
      // Without a binding most reference operations are played by nothing: inconclusive (6) is the honest end.
      expect([0, 1, 6], r.stderr).toContain(r.code);
      const report = JSON.parse(readFileSync(join(reportDir, 'latest', 'conformance.json'), 'utf8')) as RunReport;
      expect(report.spec.reference_profile).toBe(false);
      expect(report.checks.length).toBeGreaterThan(0);
      // The target is the clean sandbox, served as its document says: whatever the suite cannot reach or read without
      // a binding is skipped with the fix, never the target's failure.
      expect(report.checks.filter((c) => c.status === 'failed' || c.status === 'error').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
      // The suite reached the target through the proxy, in the dialect's spelling.
      expect(target.proxy!.forwarded.length).toBeGreaterThan(0);
    } finally {
      await target.close();
    }
  });
});

describe('bind, then run through each dialect', { timeout: busy(600_000) }, () => {
  const groups = ['--groups', 'customers,kyc,accounts,cards', '--seed', '3'];
  const executedByLevel = (r: RunReport) => {
    const out: Record<string, number> = {};
    for (const c of r.checks) if (c.status !== 'skipped') out[c.level] = (out[c.level] ?? 0) + 1;
    return out;
  };
  let reference: RunReport;
  beforeAll(async () => {
    const t = await startDialectTarget('reference');
    try {
      const dir = mkdtempSync(join(tmpdir(), 'fsapi-dialect-ref-'));
      const r = await runCli(['run', ...groups, '--report-dir', dir], targetEnv(t));
      expect(r.code, r.stderr).toBe(0);
      reference = JSON.parse(readFileSync(join(dir, 'latest', 'conformance.json'), 'utf8')) as RunReport;
    } finally {
      await t.close();
    }
  });

  it.each(DIALECT_NAMES)('%s: bind finds every operation; the run through the binding is as conformant and nearly as deep as the reference run', async (name) => {
    const target = await startDialectTarget(name);
    try {
      const dir = mkdtempSync(join(tmpdir(), `fsapi-dialect-bound-${name}-`));
      const bindingPath = join(dir, 'binding.yaml');
      const bind = await runCli(['bind', '--spec', target.specPath, '--out', bindingPath], {});
      expect(bind.code, bind.stderr).toBe(0);
      const scores = scoreBinding(dialect(name), parse(readFileSync(target.truthBindingPath, 'utf8')) as Binding, parse(readFileSync(bindingPath, 'utf8')) as Partial<Binding>);
      expect(scores.filter((s) => (s.kind === 'operation' || s.kind === 'path_params') && !s.right)).toEqual([]);
      const r = await runCli(['run', '--spec', target.specPath, '--binding', bindingPath, ...groups, '--report-dir', join(dir, 'r')], targetEnv(target));
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const report = JSON.parse(readFileSync(join(dir, 'r', 'latest', 'conformance.json'), 'utf8')) as RunReport;
      expect(report.checks.filter((c) => c.status === 'failed' || c.status === 'error').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
      const mine = executedByLevel(report);
      for (const [level, n] of Object.entries(executedByLevel(reference))) expect((mine[level] ?? 0) / n, level).toBeGreaterThanOrEqual(0.95);
      expect(report.spec.operations?.filter((o) => o.status !== 'bound')).toEqual([]);
    } finally {
      await target.close();
    }
  });
});
