/**
 * Honest verdicts (issue 17, items 5 and 7): an undocumented 4xx the suite provoked on purpose is the document's
 * gap (FSAPI-CONTRACT-101, SHOULD), not a contract failure; effect counts the requests alone cannot explain are
 * not reported as the target's behaviour; messages say what the operation did; resources_created counts creations.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_SPEC_PATH } from '../src/catalogue/index.js';
import { loadSpec } from '../src/catalogue/openapi.js';
import { firstDid } from '../src/checks/idempotency.js';
import { effectsOf } from '../src/checks/support.js';
import { evaluatorsFor } from '../src/checks/traffic.js';
import { CheckSkipped } from '../src/harness/assert.js';
import { CreatedTally } from '../src/vitest-suite/created.js';
import { ResultCollector } from '../src/runner/collector.js';
import type { TestCase } from 'vitest/node';
import { TrafficObserver } from '../src/harness/observer.js';
import type { HttpResponse } from '../src/http/client.js';
import { fromRoot } from '../src/paths.js';
import type { RunReport } from '../src/results/model.js';
import { runCli } from './helpers/cli.js';
import { loadCatalogue, type Catalogue } from '../src/binding/catalogue-in-use.js';
import { busy } from './helpers/busy.js';

let catalogue: Catalogue;
beforeAll(async () => {
  catalogue = await loadCatalogue();
});

const res = (status: number, json: unknown = { type: 'about:blank', title: 'x', status }, headers: Record<string, string> = {}): HttpResponse =>
  ({
    status,
    json,
    headers,
    text: JSON.stringify(json),
    contentType: status >= 400 ? 'application/problem+json' : 'application/json',
    sizeBytes: 0,
    durationMs: 0,
    exchange: { started_at: '', duration_ms: 0, request: { method: 'POST', url: 'https://x/v1/customers', headers: {} } },
  }) as HttpResponse;

describe('undocumented statuses judged by who caused them', () => {
  const judge = (status: number, probe?: Parameters<TrafficObserver['observe']>[2]) => {
    const observer = new TrafficObserver(evaluatorsFor(catalogue.spec));
    const op = catalogue.spec.byId.get('createCustomer')!;
    observer.observe(op, res(status), probe);
    const of = (r: string) => ({ applicable: observer.applicable(op.operationId, r), findings: observer.findings(op.operationId, r).map((f) => f.message) });
    return { c002: of('FSAPI-CONTRACT-002'), c101: of('FSAPI-CONTRACT-101') };
  };

  it('an undocumented 4xx to a deliberately invalid request is a CONTRACT-101 finding, not a CONTRACT-002 failure', () => {
    // createCustomer documents no 404.
    const { c002, c101 } = judge(404, 'unknown-id');
    expect(c002).toEqual({ applicable: 0, findings: [] });
    expect(c101.applicable).toBe(1);
    expect(c101.findings).toEqual([expect.stringMatching(/^createCustomer answers an id that exists nowhere with 404, which its document does not list \(documented: 201, .*\): document the 404$/)]);
  });

  it('the same 4xx to a valid request stays a CONTRACT-002 failure', () => {
    const { c002, c101 } = judge(404);
    expect(c002.findings).toEqual([expect.stringContaining('status 404 is not documented for createCustomer')]);
    expect(c101).toEqual({ applicable: 0, findings: [] });
  });

  it('a 2xx or a 5xx is never excused by a probe', () => {
    for (const status of [200, 500]) {
      const { c002, c101 } = judge(status, 'malformed-body');
      expect(c002.findings, String(status)).toEqual([expect.stringContaining(`status ${status} is not documented`)]);
      expect(c101.applicable, String(status)).toBe(0);
    }
  });

  it('a documented 4xx to a probe passes CONTRACT-101', () => {
    expect(judge(401, 'no-key')).toEqual({ c002: { applicable: 0, findings: [] }, c101: { applicable: 1, findings: [] } });
  });
});

describe('answers that carry no body by HTTP', () => {
  it('an empty 204 is not held to a media type its document gives it; an empty 200 still is', async () => {
    const spec = await loadSpec(fromRoot('test', 'fixtures', 'openapi', 'no-content-with-media.yaml'));
    const empty = (status: number): HttpResponse => ({ ...res(status), json: undefined, text: '', contentType: '' }) as HttpResponse;
    const c003 = (opId: string, status: number) => {
      const observer = new TrafficObserver(evaluatorsFor(spec));
      const op = spec.byId.get(opId)!;
      observer.observe(op, empty(status));
      return observer.findings(op.operationId, 'FSAPI-CONTRACT-003').map((f) => f.message);
    };
    expect(c003('deleteWebhook', 204)).toEqual([]);
    expect(c003('getWebhook', 200)).toEqual(['200 has no body; the spec documents application/json']);
  });
});

describe('effect counts that mean what they say', () => {
  const ctx = { skip: (reason: string): never => { throw new CheckSkipped(reason); } };

  it('a change the requests could make is returned as it is', () => {
    expect(effectsOf(ctx, 3, 3, 2)).toBe(0);
    expect(effectsOf(ctx, 3, 5, 2)).toBe(2);
  });

  it('fewer effects than before, or more than requests, skips: never "took effect -1 times"', () => {
    expect(() => effectsOf(ctx, 4, 3, 2)).toThrow(CheckSkipped);
    expect(() => effectsOf(ctx, 4, 3, 2)).toThrow(/^effects not observable: the effect count of the scope went from 4 to 3 around 2 requests/);
    expect(() => effectsOf(ctx, 0, 9, 8)).toThrow(/more than the requests could make/);
  });

  it("the first request's message follows its operation's kind (a freeze creates nothing)", () => {
    expect(firstDid('create', res(201, { id: 'cus_1' }), 'cus_1')).toBe('created cus_1');
    expect(firstDid('action', res(200, { id: 'card_1', status: 'frozen' }), 'card_1')).toBe('moved card_1 to frozen');
    expect(firstDid('action', res(200, { id: 'card_1' }), 'card_1')).toBe('acted on card_1');
    expect(firstDid('remove', res(200, { id: 'xa_1' }), 'xa_1')).toBe('removed xa_1');
  });
});

describe('resources_created', () => {
  it('counts each resource a create made once: not a 201 to a read or an action, not a replay', () => {
    const t = new CreatedTally();
    const op = (id: string) => catalogue.spec.byId.get(id)!;
    t.note(op('createCustomer'), res(201, { id: 'cus_1' }));
    t.note(op('createCustomer'), res(201, { id: 'cus_1' })); // a replay the target does not mark
    t.note(op('createCustomer'), res(201, { id: 'cus_2' }, { 'idempotent-replayed': 'true' }));
    t.note(op('createCustomer'), res(422));
    t.note(op('listCustomers'), res(201, { data: [] }));
    t.note(op('freezeCard'), res(201, { id: 'card_1', status: 'frozen' }));
    t.note(op('createAccount'), res(200, { id: 'acc_1' }));
    expect(t.byOperation).toEqual({ createCustomer: 1, createAccount: 1 });
  });

  it("each check's meta carries only the counts changed since the suite's previous check, as totals", () => {
    const t = new CreatedTally();
    const op = (id: string) => catalogue.spec.byId.get(id)!;
    expect(t.takeChanges()).toEqual({});
    t.note(op('createCustomer'), res(201, { id: 'cus_1' }));
    t.note(op('createAccount'), res(201, { id: 'acc_1' }));
    expect(t.takeChanges()).toEqual({ createCustomer: 1, createAccount: 1 });
    expect(t.takeChanges()).toEqual({});
    t.note(op('createCustomer'), res(201, { id: 'cus_2' }));
    t.note(op('createCustomer'), res(201, { id: 'cus_2' })); // a replay: no change
    expect(t.takeChanges()).toEqual({ createCustomer: 2 });
    expect(t.byOperation).toEqual({ createCustomer: 2, createAccount: 1 });
  });

  it('the run sums every change its suites reported, whatever order the checks end in, a late one with no new request too', () => {
    const c = new ResultCollector(() => undefined);
    let n = 0;
    const ended = (suite: string, requests: number, created: Record<string, number>) =>
      c.onTestCaseResult({ id: `t${++n}`, meta: () => ({ fsapi_stats: { suite, requests, created } }), result: () => ({ state: 'passed' }) } as unknown as TestCase);
    ended('customers', 4, { createCustomer: 2 });
    ended('customers', 9, { createCustomer: 5 });
    ended('customers', 7, { createCustomer: 3 }); // its result arrived after a later check's
    ended('accounts', 3, { createAccount: 1 });
    // The request was counted when it was sent: its creation is reported by a check that sent nothing more.
    ended('customers', 9, { createFxQuote: 1 });
    expect(c.stats).toEqual({ requests: 12, created: { createCustomer: 5, createAccount: 1, createFxQuote: 1 } });
  });
});

describe('a vendor document that forgot the 401', { timeout: busy(300_000) }, () => {
  it('warns under FSAPI-CONTRACT-101 and fails no CONTRACT requirement', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-probes-'));
    const doc = parse(readFileSync(REFERENCE_SPEC_PATH, 'utf8'), { maxAliasCount: -1 }) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    delete doc.paths['/customers']!['post']!.responses['401'];
    writeFileSync(join(dir, 'no-401.json'), JSON.stringify(doc));
    const run = await runCli(['run', '--embedded-sandbox', '--spec', join(dir, 'no-401.json'), '--groups', 'customers', '--seed', '9', '--report-dir', join(dir, 'r')], {});
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'r', 'latest', 'conformance.json'), 'utf8')) as RunReport;
    expect(report.verdict).toBe('conformant');
    const notPassed = report.checks.filter((c) => c.status !== 'passed' && c.status !== 'skipped');
    expect(notPassed.map((c) => [c.id, c.status])).toEqual([['FSAPI-CONTRACT-101 createCustomer observed-probe-status', 'warning']]);
    expect(notPassed[0]!.message).toMatch(/^createCustomer answers a request (without Api-Key|whose Api-Key [^,]+) with 401, which its document does not list .*: document the 401/);
    expect(report.checks.find((c) => c.id === 'FSAPI-CONTRACT-002 createCustomer observed-status')?.status).toBe('passed');
  });
});
