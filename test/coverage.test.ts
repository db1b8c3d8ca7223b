/**
 * Honest verdicts from synthetic check lists: coverage per requirement and operation, the inconclusive verdict and
 * its exit code, the one-line headline, and the run diagnostics (a wrong key, a wrong base path, throttling).
 */
import { describe, expect, it } from 'vitest';
import { absentFromRun, absentWhenCut, assessRun, type AssessInput } from '../src/results/assess.js';
import { operationCoverage, type RequirementEntry } from '../src/results/coverage.js';
import { runDiagnostics, securitySchemeNote } from '../src/results/diagnostics.js';
import type { CheckResult } from '../src/results/model.js';
import { EXIT, EXIT_CODE_HELP, computeVerdict, exitCodeFor } from '../src/results/verdict.js';
import { check, exchange } from './fixtures/reports/build.js';

const REQS: RequirementEntry[] = [
  { id: 'FSAPI-AUTH-001', level: 'MUST', scope: 'target' },
  { id: 'FSAPI-TEN-001', level: 'MUST', scope: 'target' },
  { id: 'FSAPI-TEN-002', level: 'MUST', scope: 'target' },
  { id: 'FSAPI-WH-001', level: 'MUST', scope: 'target' },
  { id: 'FSAPI-IDEM-002', level: 'MUST', scope: 'target' },
  { id: 'FSAPI-KEYS-001', level: 'MUST', scope: 'client', testedBy: 'test/secrets.test.ts' },
  { id: 'FSAPI-HDR-101', level: 'SHOULD', scope: 'target' },
];
const OPS = [
  { operationId: 'listAccounts', method: 'GET', path: '/accounts', group: 'accounts' },
  { operationId: 'getAccount', method: 'GET', path: '/accounts/{account_id}', group: 'accounts' },
  { operationId: 'createTransfer', method: 'POST', path: '/transfers', group: 'transfers' },
  { operationId: 'vendorThing', method: 'GET', path: '/things', group: undefined },
];
/** IDEM-002's generic checks are planned on createTransfer (transfers); WH-001 has only flows (webhooks). */
const PLAN = new Map([
  ['FSAPI-IDEM-002', [{ suite: 'transfers', operation: 'createTransfer' }]],
  ['FSAPI-AUTH-001', [{ suite: 'accounts', operation: 'listAccounts' }]],
]);
const skipped = (requirement: string, cause: CheckResult['skip_cause'], message: string) => {
  const c = check({ requirement, level: 'MUST', group: 'accounts', operation: 'listAccounts', status: 'skipped', message, variant: `${cause}` });
  if (cause) c.skip_cause = cause;
  return c;
};
const passed = (requirement: string, operation = 'listAccounts') => check({ requirement, level: 'MUST', group: 'accounts', operation, status: 'passed', variant: operation });

function assess(checks: CheckResult[], over: Partial<AssessInput> = {}) {
  return assessRun({
    checks,
    requirements: REQS,
    waivers: [],
    absent: absentFromRun(PLAN, ['accounts', 'transfers']),
    operations: OPS,
    baseUrl: 'https://sandbox.example.test/v1/',
    leftOut: (op) => (op.group && !['accounts', 'transfers'].includes(op.group) ? `group ${op.group} is not in this run` : undefined),
    durationMs: 10_000,
    ...over,
  });
}

const ALL_VERIFIED = () => [passed('FSAPI-AUTH-001'), passed('FSAPI-TEN-001'), passed('FSAPI-TEN-002'), passed('FSAPI-IDEM-002', 'createTransfer'), passed('FSAPI-HDR-101')];

describe('coverage and the verdict', () => {
  it('is conformant with every MUST that applies verified, and says "N of N" in one line', () => {
    const a = assess(ALL_VERIFIED());
    expect(a.verdict).toBe('conformant');
    expect(a.headline).toMatch(/^conformant: 4 of 4 MUST requirements verified; 1 not applicable to this run; document operations exercised: /);
    // WH-001 has no check here and no generic plan in this run's suites: its suite is not in the run.
    expect(a.coverage.requirements.find((r) => r.id === 'FSAPI-WH-001')).toMatchObject({ status: 'not-applicable' });
    // A client-scope requirement binds the suite: neither counted nor "not verified".
    expect(a.coverage.requirements.find((r) => r.id === 'FSAPI-KEYS-001')).toMatchObject({ status: 'not-applicable', cause: 'suite-obligation' });
    expect(a.coverage.must).toMatchObject({ total: 5, applicable: 4, verified: 4, not_verified: 0, not_applicable: 1 });
    // The one diagnosis: the document's operation in no endpoint group, which nothing could exercise.
    expect(a.diagnostics.map((d) => [d.kind, d.message])).toEqual([['unbound-operations', expect.stringContaining('(vendorThing)')]]);
  });

  it('is inconclusive (exit 6), naming the tenant-isolation requirements, without a second business', () => {
    const why = 'needs a second business: set FSAPI_SECOND_API_KEY and FSAPI_SECOND_TENANT_ID';
    const a = assess([passed('FSAPI-AUTH-001'), skipped('FSAPI-TEN-001', 'credential', why), skipped('FSAPI-TEN-002', 'credential', why), passed('FSAPI-IDEM-002', 'createTransfer')]);
    expect(a.verdict).toBe('inconclusive');
    expect(exitCodeFor(a.verdict)).toBe(6);
    expect(a.headline).toBe(
      `inconclusive: 2 MUST requirements not verified (FSAPI-TEN-001, FSAPI-TEN-002: ${why}); 2 of 4 MUST requirements verified; 1 not applicable to this run; document operations exercised: 2 of 4 (0 not in this run)`.replace(' (0 not in this run)', ''),
    );
    expect(a.coverage.requirements.find((r) => r.id === 'FSAPI-TEN-001')).toMatchObject({ status: 'not-verified', cause: 'credential', reason: why });
    expect(a.diagnostics.map((d) => d.kind)).toEqual(['unbound-operations', 'unverified-must']);
  });

  it('tells an operation missing from the document (not verified) from a suite not in the run (not applicable)', () => {
    const a = assess([passed('FSAPI-AUTH-001'), passed('FSAPI-TEN-001'), passed('FSAPI-TEN-002')]);
    expect(a.coverage.requirements.find((r) => r.id === 'FSAPI-IDEM-002')).toMatchObject({ status: 'not-verified', cause: 'not-in-document' });
    expect(a.coverage.requirements.find((r) => r.id === 'FSAPI-IDEM-002')!.reason).toContain('createTransfer');
    expect(a.verdict).toBe('inconclusive');
    // The same requirement in a shard without the transfers suite is not that shard's to verify.
    const shard = assess([passed('FSAPI-AUTH-001'), passed('FSAPI-TEN-001'), passed('FSAPI-TEN-002')], { absent: absentFromRun(PLAN, ['accounts']) });
    expect(shard.coverage.requirements.find((r) => r.id === 'FSAPI-IDEM-002')).toMatchObject({ status: 'not-applicable' });
    expect(shard.verdict).toBe('conformant');
  });

  it('counts checks left out by the capabilities file as not applicable, and a waiver as waived, in the headline', () => {
    const caps = skipped('FSAPI-TEN-002', 'capabilities', 'group accounts is not implemented (capabilities file)');
    const waived = skipped('FSAPI-TEN-001', 'waived', 'waived (capabilities file): one business');
    const a = assess([passed('FSAPI-AUTH-001'), waived, caps, passed('FSAPI-IDEM-002', 'createTransfer')], { waivers: [{ requirement: 'FSAPI-TEN-001', reason: 'one business' }] });
    expect(a.verdict).toBe('conformant');
    expect(a.coverage.requirements.find((r) => r.id === 'FSAPI-TEN-002')).toMatchObject({ status: 'not-applicable', cause: 'capabilities' });
    expect(a.coverage.requirements.find((r) => r.id === 'FSAPI-TEN-001')).toMatchObject({ status: 'waived', reason: 'one business' });
    expect(a.headline).toMatch(/^conformant: 2 of 3 MUST requirements verified; 1 MUST requirement waived \(FSAPI-TEN-001: one business\); 2 not applicable/);
  });

  it('treats a rate-limited check as inconclusive, never non-conformant; a real error still blocks', () => {
    const limited = check({ requirement: 'FSAPI-TEN-001', level: 'MUST', group: 'accounts', status: 'error', message: '429 after 3 retries' });
    limited.cause = 'rate-limited';
    const a = assess([...ALL_VERIFIED().filter((c) => c.requirement !== 'FSAPI-TEN-001'), limited], { throttling: { responses: 40, waited_ms: 5000 } });
    expect(a.verdict).toBe('inconclusive');
    expect(a.coverage.requirements.find((r) => r.id === 'FSAPI-TEN-001')).toMatchObject({ status: 'not-verified', cause: 'rate-limited' });
    expect(a.headline).toContain('1 check rate-limited (the target kept answering 429/503: lower FSAPI_RATE_LIMIT)');
    const d = a.diagnostics.find((x) => x.kind === 'rate-limited')!;
    expect(d.message).toBe('the target answered 429/503 40 times, and the run waited 5.0 s on them (50% of its duration); 1 checks gave up on it and verified nothing');
    expect(d.fix).toMatch(/lower FSAPI_RATE_LIMIT/);
    const broken = check({ requirement: 'FSAPI-TEN-001', level: 'MUST', group: 'accounts', status: 'error', message: 'socket hang up' });
    expect(assess([...ALL_VERIFIED(), broken]).verdict).toBe('non-conformant');
  });

  it('orders exit codes: incomplete > regression > non-conformant > inconclusive > conformant', () => {
    expect(EXIT.inconclusive).toBe(6);
    expect(EXIT_CODE_HELP.map((x) => x.code)).toContain(6);
    expect(exitCodeFor('incomplete', true)).toBe(5);
    expect(exitCodeFor('inconclusive', true)).toBe(4);
    expect(exitCodeFor('non-conformant')).toBe(1);
    expect(exitCodeFor('inconclusive')).toBe(6);
    expect(exitCodeFor('conformant')).toBe(0);
    const failed = check({ requirement: 'FSAPI-AUTH-001', level: 'MUST', group: 'accounts', status: 'failed' });
    const a = assess([failed]);
    expect(computeVerdict([failed], { coverage: a.coverage })).toBe('non-conformant');
    expect(a.headline).toMatch(/^non-conformant: 1 MUST or CONTRACT requirement failed \(FSAPI-AUTH-001\)/);
  });

  it('counts an operation exercised by an executed check or by an answered exchange to its path', () => {
    const viaExchange = passed('FSAPI-HDR-101', 'createTransfer');
    delete viaExchange.operation;
    viaExchange.exchanges = [{ ...exchange(1), request: { method: 'GET', url: 'https://sandbox.example.test/v1/accounts/acc_1?x=1', headers: {} } }];
    const ops = assess([viaExchange]).coverage.operations;
    expect(ops.list.filter((o) => o.exercised).map((o) => o.operation)).toEqual(['getAccount']);
    expect(ops.list.find((o) => o.operation === 'vendorThing')).toMatchObject({ exercised: false, reason: expect.stringMatching(/no endpoint group/) });
  });
});

describe('operations reached by exchanges', () => {
  // Each template, in document order; the first whose method and template match an answered exchange is reached.
  const ops = [
    { operationId: 'search', method: 'GET', path: '/v1/customers/search', group: 'customers' },
    { operationId: 'getCustomer', method: 'GET', path: '/v1/customers/{id}', group: 'customers' },
    { operationId: 'shadowed', method: 'GET', path: '/v1/customers/search', group: 'customers' },
    { operationId: 'deleteCustomer', method: 'DELETE', path: '/v1/customers/{id}', group: 'customers' },
    { operationId: 'file', method: 'GET', path: '/v1/files/{id}.json', group: 'customers' },
    { operationId: 'slash', method: 'GET', path: '/v1/dir/', group: 'customers' },
    { operationId: 'root', method: 'GET', path: '/', group: 'customers' },
    { operationId: 'nested', method: 'POST', path: '/v1/a/{x}/b/{y}', group: 'customers' },
    { operationId: 'getItem', method: 'GET', path: '/v1/items/{id}', group: 'customers' },
    { operationId: 'newItem', method: 'GET', path: '/v1/items/new', group: 'customers' },
  ];
  const reached = (method: string, ...paths: string[]) => {
    const c = passed('FSAPI-HDR-101');
    delete c.operation;
    c.exchanges = paths.map((p, i) => ({ ...exchange(i), request: { method, url: `https://api.example.test/base${p}`, headers: {} } }));
    return operationCoverage([c], ops, { baseUrl: 'https://api.example.test/base/', leftOut: () => undefined }).list.filter((o) => o.exercised).map((o) => o.operation);
  };

  it('takes the first template in document order that matches, literal or not', () => {
    expect(reached('GET', '/v1/customers/search')).toEqual(['search']);
    expect(reached('GET', '/v1/customers/cus_1', '/v1/customers/cus_1/')).toEqual(['getCustomer']);
    expect(reached('DELETE', '/v1/customers/search')).toEqual(['deleteCustomer']);
    expect(reached('GET', '/v1/items/new')).toEqual(['getItem']);
  });

  it('matches a parameter to one non-empty segment, part of a segment too, and one trailing slash', () => {
    expect(reached('GET', '/v1/files/f_1.json')).toEqual(['file']);
    expect(reached('GET', '/v1/files/.json', '/v1/files/f_1.xml', '/v1/customers/', '/v1/customers/a/b')).toEqual([]);
    expect(reached('GET', '/v1/dir/')).toEqual(['slash']);
    expect(reached('GET', '/v1/dir//')).toEqual(['slash']);
    expect(reached('GET', '/v1/dir')).toEqual([]);
    expect(reached('GET', '/', '/base')).toEqual(['root']);
    expect(reached('POST', '/v1/a/1/b/2', '/v1/a/1/b')).toEqual(['nested']);
  });

  it('reaches nothing outside the base path', () => {
    const c = passed('FSAPI-HDR-101');
    delete c.operation;
    c.exchanges = [{ ...exchange(0), request: { method: 'GET', url: 'https://api.example.test/other/v1/customers/search', headers: {} } }];
    expect(operationCoverage([c], ops, { baseUrl: 'https://api.example.test/base/', leftOut: () => undefined }).exercised).toBe(0);
  });
});

describe('run diagnostics', () => {
  const answered = (status: number, i: number, family: CheckResult['family'] = 'schema', method = 'GET'): CheckResult => {
    const c = check({ requirement: 'FSAPI-CONTRACT-004', level: 'CONTRACT', group: 'accounts', operation: `op${i}`, family, status: status < 300 ? 'passed' : 'skipped', variant: `v${i}` });
    const x = exchange(i, { status });
    c.exchanges = [{ ...x, operation: `op${i}`, request: { ...x.request, method, headers: { 'Api-Key': '[REDACTED:FSAPI_API_KEY]', 'x-tenant-id': 't' } } }];
    return c;
  };

  it('says the key is refused when most answers to the configured key are 401 (a wrong key), with the fix', () => {
    const d = runDiagnostics({ checks: Array.from({ length: 10 }, (_, i) => answered(401, i)), durationMs: 1000 });
    expect(d[0]).toMatchObject({ kind: 'unauthorized', message: expect.stringMatching(/^10 of 10 answers to requests with the configured key were 401/) });
    expect(d[0]!.fix).toMatch(/FSAPI_API_KEY/);
    // 401s the auth checks provoke on purpose (no key, a wrong key) are not a diagnosis.
    expect(runDiagnostics({ checks: Array.from({ length: 10 }, (_, i) => answered(401, i, 'auth')), durationMs: 1000 })).toEqual([]);
  });

  it('says the paths are wrong when most operations answer their valid request with 404 (a wrong base path)', () => {
    const checks = [...Array.from({ length: 8 }, (_, i) => answered(404, i)), answered(200, 8), answered(200, 9)];
    const d = runDiagnostics({ checks, durationMs: 1000 });
    expect(d.map((x) => x.kind)).toEqual(['not-found']);
    expect(d[0]!.message).toMatch(/^8 of 10 operations answered their valid request with 404 \(op0, op1, op2, …\)/);
    expect(d[0]!.fix).toMatch(/FSAPI_BASE_URL/);
    // 404s the http checks ask for (unknown ids) are not.
    expect(runDiagnostics({ checks: Array.from({ length: 8 }, (_, i) => answered(404, i, 'http')), durationMs: 1000 })).toEqual([]);
    // A valid request naming ids made up from the document, answered 404, is one: no probe sent on purpose.
    const madeUp = checks.map((c) => ({ ...c, exchanges: c.exchanges.map((x) => (x.response?.status === 404 ? { ...x, probe: 'made-up-value' } : x)) }));
    expect(runDiagnostics({ checks: madeUp, durationMs: 1000 }).map((x) => x.kind)).toEqual(['not-found']);
  });

  it('says most valid writes were refused', () => {
    const checks = Array.from({ length: 4 }, (_, i) => answered(422, i, 'schema', 'POST'));
    expect(runDiagnostics({ checks, durationMs: 1000 }).map((x) => x.kind)).toEqual(['writes-refused']);
  });

  it('counts as valid writes only the requests built as valid: not the malformed probes of the evidence, nor a prerequisite', () => {
    const problem = (detail: string) => JSON.stringify({ title: 'Bad Request', detail });
    // Each operation's valid POST was created (201); before it, its check made a prerequisite another operation refused.
    const valid = Array.from({ length: 4 }, (_, i) => {
      const c = answered(201, i, 'schema', 'POST');
      const x = c.exchanges[0]!;
      const prerequisite = { ...x, operation: 'createPrerequisite', response: { ...x.response!, status: 422, body: problem('name is required') } };
      c.exchanges = [prerequisite, x];
      return c;
    });
    // The observed-traffic checks' evidence: the deliberately malformed bodies, answered 400, one per operation.
    const observed = Array.from({ length: 4 }, (_, i) => {
      const c = check({ requirement: 'FSAPI-CONTRACT-101', level: 'CONTRACT', group: 'accounts', operation: `op${i}`, family: 'schema', status: 'failed', variant: 'observed-probe-status' });
      const x = valid[i]!.exchanges[1]!;
      c.exchanges = [{ ...x, probe: 'malformed-json', response: { ...x.response!, status: 400, body: problem('Invalid JSON') } }];
      return c;
    });
    expect(runDiagnostics({ checks: [...valid, ...observed], durationMs: 1000 })).toEqual([]);
    // The same run whose valid POSTs were refused: counted, in the target's words.
    const refused = valid.map((c) => ({ ...c, exchanges: [c.exchanges[0]!, { ...c.exchanges[1]!, response: { ...c.exchanges[1]!.response!, status: 422, body: problem('currency is not supported') } }] }));
    const [d] = runDiagnostics({ checks: [...refused, ...observed], durationMs: 1000 });
    expect(d).toMatchObject({ kind: 'writes-refused', message: expect.stringMatching(/^4 of 4 valid writes .* were refused with a 4xx \(the target said: op0 422: "Bad Request: currency is not supported"/) });
    expect(d!.message).not.toMatch(/Invalid JSON|name is required/);
  });

  it('diagnoses each unverified MUST requirement by its own cause, each fix naming the setting that cause needs', () => {
    const webhooks = 'needs FSAPI_WEBHOOK_SECRET and FSAPI_WEBHOOK_LISTEN (and the target delivering there)';
    const refused = 'setup could not create a customer: POST /customers answered 422';
    const a = assess([passed('FSAPI-AUTH-001'), skipped('FSAPI-WH-001', 'credential', webhooks), skipped('FSAPI-TEN-001', 'prerequisite', refused), passed('FSAPI-TEN-002')], {
      absent: absentFromRun(PLAN, ['accounts', 'transfers']),
    });
    const unverified = a.diagnostics.filter((d) => d.kind === 'unverified-must');
    expect(unverified.map((d) => [d.cause, d.requirements])).toEqual([
      ['credential', ['FSAPI-WH-001']],
      ['not-in-document', ['FSAPI-IDEM-002']],
      ['prerequisite', ['FSAPI-TEN-001']],
    ]);
    const [credential, document, prerequisite] = unverified;
    // Only the webhook settings are missing: the fix names them, and no other credential as an example.
    expect(credential!.fix).toMatch(/^set FSAPI_WEBHOOK_SECRET and FSAPI_WEBHOOK_LISTEN for FSAPI-WH-001; or waive them in the capabilities file \(FSAPI_CAPABILITIES\)/);
    expect(credential!.fix).not.toMatch(/SECOND/);
    expect(document!.fix).toMatch(/FSAPI_SPEC/);
    expect(document!.fix).toMatch(/FSAPI_BINDING/);
    expect(prerequisite!.fix).toContain(refused);
    expect(prerequisite!.message).toMatch(/^1 MUST requirement not verified: the target refused a request their checks build on \(FSAPI-TEN-001\)/);
  });

  it('names each credential a requirement lacks next to it, and diagnoses interrupted, live-key and waived requirements as such', () => {
    const second = 'needs a second business: set FSAPI_SECOND_API_KEY and FSAPI_SECOND_TENANT_ID';
    const live = skipped('FSAPI-AUTH-001', 'live-environment', 'writes are not sent to a live target');
    const a = assess([live, skipped('FSAPI-TEN-001', 'credential', second), skipped('FSAPI-WH-001', 'credential', 'needs FSAPI_WEBHOOK_SECRET and FSAPI_WEBHOOK_LISTEN')], {
      waivers: [{ requirement: 'FSAPI-TEN-002', reason: 'one business' }],
      absent: absentWhenCut(absentFromRun(PLAN, ['accounts', 'transfers']), new Set(['FSAPI-IDEM-002']), { cause: 'interrupted', reason: 'the run was interrupted before any of its checks ran' }),
      incompleteReason: 'the run was interrupted',
    });
    const byCause = new Map(a.diagnostics.filter((d) => d.kind === 'unverified-must').map((d) => [d.cause, d]));
    expect([...byCause.keys()]).toEqual(['interrupted', 'credential', 'live-environment', 'waived']);
    expect(byCause.get('interrupted')!.requirements).toEqual(['FSAPI-IDEM-002']);
    expect(byCause.get('interrupted')!.message).toMatch(/the run was interrupted before their checks ran/);
    expect(byCause.get('credential')!.fix).toMatch(/^set FSAPI_SECOND_API_KEY and FSAPI_SECOND_TENANT_ID for FSAPI-TEN-001; set FSAPI_WEBHOOK_SECRET and FSAPI_WEBHOOK_LISTEN for FSAPI-WH-001;/);
    expect(byCause.get('live-environment')!.fix).toMatch(/FSAPI_ALLOW_LIVE_WRITES/);
    expect(byCause.get('waived')).toMatchObject({ requirements: ['FSAPI-TEN-002'], fix: expect.stringMatching(/FSAPI_CAPABILITIES/) });
    expect(a.coverage.requirements.find((r) => r.id === 'FSAPI-IDEM-002')).toMatchObject({ status: 'not-verified', cause: 'interrupted' });
  });

  it("notes a document whose security scheme is not the seed's Api-Key header", () => {
    expect(securitySchemeNote({ components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'Api-Key' } } } })).toBeUndefined();
    const note = securitySchemeNote({ components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } } });
    expect(note).toMatchObject({ kind: 'security-scheme', message: expect.stringMatching(/bearer \(http bearer\), not the seed's Api-Key header/) });
  });
});
