/** Baseline diff, reading reports back (loadReport), shard merge, and the `diff` and `merge` commands. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { diffReports, loadReport, mergeReports, renderDiffMarkdown, renderDiffText, renderJunit, renderSummary, writeReports } from '../src/reports/index.js';
import { intermittentLine, newlyFailingCounts } from '../src/results/attempts.js';
import { serializeReport } from '../src/reports/index.js';
import type { CheckResult, CheckStatus, RunReport } from '../src/results/model.js';
import { countStatuses } from '../src/results/verdict.js';
import { absentFromRun, assessRun } from '../src/results/assess.js';
import { check, report, standardChecks, standardReport } from './fixtures/reports/build.js';

const root = mkdtempSync(join(tmpdir(), 'fsapi-diff-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const BIN = fileURLToPath(new URL('../bin/fsapi-conformance.js', import.meta.url));

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function save(name: string, r: RunReport): string {
  const p = join(root, name);
  writeFileSync(p, serializeReport(r));
  return p;
}

function usageError(f: () => unknown): UsageError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return e as UsageError;
  }
  throw new Error('expected a UsageError');
}

const c = (requirement: string, status: CheckStatus, level: CheckResult['level'] = 'MUST', variant = 'default') =>
  check({ requirement, level, group: 'customers', operation: 'createCustomer', variant, status, message: `${requirement} is ${status}` });

describe('diffReports', () => {
  const baseline = report(
    [
      c('FSAPI-AUTH-001', 'passed'), // -> failed: regression
      c('FSAPI-AUTH-002', 'passed', 'SHOULD'), // -> error: regression (any level)
      c('FSAPI-AUTH-003', 'passed', 'SHOULD'), // -> warning: newly failing, not a regression
      c('FSAPI-AUTH-004', 'skipped'), // -> failed: newly failing, not a regression (never passed)
      c('FSAPI-AUTH-005', 'failed'), // -> passed: fixed
      c('FSAPI-AUTH-006', 'warning', 'PROFILE'), // -> passed: fixed
      c('FSAPI-AUTH-007', 'warning', 'SHOULD'), // -> failed (strict): neither
      c('FSAPI-AUTH-008', 'passed'), // removed
      c('FSAPI-AUTH-009', 'passed', 'INFO'), // -> error at INFO: regression (errors count at any level)
    ],
    { id: 'base' },
  );
  const current = report(
    [
      c('FSAPI-AUTH-001', 'failed'),
      c('FSAPI-AUTH-002', 'error', 'SHOULD'),
      c('FSAPI-AUTH-003', 'warning', 'SHOULD'),
      c('FSAPI-AUTH-004', 'failed'),
      c('FSAPI-AUTH-005', 'passed'),
      c('FSAPI-AUTH-006', 'passed', 'PROFILE'),
      c('FSAPI-AUTH-007', 'failed', 'SHOULD'),
      c('FSAPI-AUTH-009', 'error', 'INFO'),
      c('FSAPI-AUTH-010', 'failed'), // added and newly failing, not a regression
      c('FSAPI-AUTH-011', 'passed'), // added
    ],
    { id: 'now' },
  );
  const d = diffReports(baseline, current, 'base.json');
  const ids = (l: { requirement: string }[]) => l.map((e) => e.requirement);

  it('sorts checks into newly failing, fixed, added and removed, keyed on the check id', () => {
    expect(ids(d.newly_failing)).toEqual(['FSAPI-AUTH-001', 'FSAPI-AUTH-002', 'FSAPI-AUTH-003', 'FSAPI-AUTH-004', 'FSAPI-AUTH-009', 'FSAPI-AUTH-010']);
    expect(ids(d.fixed)).toEqual(['FSAPI-AUTH-005', 'FSAPI-AUTH-006']);
    expect(ids(d.added)).toEqual(['FSAPI-AUTH-010', 'FSAPI-AUTH-011']);
    expect(ids(d.removed)).toEqual(['FSAPI-AUTH-008']);
    expect(d.newly_failing[0]).toMatchObject({ before: 'passed', after: 'failed', level: 'MUST', message: 'FSAPI-AUTH-001 is failed' });
    expect(d.newly_failing.find((e) => e.requirement === 'FSAPI-AUTH-010')!.before).toBeUndefined();
    expect(d.baseline).toEqual({ path: 'base.json', run_id: 'base', verdict: baseline.verdict, started_at: baseline.run.started_at });
  });

  it('is a regression when a check that passed now fails at a blocking level or errors', () => {
    expect(d.regression).toBe(true);
    const only = (s: CheckStatus, level: CheckResult['level'] = 'MUST') =>
      diffReports(report([c('FSAPI-AUTH-001', 'passed', level)]), report([c('FSAPI-AUTH-001', s, level)])).regression;
    expect(only('failed')).toBe(true);
    expect(only('error', 'INFO')).toBe(true);
    expect(only('failed', 'SHOULD')).toBe(true); // a failed SHOULD (under --strict) blocks the verdict
    expect(only('warning', 'SHOULD')).toBe(false);
    expect(only('skipped')).toBe(false);
    expect(diffReports(report([c('FSAPI-AUTH-001', 'skipped')]), report([c('FSAPI-AUTH-001', 'failed')])).regression).toBe(false);
    expect(diffReports(report([]), report([c('FSAPI-AUTH-001', 'failed')])).regression).toBe(false);
  });

  it('counts the newly failing and the newly warning apart, and says which exit code the regression took over from', () => {
    expect(newlyFailingCounts(d.newly_failing)).toBe('5 newly failing, 1 newly warning');
    expect(newlyFailingCounts(diffReports(report([c('FSAPI-AUTH-001', 'passed')]), report([c('FSAPI-AUTH-001', 'failed')])).newly_failing)).toBe('1 newly failing');
    expect(renderDiffText(d, current, 'now.json')).toContain('\nnewly failing or warning (5 failing, 1 warning):\n');
    expect(renderDiffMarkdown(d)).toContain('**Newly failing or warning** (5 failing, 1 warning)');
    const md = renderSummary({ ...current, baseline: d });
    expect(current.verdict).toBe('non-conformant');
    // Exit 1 is the verdict's own code (non-conformant), not what the baseline found.
    expect(md).toContain('Exit code 4 rather than 1, the code of the verdict alone (non-conformant): a check that passed in the baseline fails now, a regression');
    expect(md).not.toMatch(/exit code would be/);
  });

  it('sets an intermittent failure apart: no regression, listed with its runs; and names MUST coverage lost', () => {
    const flaky = { ...c('FSAPI-AUTH-001', 'failed'), attempts: { runs: 6, failed: 2 }, intermittent: true };
    const f = diffReports(report([c('FSAPI-AUTH-001', 'passed')]), report([flaky]));
    expect(f.regression).toBe(false);
    expect(f.intermittent).toEqual([expect.objectContaining({ requirement: 'FSAPI-AUTH-001', attempts: { runs: 6, failed: 2 }, intermittent: true })]);
    // The verdict's line names the check, with its runs.
    expect(intermittentLine(f)).toBe(
      'intermittent: 1 check that passed in the baseline fails only sometimes (1 of 5 retries failed, 20%): FSAPI-AUTH-001 createCustomer default (failed 2 of 6 runs); still a failure of the target (exit 7 when no plain regression)',
    );
    const always = diffReports(report([c('FSAPI-AUTH-001', 'passed')]), report([{ ...flaky, attempts: { runs: 6, failed: 6 }, intermittent: undefined }]));
    expect([always.regression, always.intermittent]).toEqual([true, []]);
    const cov = (status: 'verified' | 'not-verified') => ({ must: {}, operations: {}, requirements: [{ id: 'FSAPI-TEN-001', level: 'MUST', status, checks: { executed: 0, total: 1 } }] });
    const [was, now] = [report([]), report([])];
    Object.assign(was, { coverage: cov('verified') });
    Object.assign(now, { coverage: cov('not-verified') });
    expect(diffReports(was, now).must_not_verified_now).toEqual(['FSAPI-TEN-001']);
    expect(diffReports(now, now).must_not_verified_now).toEqual([]);
  });

  it('finds nothing between a report and itself', () => {
    const same = diffReports(standardReport(), standardReport());
    expect([same.newly_failing, same.fixed, same.added, same.removed].flat()).toEqual([]);
    expect(same.regression).toBe(false);
  });
});

describe('loadReport', () => {
  it('reads a conformance.json, or the one in a report directory', () => {
    const p = save('ok.json', standardReport());
    expect(loadReport(p).run.id).toBe(standardReport().run.id);
    const d = join(root, 'okdir');
    mkdirSync(d);
    writeFileSync(join(d, 'conformance.json'), serializeReport(standardReport()));
    expect(loadReport(d).checks).toHaveLength(standardChecks().length);
  });

  it('refuses anything else with one message naming the file and the fix', () => {
    const file = (name: string, text: string) => {
      const p = join(root, name);
      writeFileSync(p, text);
      return p;
    };
    const junit = usageError(() => loadReport(file('junit.xml', renderJunit(standardReport()))));
    expect(junit.describe()).toMatch(/junit\.xml: is XML \(a JUnit report\), not a conformance\.json report\n {2}fix: /);
    expect(usageError(() => loadReport(file('garbage.json', '\u0000\u0001 not json {'))).message).toMatch(/is not JSON/);
    expect(usageError(() => loadReport(file('other.json', '{"stats":{"tests":3}}'))).message).toMatch(/not a conformance\.json report/);
    expect(usageError(() => loadReport(file('array.json', '[1,2]'))).message).toMatch(/expected an object/);
    const future = { ...standardReport(), schema_version: 2 };
    const e = usageError(() => loadReport(file('future.json', JSON.stringify(future))));
    expect(e.message).toMatch(/schema_version 2; this fsapi-conformance reads schema_version 1/);
    expect(e.fix).toMatch(/upgrade/);
    const bad = JSON.parse(JSON.stringify(standardReport())) as RunReport;
    (bad.checks[3] as { status: string }).status = 'maybe';
    const inv = usageError(() => loadReport(file('invalid.json', JSON.stringify(bad))));
    expect(inv.message).toMatch(/\/checks\/3\/status must be one of/);
    expect(inv.where).toBe('/checks/3/status');
    expect(usageError(() => loadReport(join(root, 'missing.json'))).message).toMatch(/cannot read the report \(ENOENT\)/);
    const empty = join(root, 'emptydir');
    mkdirSync(empty);
    expect(usageError(() => loadReport(empty)).fix).toMatch(/not a report directory/);
  });
});

describe('mergeReports', () => {
  const all = standardChecks();
  const shard = (i: number, n: number, over: Partial<{ seed: number }> = {}) =>
    report(
      all.filter((_, k) => k % n === i - 1),
      { id: `run-shard-${i}`, shard: { index: i, count: n }, ...over },
    );

  it('gives the single run: the same check ids, statuses, counts and verdict', () => {
    const single = standardReport();
    const merged = mergeReports([shard(3, 3), shard(1, 3), shard(2, 3)]);
    const key = (r: RunReport) => r.checks.map((x) => `${x.id}=${x.status}`).sort();
    expect(key(merged)).toEqual(key(single));
    expect(merged.verdict).toBe(single.verdict);
    expect(merged.counts).toEqual(countStatuses(single.checks));
    expect(merged.counts).toEqual(single.counts);
    expect(merged.gaps.map((g) => g.requirement)).toEqual(single.gaps.map((g) => g.requirement));
    expect(merged.run.merged_from).toEqual(['run-shard-1', 'run-shard-2', 'run-shard-3']);
    expect(merged.run.shard).toBeUndefined();
    expect(merged.run.id).toMatch(/^\d{8}-\d{6}-merged-[a-f0-9]{6}$/);
    expect(merged.run.requests_sent).toBe(single.run.requests_sent);
    expect(mergeReports([shard(1, 3), shard(2, 3), shard(3, 3)]).run.id).toBe(merged.run.id);
  });

  it('groups the checks of every shard under the document\'s contradictions again', () => {
    const bearerOnly = (operation: string): CheckResult => {
      const x = check({ requirement: 'FSAPI-AUTH-003', level: 'MUST', group: 'customers', operation, variant: 'bearer-only', status: 'failed', message: 'answered 200' });
      x.exchanges = [{ ...x.exchanges[0]!, operation, response: { ...x.exchanges[0]!.response!, status: 200 } }];
      return x;
    };
    const conflict = { requirement: 'FSAPI-AUTH-003', declaration: 'its security schemes carry the key only as Authorization: Bearer', pointer: '/components/securitySchemes/b', places: 1, operations: ['getA', 'getB'] };
    const part = (i: number, operation: string) => {
      const r = report([bearerOnly(operation)], { id: `conflict-${i}`, shard: { index: i, count: 2 } });
      return { ...r, document_conflicts: [{ ...conflict, checks: [`FSAPI-AUTH-003 ${operation} bearer-only`], failed: 1, warning: 0 }] };
    };
    const merged = mergeReports([part(1, 'getA'), part(2, 'getB')]);
    expect(merged.document_conflicts).toEqual([{ ...conflict, checks: ['FSAPI-AUTH-003 getA bearer-only', 'FSAPI-AUTH-003 getB bearer-only'], failed: 2, warning: 0 }]);
    expect(merged.counts.by_status.failed).toBe(2);
  });

  it('recomputes coverage over the merged checks: a requirement one shard could not run is verified by the other', () => {
    const requirements = [
      { id: 'FSAPI-AUTH-001', level: 'MUST' as const, scope: 'target' as const },
      { id: 'FSAPI-IDEM-002', level: 'MUST' as const, scope: 'target' as const },
      { id: 'FSAPI-WH-001', level: 'MUST' as const, scope: 'target' as const },
    ];
    const operations = [
      { operationId: 'listAccounts', method: 'GET', path: '/accounts', group: 'accounts' },
      { operationId: 'createTransfer', method: 'POST', path: '/transfers', group: 'transfers' },
      { operationId: 'listWebhooks', method: 'GET', path: '/webhooks', group: 'webhooks' },
    ];
    const plan = new Map([['FSAPI-IDEM-002', [{ suite: 'transfers', operation: 'createTransfer' }]], ['FSAPI-WH-001', [{ suite: 'webhooks', operation: 'listWebhooks' }]]]);
    const shardOf = (i: number, groups: string[], checks: CheckResult[]): RunReport => {
      const r = report(checks, { id: `cov-${i}`, shard: { index: i, count: 2 } });
      const a = assessRun({
        checks,
        requirements,
        waivers: [],
        absent: absentFromRun(plan, groups),
        operations,
        baseUrl: r.target.base_url,
        leftOut: (op) => (op.group && !groups.includes(op.group) ? `group ${op.group} is not in this run` : undefined),
        durationMs: r.run.duration_ms,
      });
      return { ...r, ...a };
    };
    const s1 = shardOf(1, ['accounts'], [check({ requirement: 'FSAPI-AUTH-001', level: 'MUST', group: 'accounts', operation: 'listAccounts', status: 'passed' })]);
    const s2 = shardOf(2, ['transfers', 'webhooks'], [check({ requirement: 'FSAPI-IDEM-002', level: 'MUST', group: 'transfers', operation: 'createTransfer', status: 'passed' })]);
    // Each shard alone: the other's requirements are not applicable to it, not "not verified".
    expect(s1.coverage!.requirements.find((r) => r.id === 'FSAPI-IDEM-002')!.status).toBe('not-applicable');
    // WH-001's suite ran in shard 2, whose document lacks nothing here but whose checks never came: not verified.
    expect(s2.coverage!.requirements.find((r) => r.id === 'FSAPI-WH-001')!.status).toBe('not-verified');
    const merged = mergeReports([s1, s2]);
    expect(merged.coverage!.requirements.map((r) => [r.id, r.status])).toEqual([
      ['FSAPI-AUTH-001', 'verified'],
      ['FSAPI-IDEM-002', 'verified'],
      ['FSAPI-WH-001', 'not-verified'],
    ]);
    expect(merged.verdict).toBe('inconclusive');
    expect(merged.headline).toMatch(/^inconclusive: 1 MUST requirement not verified \(FSAPI-WH-001: /);
    expect(merged.coverage!.operations).toMatchObject({ total: 3, exercised: 2, not_in_run: 0 });
    // Without the webhooks requirement's suite in any shard, the merge is conformant.
    const s2b = shardOf(2, ['transfers'], s2.checks);
    expect(mergeReports([s1, s2b])).toMatchObject({ verdict: 'conformant', coverage: { must: { verified: 2, applicable: 2, not_applicable: 1 } } });
  });

  it('is incomplete when a shard was', () => {
    const s2 = report(all.filter((_, k) => k % 2 === 1), { id: 'b', shard: { index: 2, count: 2 }, incomplete: 'SIGTERM' });
    const m = mergeReports([shard(1, 2), s2]);
    expect(m.verdict).toBe('incomplete');
    expect(m.run.incomplete_reason).toBe('shard 2/2: SIGTERM');
  });

  it('refuses duplicate or missing shards, shards of other runs, overlapping checks and unsharded reports', () => {
    expect(usageError(() => mergeReports([shard(1, 3), shard(1, 3), shard(3, 3)])).message).toMatch(/shard 1\/3 is given twice/);
    expect(usageError(() => mergeReports([shard(1, 3), shard(3, 3)])).message).toMatch(/shard 2\/3 missing: got 2 of 3/);
    expect(usageError(() => mergeReports([shard(1, 2), shard(2, 2, { seed: 7 })])).message).toMatch(/the seed differs \(7 vs 4242\)/);
    const live = (i: number, url: string) => {
      const r = shard(i, 2);
      r.target = { ...r.target, embedded: false, environment: 'live', base_url: url };
      return r;
    };
    expect(usageError(() => mergeReports([live(1, 'https://a.example.test'), live(2, 'https://b.example.test')])).message).toMatch(/the target differs/);
    expect(mergeReports([live(1, 'https://a.example.test'), live(2, 'https://a.example.test')]).target.base_url).toBe('https://a.example.test');
    // The embedded sandbox listens on a new port in each shard's process: that is still one target.
    const port = shard(2, 2);
    port.target.base_url = 'https://127.0.0.1:40000/v1/';
    expect(mergeReports([shard(1, 2), port]).checks).toHaveLength(all.length);
    const faulty = shard(2, 2);
    faulty.target.sandbox_faults = ['slow'];
    expect(usageError(() => mergeReports([shard(1, 2), faulty])).message).toMatch(/the target differs \(the embedded reference sandbox with faults slow vs/);
    const spec = shard(2, 2);
    spec.spec.sha256 = 'c'.repeat(64);
    expect(usageError(() => mergeReports([shard(1, 2), spec])).message).toMatch(/spec \(SHA-256\) differs/);
    const overlap = report(all.slice(0, 3), { id: 'x', shard: { index: 2, count: 2 } });
    expect(usageError(() => mergeReports([shard(1, 2), overlap])).message).toMatch(/is in two shards/);
    expect(usageError(() => mergeReports([shard(1, 2), standardReport()])).message).toMatch(/is not a shard report/);
    expect(usageError(() => mergeReports([shard(1, 2), report([], { shard: { index: 3, count: 2 } })])).message).toMatch(/out of range/);
    expect(usageError(() => mergeReports([])).message).toMatch(/no report given/);
  });
});

describe('fsapi-conformance diff', () => {
  const pass = () => report([c('FSAPI-AUTH-001', 'passed'), c('FSAPI-AUTH-002', 'failed')], { id: 'a' });
  const fail = () => report([c('FSAPI-AUTH-001', 'failed'), c('FSAPI-AUTH-002', 'passed')], { id: 'b' });

  it('exits 4 on a regression, printing newly failing and fixed checks', () => {
    const r = cli('diff', save('a.json', pass()), save('b.json', fail()), '--markdown', join(root, 'diff.md'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/newly failing \(1\):\n {2}FSAPI-AUTH-001 createCustomer default \[MUST\] passed -> failed REGRESSION: FSAPI-AUTH-001 is failed/);
    expect(r.stdout).toMatch(/fixed \(1\):\n {2}FSAPI-AUTH-002 /);
    expect(r.stdout).toMatch(/regression: yes/);
    expect(readFileSync(join(root, 'diff.md'), 'utf8')).toMatch(/\*\*Regression\*\*[\s\S]*\*\*Newly failing\*\* \(1\)/);
  });

  it('exits 0 without a regression (a fix is not one), and prints JSON with --json', () => {
    const allPass = report([c('FSAPI-AUTH-001', 'passed'), c('FSAPI-AUTH-002', 'passed')], { id: 'c' });
    const r = cli('diff', join(root, 'b.json'), save('c.json', allPass), '--json');
    expect(r.code).toBe(0);
    const d = JSON.parse(r.stdout) as ReturnType<typeof diffReports>;
    expect(d.regression).toBe(false);
    expect(d.fixed.map((e) => e.requirement)).toEqual(['FSAPI-AUTH-001']);
  });

  it('exits 2 with one clear message on a file that is not a report', () => {
    writeFileSync(join(root, 'not-a-report.xml'), renderJunit(standardReport()));
    const r = cli('diff', join(root, 'a.json'), join(root, 'not-a-report.xml'));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: .*not-a-report\.xml: is XML \(a JUnit report\), not a conformance\.json report\n {2}fix: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(cli('diff', join(root, 'a.json')).code).toBe(2);
  });
});

describe('fsapi-conformance merge', () => {
  it('merges shard directories into a new report directory and exits with the verdict', async () => {
    const all = standardChecks();
    const dirs: string[] = [];
    for (const i of [1, 2]) {
      const d = join(root, 'shards', `s${i}`);
      mkdirSync(join(d, 'allure-results'), { recursive: true });
      writeFileSync(join(d, 'allure-results', `uuid-${i}-result.json`), `{"name":"shard ${i}"}`);
      await writeReports(report(all.filter((_, k) => k % 2 === i - 1), { id: `s${i}`, shard: { index: i, count: 2 } }), {
        dir: d,
        reportRoot: join(root, 'shards'),
        html: false,
      });
      dirs.push(d);
    }
    const out = join(root, 'merged', 'm1');
    const r = cli('merge', ...dirs, '--out', out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/merged 2 shard reports \(runs s1, s2\)/);
    expect(r.stdout).toMatch(/verdict: non-conformant \(exit 1\)/);
    for (const f of ['conformance.json', 'summary.md', 'junit.xml', 'SHA256SUMS', 'allure-results/uuid-1-result.json', 'allure-results/uuid-2-result.json']) {
      expect(existsSync(join(out, f)), f).toBe(true);
    }
    const merged = loadReport(out);
    expect(merged.checks.map((x) => x.id).sort()).toEqual(all.map((x) => x.id).sort());
    expect(merged.verdict).toBe(standardReport().verdict);
    expect(spawnSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: out }).status).toBe(0);
    // The output directory is new; a shard given twice is refused.
    expect(cli('merge', ...dirs, '--out', out).stderr).toMatch(/already exists and is not empty/);
    const dup = cli('merge', dirs[0]!, dirs[0]!, '--out', join(root, 'merged', 'm2'));
    expect(dup.code).toBe(2);
    expect(dup.stderr).toMatch(/shard 1\/2 is given twice/);
    expect(existsSync(join(root, 'merged', 'm2'))).toBe(false);
  });
});
