/**
 * An interrupt keeps the run's word at any moment after the command starts: either the console promises the
 * report (verdict incomplete) and the run writes it and exits 5, or the console promises nothing. Each case
 * interrupts on an event the run shows (a line it prints, the preflight's request arriving), never after a sleep.
 * And a run cut short by its own test runner says so, rather than blaming the document.
 */
import { existsSync, mkdtempSync, readFileSync, watch, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planChecks } from '../src/checks/planner.js';
import type { RunReport } from '../src/results/model.js';
import { startSandbox, type RunningSandbox } from '../sandbox/index.js';
import { runCli, sandboxTargetEnv, spawnCli, type SpawnedCli } from './helpers/cli.js';
import { HOSTILE_KEY, HOSTILE_TENANT } from './helpers/hostile.js';
import { httpsServer, type TestServer } from './helpers/servers.js';
import { loadCatalogue } from '../src/binding/catalogue-in-use.js';
import { TEST_SPIN_VARIABLE } from '../src/harness/test-spin.js';
import { busy } from './helpers/busy.js';

const PROMISE = /: stopping; the report will hold what was learnt \(verdict incomplete\)/;
const open: TestServer[] = [];
const sandboxes: RunningSandbox[] = [];
afterAll(async () => Promise.all(sandboxes.map((s) => s.close())));
/** Checks a full run against the embedded sandbox plans: an interrupted one ends with fewer. */
let planned: number;
beforeAll(async () => {
  planned = (await planChecks(await loadCatalogue())).length;
});
afterAll(async () => Promise.all(open.map((s) => s.close())));

const reportOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'latest', 'conformance.json'), 'utf8')) as RunReport;

/** Runs the CLI, sends `signal` once `when` has happened, and returns what the run left. */
async function interrupted(when: (cli: SpawnedCli) => Promise<unknown>, env: Record<string, string> = {}, signal: NodeJS.Signals = 'SIGINT') {
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-interrupt-'));
  const cli = spawnCli(['run', '--seed', '7', '--report-dir', dir], env);
  await when(cli);
  cli.child.kill(signal);
  const r = await cli.done;
  return { ...r, dir };
}

/** The word kept: the promise was printed, the report was written with verdict incomplete, and the run exited 5. */
function expectReportKept(r: { code: number | null; stdout: string; stderr: string; dir: string }): RunReport {
  expect(r.stderr).toMatch(PROMISE);
  expect(r.code, r.stderr).toBe(5);
  const report = reportOf(r.dir);
  expect(report.verdict).toBe('incomplete');
  expect(report.run.incomplete_reason).toMatch(/interrupted/);
  expect(r.stdout).toMatch(/^verdict: INCOMPLETE/m);
  return report;
}

describe('an interrupt keeps the word the console gives', { timeout: busy(120_000) }, () => {
  it('at start-up, as soon as the run names its target: the report of a run with no check, every unverified MUST diagnosed as interrupted', async () => {
    const r = await interrupted((cli) => cli.stdoutLine(/^fsapi-conformance \S+: embedded reference sandbox/));
    const report = expectReportKept(r);
    expect(report.checks).toEqual([]);
    const unverified = report.coverage!.requirements.filter((q) => q.level === 'MUST' && q.status === 'not-verified');
    expect(unverified.length).toBeGreaterThan(0);
    expect(unverified.filter((q) => q.cause !== 'interrupted').map((q) => `${q.id}: ${q.cause}`)).toEqual([]);
    expect(report.diagnostics!.filter((d) => d.kind === 'unverified-must').map((d) => d.cause)).toEqual(['interrupted']);
  });

  it('while vitest starts its workers, once the run says it is running the suites (SIGTERM)', async () => {
    const r = await interrupted((cli) => cli.stderrLine(/^running \d+ suites/), {}, 'SIGTERM');
    expect(r.stderr).toMatch(/^SIGTERM: stopping/m);
    expect(expectReportKept(r).checks.length).toBeLessThan(planned);
  });

  it('while the checks run, once the first suite has reported: the checks done are in the report', async () => {
    const r = await interrupted((cli) => cli.stdoutLine(/^ {2}(ok|x|!) +\S+ +\d+ checks?/));
    const report = expectReportKept(r);
    expect(report.checks.length).toBeGreaterThan(0);
    expect(report.checks.length).toBeLessThan(planned);
    expect(report.counts.by_status.total).toBe(report.checks.length);
  });

  it("during a remote target's preflight, while its one request waits for an answer", async () => {
    let arrived!: () => void;
    const preflightArrived = new Promise<void>((resolve) => (arrived = resolve));
    const held: ServerResponse[] = [];
    // Never answers: the run is interrupted while it waits.
    const t = await httpsServer((_req, res) => {
      held.push(res);
      arrived();
    });
    open.push(t);
    const ca = join(mkdtempSync(join(tmpdir(), 'fsapi-interrupt-ca-')), 'ca.pem');
    writeFileSync(ca, t.cert.cert);
    const r = await interrupted(() => preflightArrived, { FSAPI_BASE_URL: t.url, FSAPI_API_KEY: HOSTILE_KEY, FSAPI_TENANT_ID: HOSTILE_TENANT, FSAPI_CA_FILE: ca });
    const report = expectReportKept(r);
    expect(report.checks).toEqual([]);
    expect(report.target.embedded).toBe(false);
    expect(t.requests).toHaveLength(1);
  });

  it('while vitest starts up for a remote target, once the run has made its report directory: no check is started', async () => {
    const sb = await startSandbox({ httpPort: 0 });
    sandboxes.push(sb);
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-interrupt-'));
    // The run makes <report-dir>/<run id> just before vitest starts up (its checks then start after it).
    const made = new Promise<void>((resolve) => {
      const w = watch(dir, () => {
        w.close();
        resolve();
      });
    });
    const cli = spawnCli(['run', '--groups', 'accounts', '--seed', '7', '--report-dir', dir], { ...sandboxTargetEnv(sb), FSAPI_PLAIN_HTTP_URL: sb.plain_http_url! });
    await made;
    cli.child.kill('SIGINT');
    const r = { ...(await cli.done), dir };
    const accounts = (await planChecks(await loadCatalogue(), ['accounts'])).length;
    expect(expectReportKept(r).checks.length).toBeLessThan(accounts);
  });

  it('while a worker spins in a synchronous loop (the test-only hook): the worker is stopped and the report still written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-interrupt-'));
    const spinning = 'FSAPI-ACC-001 listAccounts seed-request';
    const cli = spawnCli(['run', '--groups', 'accounts', '--seed', '7', '--report-dir', dir], { [TEST_SPIN_VARIABLE]: spinning });
    await cli.stderrLine(/spinning in FSAPI-ACC-001 listAccounts seed-request/);
    cli.child.kill('SIGTERM');
    const r = { ...(await cli.done), dir };
    // Told apart at once (it does not answer), not after the grace period the other workers' checks get.
    expect(r.stderr).toMatch(/worker \d+ is busy in synchronous code and cannot hear the interrupt: stopping it/);
    expect(r.stderr).not.toMatch(/did not stop within/);
    const report = expectReportKept(r);
    expect(report.checks.map((c) => c.id)).not.toContain(spinning);
  });

  it('the moment the process is spawned: the report with verdict incomplete, or no promise at all', async () => {
    const r = await interrupted(async () => undefined);
    if (PROMISE.test(r.stderr)) expectReportKept(r);
    else {
      expect(r.stderr).not.toMatch(/report/);
      expect(existsSync(join(r.dir, 'latest'))).toBe(false);
    }
  });
});

describe('a worker that spins with nobody to interrupt it', { timeout: busy(120_000) }, () => {
  it('is stopped by the watchdog once its check is past its limit: verdict incomplete (exit 5), the check named as the suite\'s defect, the finished checks kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-watchdog-'));
    const stuck = 'FSAPI-ACC-001 listAccounts seed-request';
    // Blocked, not spinning: the same stuck event loop without a core burnt for the check's 40 s limit and the grace.
    const r = await runCli(['run', '--groups', 'accounts', '--seed', '7', '--report-dir', dir], { [TEST_SPIN_VARIABLE]: `block:${stuck}` });
    expect(r.stderr).toMatch(/blocked in FSAPI-ACC-001 listAccounts seed-request/);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/worker \d+ is stuck in synchronous code and does not answer, \d+ s into a check whose limit is 40 s; it last started FSAPI-ACC-001 listAccounts seed-request.*\. A defect of the suite, not of the target/);
    const report = reportOf(dir);
    expect(report.verdict).toBe('incomplete');
    expect(report.run.incomplete_reason).toMatch(/the run was stopped: worker \d+ is stuck in synchronous code .* it last started FSAPI-ACC-001 listAccounts seed-request/);
    expect(report.checks.map((c) => c.id)).not.toContain(stuck);
    // What finished before the watchdog struck is kept, judged as it was, and nothing is failed for the stop.
    expect(report.checks.length).toBeGreaterThan(0);
    expect(report.checks.filter((c) => c.status === 'failed' || c.status === 'error')).toEqual([]);
  });
});

describe('a suite the test runner could not start', { timeout: busy(120_000) }, () => {
  it('is a suite error (verdict incomplete, exit 5), its requirements not verified for that cause, not "not in the document"', async () => {
    // vitest hands --cpu-prof-dir to its worker threads without its value, so none of them starts: a runner fault.
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-cut-'));
    const r = await runCli(['run', '--groups', 'accounts', '--seed', '7', '--report-dir', join(dir, 'reports')], {}, dir, ['--cpu-prof', '--cpu-prof-dir', join(dir, 'profiles')]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/suite error: suite accounts: it never ran/);
    const report = reportOf(join(dir, 'reports'));
    expect(report.verdict).toBe('incomplete');
    const unverified = report.coverage!.requirements.filter((q) => q.level === 'MUST' && q.status === 'not-verified');
    expect(unverified.length).toBeGreaterThan(0);
    expect([...new Set(unverified.map((q) => q.cause))]).toEqual(['suite-error']);
    expect(report.diagnostics!.filter((d) => d.kind === 'unverified-must').map((d) => d.cause)).toEqual(['suite-error']);
  });
});
