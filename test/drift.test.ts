/**
 * Behaviour drift against a baseline: per operation, statuses, success members and headers, and latency past the
 * threshold, from the exchanges the two reports kept. And a sandbox "release" (two faults switched on, and a
 * changed document) whose regression report names each change, the document's first.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { behaviourDrift, memberPaths } from '../src/regression/drift.js';
import { PARALLEL_BURST_CASE } from '../src/http/exchange.js';
import { describeDrift } from '../src/reports/regression-render.js';
import type { RecordedExchange, RunReport } from '../src/results/model.js';
import { fromRoot } from '../src/paths.js';
import { runCli } from './helpers/cli.js';
import { busy } from './helpers/busy.js';

const BASE = 'https://127.0.0.1:1/v1/';
const T0 = Date.parse('2026-11-27T00:00:00.000Z');

interface Sent {
  /** When it was sent, in ms after T0 (each request after the one before unless given). */
  at?: number;
  headers?: Record<string, string>;
  body?: string;
  probe?: string;
  case?: string;
}

let clock = 0;
function exchange(method: string, path: string, status: number, ms: number, body?: unknown, headers: Record<string, string> = {}, sent: Sent = {}): RecordedExchange {
  const at = sent.at ?? (clock += 1000);
  return {
    started_at: new Date(T0 + at).toISOString(),
    duration_ms: ms,
    request: { method, url: `${BASE}${path}`, headers: sent.headers ?? {}, ...(sent.body ? { body: sent.body } : {}) },
    response: { status, headers: { 'content-type': 'application/json', date: 'now', ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }), size_bytes: 10 },
    ...(sent.probe ? { probe: sent.probe } : {}),
    ...(sent.case ? { case: sent.case } : {}),
  };
}

const OPERATIONS = [
  { operation: 'createAccount', method: 'POST', path: '/accounts', exercised: true },
  { operation: 'getAccount', method: 'GET', path: '/accounts/{account_id}', exercised: true },
  { operation: 'listAccounts', method: 'GET', path: '/accounts', exercised: true },
  { operation: 'getWebhookEvent', method: 'GET', path: '/webhooks/events/{event_id}', exercised: true },
];

/** A report holding only what drift reads: the document's operations, the base URL and the checks' exchanges. */
function report(exchanges: RecordedExchange[] | Record<string, RecordedExchange[]>): RunReport {
  const checks = Array.isArray(exchanges) ? { c: exchanges } : exchanges;
  return {
    target: { base_url: BASE },
    coverage: { operations: { list: OPERATIONS } },
    checks: Object.entries(checks).map(([id, xs]) => ({ id, exchanges: xs })),
  } as unknown as RunReport;
}

const created = (ms = 10, extra: Record<string, unknown> = {}, headers: Record<string, string> = { location: '/v1/accounts/acc_1' }) =>
  exchange('POST', 'accounts', 201, ms, { id: 'acc_1', balance: { amount: '0', currency: 'USD' }, ...extra }, headers);
const described = (a: RunReport, b: RunReport) => behaviourDrift(a, b).findings.filter((f) => f.kind !== 'latency').map(describeDrift);

/** A parallel burst of 8 with one key: `answers` in the order they were sent, all sent at once and in flight together. */
function burst(answers: number[], opts: { marked?: boolean; key?: string } = {}): RecordedExchange[] {
  const at = (clock += 1000);
  return answers.map((status, i) =>
    exchange('POST', 'accounts', status, 30 + i, status === 201 ? { id: 'acc_b' } : { title: 'Request in progress' }, status === 201 && i > 0 ? { location: '/v1/accounts/acc_b', 'idempotent-replayed': 'true' } : { location: '/v1/accounts/acc_b' }, {
      at,
      headers: { 'Idempotency-Key': opts.key ?? 'k-1' },
      body: '{"type":"checking"}',
      ...(opts.marked === false ? {} : { case: PARALLEL_BURST_CASE }),
    }),
  );
}

describe('behaviour drift', () => {
  it('finds nothing between two runs that answered alike, whatever their ids', () => {
    const a = report([created(), exchange('GET', 'accounts/acc_1', 200, 5, { id: 'acc_1' })]);
    const b = report([created(), exchange('GET', 'accounts/acc_9', 200, 5, { id: 'acc_9' })]);
    expect(behaviourDrift(a, b)).toMatchObject({ operations_compared: 2, cases_compared: 2, findings: [] });
  });

  it('names a new status, a member and a header gone, a member added, per operation and status, and the check that saw it', () => {
    const a = report([created(), exchange('GET', 'accounts/acc_1', 200, 5, { id: 'acc_1' })]);
    const b = report([created(10, { nickname: null }, {}), exchange('GET', 'accounts/acc_1', 500, 5, {})]);
    expect(described(a, b)).toEqual([
      'GET /accounts/{account_id}: new status: 500 (check c)',
      'GET /accounts/{account_id}: status no longer answered: 200 (check c)',
      'POST /accounts: response header gone (201): location (check c)',
      'POST /accounts: new response member (201): nickname (check c)',
    ]);
  });

  it('compares each check with itself: a 409 one check no longer draws is gone even while another check still draws one', () => {
    const conflict = () => exchange('POST', 'accounts', 409, 5, { title: 'Conflict' });
    const a = report({ 'FSAPI-X-001 createAccount duplicate': [created(), conflict()], 'FSAPI-X-002 createAccount other': [conflict()] });
    const b = report({ 'FSAPI-X-001 createAccount duplicate': [created(), created()], 'FSAPI-X-002 createAccount other': [conflict()] });
    const [gone] = behaviourDrift(a, b).findings;
    expect(gone).toMatchObject({ kind: 'status-gone', items: ['409'], checks: ['FSAPI-X-001 createAccount duplicate'] });
    // A check that ran in one report only is not compared: its statuses are not the other checks' drift.
    expect(described(report({ x: [created()] }), report({ x: [created()], y: [conflict()] }))).toEqual([]);
  });

  it('compares a probe with the same probe: a deliberately invalid request answered 400 is no new status of the valid one', () => {
    const invalid = (status: number) => exchange('POST', 'accounts', status, 5, { title: 'Invalid' }, {}, { probe: 'malformed-json' });
    expect(described(report([created()]), report([created(), invalid(400)]))).toEqual([]);
    expect(described(report([created(), invalid(400)]), report([created(), invalid(422)]))).toEqual(['POST /accounts: new status: 422 (check c)', 'POST /accounts: status no longer answered: 400 (check c)']);
  });

  it('sets aside what a parallel burst answers by timing: 409 to a duplicate in flight or its replay, and the replay marker', () => {
    // Every duplicate replayed (the first answered before they reached the target) against every one answered 409.
    const replayed = report({ burst: burst([201, 201, 201, 201, 201, 201, 201, 201]) });
    const conflicted = report({ burst: burst([201, 409, 409, 409, 409, 409, 409, 409]) });
    expect(described(replayed, conflicted)).toEqual([]);
    expect(described(conflicted, replayed)).toEqual([]);
    // The evidence cap may keep only some of the burst, the 409s alone: still the burst's one answer.
    expect(described(replayed, report({ burst: burst([409, 409, 409]) }))).toEqual([]);
    // Without the check's mark (a report of an earlier version), identical requests in flight together are the same.
    expect(described(report({ burst: burst([201, 201, 201], { marked: false }) }), report({ burst: burst([201, 409, 409], { marked: false }) }))).toEqual([]);
    // Any other answer is still drift: a server error in the burst, and a 409 to a retry sent after the first was answered.
    expect(described(replayed, report({ burst: burst([201, 500, 409]) }))).toEqual(['POST /accounts: new status: 500 (check burst)']);
    const sequential = (second: number) => {
      const k = { headers: { 'Idempotency-Key': 'k-2' }, body: '{}' };
      return report({ retry: [exchange('POST', 'accounts', 201, 10, { id: 'a' }, {}, { ...k, at: 0 }), exchange('POST', 'accounts', second, 10, { id: 'a' }, {}, { ...k, at: 11 })] });
    };
    expect(described(sequential(201), sequential(409))).toEqual(['POST /accounts: new status: 409 (check retry)']);
  });

  it('compares the members of an event with those of an event of the same type only', () => {
    const event = (type: string, object: Record<string, unknown>) => exchange('GET', 'webhooks/events/evt_1', 200, 5, { id: 'evt_1', object: 'event', type, data: { object } });
    const customer = event('customer.created', { id: 'cus_1', object: 'customer', email: 'a@b.c' });
    const account = event('account.created', { id: 'acc_1', object: 'account', balance: { amount: '0' } });
    expect(described(report([customer]), report([account]))).toEqual([]);
    // The same type, with a member really gone.
    const bare = event('customer.created', { id: 'cus_1', object: 'customer' });
    expect(described(report([customer]), report([bare]))).toEqual(['GET /webhooks/events/{event_id}: response member gone (200): {type=customer.created}.data.object{object=customer}.email (check c)']);
  });

  it('counts a list item member only when every item carries it: an optional member on some items comes and goes with them', () => {
    const list = (...items: Record<string, unknown>[]) => exchange('GET', 'accounts', 200, 5, { data: items, has_more: false });
    const withScope = list({ id: 'a', metadata: { scope: 's' } }, { id: 'b', metadata: { scope: 's' } });
    const mixed = list({ id: 'a', metadata: {} }, { id: 'b', metadata: { scope: 's' } });
    expect(described(report([withScope]), report([mixed]))).toEqual([]);
    expect(described(report([mixed]), report([list({ id: 'c', metadata: {} })]))).toEqual([]);
    // A member every item had, on no item now: gone. An empty page tells nothing of its items.
    expect(described(report([withScope]), report([list({ id: 'c' })]))).toEqual(['GET /accounts: response member gone (200): data[].metadata, data[].metadata.scope (check c)']);
    expect(described(report([withScope]), report([list()]))).toEqual([]);
  });

  it('reports latency past the ratio and the floor, and not below either', () => {
    const times = (ms: number) => Array.from({ length: 10 }, () => created(ms));
    expect(behaviourDrift(report(times(20)), report(times(100)), 2).findings.map(describeDrift)).toEqual(['POST /accounts: slower: p50 20 ms -> 100 ms, p95 20 ms -> 100 ms']);
    // 3x slower but only 40 ms more: noise; 1.5x with a ratio of 2: no finding.
    expect(behaviourDrift(report(times(20)), report(times(60)), 2).findings).toEqual([]);
    expect(behaviourDrift(report(times(200)), report(times(300)), 2).findings).toEqual([]);
    expect(behaviourDrift(report(times(200)), report(times(300)), 1.4).findings).toHaveLength(1);
  });

  it('reads member paths three levels deep, array items as [], a variant marked by its type', () => {
    const shape = memberPaths({ data: [{ id: 1, address: { city: 'x', geo: { lat: 1 } } }], has_more: false });
    expect([...shape.members.keys()]).toEqual(['data', 'data[].id', 'data[].address', 'data[].address.city', 'data[].address.geo', 'has_more']);
    expect([...memberPaths({ type: 'wallet', wallet_id: 'w' }).members.keys()]).toEqual(['{type=wallet}.type', '{type=wallet}.wallet_id']);
  });
});

describe('a release of the sandbox: two faults and a changed document', { timeout: busy(300_000) }, () => {
  it('the regression report names each change, the document first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-release-'));
    const doc = parseDocument(readFileSync(fromRoot('spec', 'openapi.yaml'), 'utf8'));
    doc.deleteIn(['paths', '/accounts', 'post', 'responses', '409']);
    writeFileSync(join(dir, 'release.yaml'), doc.toString());
    const args = ['run', '--groups', 'accounts,customers', '--seed', '5', '--report-dir', join(dir, 'reports')];
    const before = await runCli(args, {});
    expect(before.code, before.stderr).toBe(0);
    const after = await runCli([...args, '--baseline', join(dir, 'reports', 'latest'), '--spec', join(dir, 'release.yaml'), '--embedded-sandbox', '--sandbox-fault', 'no-location-header', '--sandbox-fault', 'schema-drop-field'], {});
    expect(after.code, after.stderr).toBe(4);
    const r = JSON.parse(readFileSync(join(dir, 'reports', 'latest', 'conformance.json'), 'utf8')) as RunReport;
    // The document: the removed response, breaking, at its operation.
    expect(r.baseline!.document!.diff!.changes).toEqual([expect.objectContaining({ breaking: true, kind: 'removed-response', operation: 'POST /accounts' })]);
    // The faults: the Location header and created_at gone, seen as drift.
    // Latency aside: a busy machine moves it.
    const drift = r.baseline!.drift!.findings.filter((f) => f.kind !== 'latency').map(describeDrift);
    // Each seen where the checks that read it answered alike before, named with those checks; nothing else drifted.
    expect(drift).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^POST \/accounts: response header gone \(201\): location \(checks (FSAPI-[A-Z0-9-]+ \w+ [\w-]+, )*FSAPI-ACC-101 createAccount zero-balance(, .*)? and \d+ more\)$/),
        expect.stringMatching(/^POST \/customers: response member gone \(201\): (.+, )?\{type=individual\}\.created_at \(checks /),
        expect.stringMatching(/^GET \/customers\/\{customer_id\}: response member gone \(200\): (.+, )?\{type=individual\}\.created_at \(checks /),
      ]),
    );
    for (const line of drift) expect(line).toMatch(/: (response header gone \(201\): location|response member gone \(20[01]\): [^ ]*created_at(, [^ ]*created_at)*) \(checks? /);
    // ...and as the checks they fail, newly failing.
    expect(r.baseline!.newly_failing.map((e) => e.id)).toEqual(expect.arrayContaining(['FSAPI-CONTRACT-005 createAccount observed-headers', 'FSAPI-CONTRACT-001 createCustomer observed-schema']));
    // The document's change comes first, in the console and in summary.md.
    expect(after.stdout.indexOf('document changed since the baseline')).toBeLessThan(after.stdout.indexOf('verdict:'));
    const summary = readFileSync(join(dir, 'reports', 'latest', 'summary.md'), 'utf8');
    expect(summary.indexOf('## What changed in the document')).toBeLessThan(summary.indexOf('## Results by group'));
    expect(summary).toContain('**Behaviour drift**');
  });
});
