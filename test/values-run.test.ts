/**
 * A run on a small vendor document of our own (test/fixtures/values/vendor.yaml) against a loopback server that
 * implements it: parameters from the target's answers (a list, a nested list, a declared link, a query parameter),
 * values made from schemas where nothing better exists, form and JSON bodies as the document says, no body on a GET,
 * the documented Accept, and the rule on made-up values (a 404 for a made-up widget is a skipped prerequisite, while
 * a 200 without a key on it is still an auth failure).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/results/model.js';
import { fromRoot } from '../src/paths.js';
import { runCli } from './helpers/cli.js';
import { httpsServer, json, type Cert, type TestServer } from './helpers/servers.js';
import { busy } from './helpers/busy.js';

const KEY = 'sk_test_values_fixture';
const CARD: Record<string, string> = { token: 'card_abc123', state: 'OPEN' };
const STATEMENT = '7f8a2c9e-1d3b-4e5f-9a6b-0c1d2e3f4a5b';

let server: TestServer & { cert: Cert };
let report: RunReport;
let code: number | null;
const dir = mkdtempSync(join(tmpdir(), 'fsapi-values-'));

beforeAll(async () => {
  server = await httpsServer((req, res, body) => {
    const u = new URL(req.url ?? '/', 'https://x');
    const path = u.pathname.replace(/^\/v1/, '');
    const key = req.headers['api-key'];
    if (req.method === 'GET' && path.startsWith('/widgets/')) {
      // An authorisation hole on an id nobody made: without a key it serves anyway.
      if (key === undefined) return json(res, 200, { leaked: true }, { 'content-type': 'application/vnd.api+json' });
      if (!String(req.headers['accept']).includes('application/vnd.api+json')) return json(res, 406, { message: 'ask for application/vnd.api+json' });
      return json(res, 404, { message: 'no such widget' });
    }
    if (key !== KEY) return json(res, 401, { message: 'unauthorised' }, { 'www-authenticate': 'ApiKey' });
    const route = `${req.method} ${path}`;
    if (route === 'GET /cards') return json(res, 200, { data: [CARD], has_more: false });
    if (route === 'POST /cards') return String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded') && body.includes('memo=') ? json(res, 201, CARD) : json(res, 415, { message: 'a form, please' });
    if (route === `GET /cards/${CARD.token}`) return json(res, 200, CARD);
    if (route === `PATCH /cards/${CARD.token}`) {
      // Every valid update changes the one card every check reads: other checks' writes land on it too.
      Object.assign(CARD, { memo: `m${server.requests.length}` });
      return json(res, 200, CARD);
    }
    if (route === 'GET /ledgers') return json(res, 200, [{ id: 42, name: 'main' }]);
    if (route === 'GET /ledgers/42/statements') return json(res, 200, { items: [{ statement_id: STATEMENT, period: '2026-10' }] });
    if (route === `GET /ledgers/42/statements/${STATEMENT}`) return json(res, 200, { statement_id: STATEMENT, period: '2026-10' });
    if (route === 'GET /transactions') return u.searchParams.get('ledgerId') === '42' ? json(res, 200, {}) : json(res, 404, { message: 'no such ledger' });
    if (route === 'POST /transfers') {
      try {
        return json(res, 201, { id: 'tr_1', amount: (JSON.parse(body) as { amount: number }).amount });
      } catch {
        return json(res, 400, { message: 'malformed JSON' });
      }
    }
    if (route === 'GET /payments/tr_1') return json(res, 200, { id: 'tr_1', amount: 5 });
    if (route === 'GET /widgets') return json(res, 200, {});
    if (route === 'GET /ledger-accounts') return json(res, 200, { data: [{ id: 'la_1', amount: 1 }] });
    if (route === 'GET /ledger-accounts/la_1') return json(res, 200, { id: 'la_1', amount: 1 });
    return json(res, 404, { message: 'not found' });
  });
  writeFileSync(join(dir, 'ca.pem'), server.cert.cert);
  const r = await runCli(['run', '--spec', fromRoot('test', 'fixtures', 'values', 'vendor.yaml'), '--seed', '5', '--report-dir', join(dir, 'r')], {
    FSAPI_BASE_URL: server.url,
    FSAPI_API_KEY: KEY,
    FSAPI_TENANT_ID: 'tenant_values',
    FSAPI_CA_FILE: join(dir, 'ca.pem'),
    FSAPI_RATE_LIMIT: '0',
  });
  code = r.code;
  report = JSON.parse(readFileSync(join(dir, 'r', 'latest', 'conformance.json'), 'utf8')) as RunReport;
}, busy(240_000));

afterAll(() => server.close());

const sent = (method: string, path: string) => server.requests.filter((r) => r.method === method && r.url.replace(/\?.*$/, '') === `/v1${path}`);
const check = (requirement: string, operation: string, variant?: string) => report.checks.find((c) => c.requirement === requirement && c.operation === operation && (!variant || c.id.endsWith(` ${variant}`)));

describe('values on a vendor document', { timeout: busy(60_000) }, () => {
  it('runs to a verdict with no suite error', () => {
    expect(code).toBe(1);
    expect(report.checks.filter((c) => c.status === 'error').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
  });

  it('takes path parameters from the target: a list item, a nested list under its parent, a declared link', () => {
    expect(sent('GET', `/cards/${CARD.token}`).length).toBeGreaterThan(0);
    expect(sent('GET', `/ledgers/42/statements/${STATEMENT}`).length).toBeGreaterThan(0);
    expect(sent('GET', '/payments/tr_1').length).toBeGreaterThan(0);
    // The producer is asked once in the suite, however many checks use its answer; each carries the exchange.
    const fromList = (x: { request: { method: string; url: string } }) => x.request.method === 'GET' && x.request.url.endsWith('/v1/cards');
    const users = report.checks.filter((c) => c.operation === 'cards.get' && c.exchanges.some(fromList));
    expect(users.length).toBeGreaterThan(3);
    expect(new Set(users.flatMap((c) => c.exchanges.filter(fromList).map((x) => x.started_at))).size).toBe(1);
    const get = check('FSAPI-CONTRACT-004', 'statements.get')!;
    expect(get.status).toBe('passed');
    expect(get.exchanges.some((x) => x.request.url.endsWith('/ledgers/42/statements'))).toBe(true);
  });

  it("falls back to the target's values when the driver of the reference operation it plays cannot build its request", () => {
    expect(sent('GET', '/ledger-accounts/la_1').length).toBeGreaterThan(0);
    expect(check('FSAPI-CONTRACT-004', 'getAccount')!.status).toBe('passed');
  });

  it('takes a required query parameter that names a resource from that resource list (an integer id)', () => {
    const asked = sent('GET', '/transactions').filter((r) => r.headers['api-key'] === KEY);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((r) => new URL(r.url, 'https://x').searchParams.get('ledgerId') === '42')).toBe(true);
    expect(check('FSAPI-CONTRACT-004', 'entries.list')!.status).toBe('passed');
  });

  it('sends bodies in the media type the document gives, valid for their schemas, and none on a GET', () => {
    const forms = sent('POST', '/cards').filter((r) => r.headers['api-key'] === KEY);
    expect(forms.length).toBeGreaterThan(0);
    for (const f of forms) {
      expect(f.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(decodeURIComponent(f.body)).toMatch(/(^|&)metadata\[team\]=ops(&|$)/);
    }
    const transfers = sent('POST', '/transfers').filter((r) => r.headers['api-key'] === KEY && r.headers['content-type'] === 'application/json');
    expect(transfers.length).toBeGreaterThan(0);
    const body = JSON.parse(transfers[0]!.body) as { currency: string; rail: { kind: string } };
    expect(body.currency).toMatch(/^[A-Z]{3}$/);
    expect(['ach', 'wire']).toContain(body.rail.kind);
    for (const r of sent('GET', `/cards/${CARD.token}`)) expect(r.body).toBe('');
  });

  it('asks for the media type an operation answers', () => {
    const keyed = server.requests.filter((r) => r.url.startsWith('/v1/widgets/') && r.headers['api-key'] === KEY);
    expect(keyed.length).toBeGreaterThan(0);
    for (const r of keyed) expect(r.headers['accept']).toBe('application/vnd.api+json');
  });

  it('a 404 for a made-up id is a skipped prerequisite; a 200 without a key on it is still an auth failure', () => {
    const valid = check('FSAPI-CONTRACT-004', 'widgets.get')!;
    expect(valid.status).toBe('skipped');
    expect(valid.skip_cause).toBe('prerequisite');
    expect(valid.message).toMatch(/made-up path widget_ref=wg_[a-f0-9]{8}/);
    expect(check('FSAPI-AUTH-001', 'widgets.get')!.status).toBe('failed');
    // The undocumented 404 is the suite's doing: not the target's contract failure.
    expect(check('FSAPI-CONTRACT-002', 'widgets.get')?.status).not.toBe('failed');
  });

  it("does not judge a write's effect by re-reading a resource other checks share", () => {
    const noEffect = check('FSAPI-AUTH-007', 'cards.update', 'no-key-no-effect')!;
    expect(noEffect.status).toBe('skipped');
    expect(noEffect.message).toMatch(/did not make for itself/);
  });

  it('shows where each value comes from in conformance.json', () => {
    const sources = report.spec.value_sources ?? [];
    expect(sources).toContainEqual(expect.objectContaining({ operation: 'cards.get', parameter: 'card_token', producer: 'cards.list', via: 'inferred', active: true }));
    expect(sources).toContainEqual(expect.objectContaining({ operation: 'payouts.read', producer: 'payouts.create', via: 'link', confidence: 1 }));
    expect(sources).toContainEqual(expect.objectContaining({ operation: 'widgets.get', active: false }));
  });
});
