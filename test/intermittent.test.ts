/**
 * Intermittent failures against a baseline, wired end to end: behind a proxy that breaks some 401 answers at random
 * (a 403 instead), the checks that passed in the baseline and now fail are run again; those a retry passes are
 * reported intermittent, on stdout and in summary.md. A fault that is always there (the sandbox's
 * accounts-list-empty) stays a plain regression: every retry fails, exit 4. The arithmetic (which failures are
 * retried, runs and failures counted, the rate, the exit code's precedence) is unit-tested in
 * test/exit-and-retries.test.ts, so this one run keeps to one group and a few retries.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../sandbox/index.js';
import type { RunReport } from '../src/results/model.js';
import { runCli, sandboxTargetEnv } from './helpers/cli.js';
import { gateway, type Gateway } from './helpers/gateway.js';
import { busy } from './helpers/busy.js';

const open: (RunningSandbox | Gateway)[] = [];
afterAll(async () => Promise.all(open.map((x) => x.close())));
const load = (dir: string) => JSON.parse(readFileSync(join(dir, 'latest', 'conformance.json'), 'utf8')) as RunReport;
// Often enough that some auth checks of one group fail at first, rarely enough that a retry of each passes.
const RATE = 0.3;
const RETRIES = 3;

describe('a target that breaks some answers at random, compared with its baseline', { timeout: busy(300_000) }, () => {
  it('retries the newly failing checks: those a retry passes are intermittent, a deterministic fault a plain regression', async () => {
    const [before, after] = await Promise.all([startSandbox({ httpPort: 0 }), startSandbox({ httpPort: 0, faults: ['accounts-list-empty'] })]);
    open.push(before, after);
    const gw = await gateway({ upstream: after.base_url, upstreamCa: after.ca_pem, flaky: { status: 401, rate: RATE, seed: 22 } });
    open.push(gw);
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-intermittent-'));
    writeFileSync(join(dir, 'gateway.pem'), gw.cert.cert);
    const args = (out: string) => ['run', '--groups', 'accounts', '--seed', '22', '--report-dir', join(dir, out)];

    const base = await runCli(args('baseline'), { ...sandboxTargetEnv(before), FSAPI_PLAIN_HTTP_URL: before.plain_http_url! });
    expect(base.code, base.stderr).toBe(0);
    const now = await runCli([...args('now'), '--baseline', join(dir, 'baseline', 'latest'), '--retries', String(RETRIES)], {
      ...sandboxTargetEnv(after),
      FSAPI_BASE_URL: gw.url,
      FSAPI_CA_FILE: join(dir, 'gateway.pem'),
      FSAPI_PLAIN_HTTP_URL: after.plain_http_url!,
    });
    const report = load(join(dir, 'now'));
    const diff = report.baseline!;

    // The deterministic fault: ACC-001 fails on every run, so it is a regression (exit 4 wins over 7).
    expect(now.code, now.stderr).toBe(4);
    const acc = diff.newly_failing.find((e) => e.requirement === 'FSAPI-ACC-001')!;
    expect(acc.attempts).toEqual({ runs: RETRIES + 1, failed: RETRIES + 1 });
    expect(acc.intermittent).toBeUndefined();
    expect(diff.regression).toBe(true);

    // The random fault: only auth checks (their one request answered 401) fail, and only sometimes.
    expect(gw.counts.flakyBroken).toBeGreaterThan(0);
    expect(diff.intermittent!.length).toBeGreaterThan(0);
    for (const e of diff.intermittent!) {
      expect(e.requirement).toMatch(/^FSAPI-AUTH-/);
      expect(e.attempts!.runs).toBe(RETRIES + 1);
    }
    // Each intermittent check failed at first and then at most every retry but one.
    for (const e of diff.intermittent!) expect(e.attempts!.failed).toBeLessThan(RETRIES + 1);
    console.log(`[intermittent] proxy broke ${gw.counts.flakyBroken} of ${gw.counts.flakyCandidates} 401 answers; ${diff.intermittent!.length} checks intermittent`);
    // Still a failure of the target: non-conformant, and the verdict says intermittent in its own line.
    expect(report.verdict).toBe('non-conformant');
    expect(now.stdout).toMatch(/^intermittent: \d+ checks? that passed in the baseline fails? only sometimes/m);
    expect(readFileSync(join(dir, 'now', 'latest', 'summary.md'), 'utf8')).toMatch(/\*\*intermittent: /);
  });
});
