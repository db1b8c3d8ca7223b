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
import { describeDrift } from '../src/reports/regression-render.js';
import type { RecordedExchange, RunReport } from '../src/results/model.js';
import { fromRoot } from '../src/paths.js';
import { runCli } from './helpers/cli.js';

const BASE = 'https://127.0.0.1:1/v1/';

function exchange(method: string, path: string, status: number, ms: number, body?: unknown, headers: Record<string, string> = {}): RecordedExchange {
  return {
    started_at: '2026-11-27T00:00:00.000Z',
    duration_ms: ms,
    request: { method, url: `${BASE}${path}`, headers: {} },
    response: { status, headers: { 'content-type': 'application/json', date: 'now', ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }), size_bytes: 10 },
  };
}

/** A report holding only what drift reads: the document's operations, the base URL and the checks' exchanges. */
function report(exchanges: RecordedExchange[]): RunReport {
  return {
    target: { base_url: BASE },
    coverage: {
      operations: {
        list: [
          { operation: 'createAccount', method: 'POST', path: '/accounts', exercised: true },
          { operation: 'getAccount', method: 'GET', path: '/accounts/{account_id}', exercised: true },
        ],
      },
    },
    checks: [{ id: 'c', exchanges }],
  } as unknown as RunReport;
}

const created = (ms = 10, extra: Record<string, unknown> = {}, headers: Record<string, string> = { location: '/v1/accounts/acc_1' }) =>
  exchange('POST', 'accounts', 201, ms, { id: 'acc_1', balance: { amount: '0', currency: 'USD' }, ...extra }, headers);

describe('behaviour drift', () => {
  it('finds nothing between two runs that answered alike, whatever their ids', () => {
    const a = report([created(), exchange('GET', 'accounts/acc_1', 200, 5, { id: 'acc_1' })]);
    const b = report([created(), exchange('GET', 'accounts/acc_9', 200, 5, { id: 'acc_9' })]);
    expect(behaviourDrift(a, b)).toMatchObject({ operations_compared: 2, findings: [] });
  });

  it('names a new status, a member and a header gone, a member added, per operation and status', () => {
    const a = report([created(), exchange('GET', 'accounts/acc_1', 200, 5, { id: 'acc_1' })]);
    const b = report([created(10, { nickname: null }, {}), exchange('GET', 'accounts/acc_1', 500, 5, {})]);
    const found = behaviourDrift(a, b).findings.map(describeDrift);
    expect(found).toEqual([
      'GET /accounts/{account_id}: new status: 500',
      'GET /accounts/{account_id}: status no longer answered: 200',
      'POST /accounts: response header gone (201): location',
      'POST /accounts: new response member (201): nickname',
    ]);
  });

  it('reports latency past the ratio and the floor, and not below either', () => {
    const times = (ms: number) => Array.from({ length: 10 }, () => created(ms));
    expect(behaviourDrift(report(times(20)), report(times(100)), 2).findings.map(describeDrift)).toEqual(['POST /accounts: slower: p50 20 ms -> 100 ms, p95 20 ms -> 100 ms']);
    // 3x slower but only 40 ms more: noise; 1.5x with a ratio of 2: no finding.
    expect(behaviourDrift(report(times(20)), report(times(60)), 2).findings).toEqual([]);
    expect(behaviourDrift(report(times(200)), report(times(300)), 2).findings).toEqual([]);
    expect(behaviourDrift(report(times(200)), report(times(300)), 1.4).findings).toHaveLength(1);
  });

  it('reads member paths three levels deep, array items as []', () => {
    expect([...memberPaths({ data: [{ id: 1, address: { city: 'x', geo: { lat: 1 } } }], has_more: false })]).toEqual(['data', 'data[].id', 'data[].address', 'data[].address.city', 'data[].address.geo', 'has_more']);
  });
});

describe('a release of the sandbox: two faults and a changed document', { timeout: 300_000 }, () => {
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
    const drift = r.baseline!.drift!.findings.map(describeDrift);
    expect(drift).toContain('POST /accounts: response header gone (201): location');
    expect(drift).toContain('POST /customers: response member gone (201): created_at');
    // ...and as the checks they fail, newly failing.
    expect(r.baseline!.newly_failing.map((e) => e.id)).toEqual(expect.arrayContaining(['FSAPI-CONTRACT-005 createAccount observed-headers', 'FSAPI-CONTRACT-001 createCustomer observed-schema']));
    // The document's change comes first, in the console and in summary.md.
    expect(after.stdout.indexOf('document changed since the baseline')).toBeLessThan(after.stdout.indexOf('verdict:'));
    const summary = readFileSync(join(dir, 'reports', 'latest', 'summary.md'), 'utf8');
    expect(summary.indexOf('## What changed in the document')).toBeLessThan(summary.indexOf('## Results by group'));
    expect(summary).toContain('**Behaviour drift**');
  });
});
