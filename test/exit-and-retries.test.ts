/**
 * The arithmetic a run against a baseline ends on, as pure functions: the exit code's precedence over every verdict
 * and flag, which failures are retried and how runs and failures are counted, the retry failure rate, and when a
 * newly failing check is a regression or only intermittent. test/intermittent.test.ts keeps one run through the CLI
 * to show the pieces are wired together; these are the rules themselves.
 */
import { describe, expect, it } from 'vitest';
import { withRetries } from '../src/harness/retry.js';
import { describeAttempts, intermittentLine, retryFailureRate } from '../src/results/attempts.js';
import type { BaselineDiff, CheckResult, CheckStatus, DiffEntry, Verdict } from '../src/results/model.js';
import { computeVerdict, EXIT, exitCodeFor, exitCodeOf } from '../src/results/verdict.js';
import { isRegression } from '../src/reports/diff.js';

const VERDICTS: Verdict[] = ['conformant', 'non-conformant', 'inconclusive', 'incomplete'];

describe('exit code precedence: incomplete 5 > regression 4 > intermittent 7 > non-conformant 1 > inconclusive 6 > conformant 0', () => {
  it('gives every verdict with every pair of baseline flags its one code', () => {
    const table = VERDICTS.flatMap((v) => [false, true].flatMap((regression) => [false, true].map((intermittent) => `${v} r=${+regression} i=${+intermittent} -> ${exitCodeFor(v, regression, intermittent)}`)));
    expect(table).toEqual([
      'conformant r=0 i=0 -> 0',
      'conformant r=0 i=1 -> 7',
      'conformant r=1 i=0 -> 4',
      'conformant r=1 i=1 -> 4',
      'non-conformant r=0 i=0 -> 1',
      'non-conformant r=0 i=1 -> 7',
      'non-conformant r=1 i=0 -> 4',
      'non-conformant r=1 i=1 -> 4',
      'inconclusive r=0 i=0 -> 6',
      'inconclusive r=0 i=1 -> 7',
      'inconclusive r=1 i=0 -> 4',
      'inconclusive r=1 i=1 -> 4',
      'incomplete r=0 i=0 -> 5',
      'incomplete r=0 i=1 -> 5',
      'incomplete r=1 i=0 -> 5',
      'incomplete r=1 i=1 -> 5',
    ]);
  });

  it("reads a written report's flags from its baseline diff: intermittent only when the list holds one", () => {
    const diff = (regression: boolean, intermittent: number) => ({ regression, intermittent: Array.from({ length: intermittent }, () => ({}) as DiffEntry) }) as BaselineDiff;
    expect(exitCodeOf({ verdict: 'non-conformant' })).toBe(EXIT.nonConformant);
    expect(exitCodeOf({ verdict: 'non-conformant', baseline: diff(false, 0) })).toBe(EXIT.nonConformant);
    expect(exitCodeOf({ verdict: 'non-conformant', baseline: diff(false, 1) })).toBe(EXIT.intermittent);
    expect(exitCodeOf({ verdict: 'non-conformant', baseline: diff(false, 2) })).toBe(EXIT.intermittent);
    expect(exitCodeOf({ verdict: 'non-conformant', baseline: diff(true, 2) })).toBe(EXIT.regression);
    expect(exitCodeOf({ verdict: 'incomplete', baseline: diff(true, 2) })).toBe(EXIT.incomplete);
  });

  it('a rate-limited error makes the run inconclusive, never non-conformant; a MUST left unverified too', () => {
    const c = (status: CheckStatus, extra: Partial<CheckResult> = {}) => ({ level: 'MUST', status, ...extra }) as CheckResult;
    expect(computeVerdict([c('passed'), c('error', { cause: 'rate-limited' })])).toBe('inconclusive');
    expect(computeVerdict([c('failed'), c('error', { cause: 'rate-limited' })])).toBe('non-conformant');
    expect(computeVerdict([c('passed')], { coverage: { must: { not_verified: 1 } } as never })).toBe('inconclusive');
    expect(computeVerdict([c('failed')], { incomplete: true })).toBe('incomplete');
    expect(computeVerdict([c('failed', { level: 'INFO' })])).toBe('conformant');
  });
});

describe('retries of a check that passed in the baseline', () => {
  const result = (status: CheckStatus, extra: Partial<CheckResult> = {}) => ({ id: 'FSAPI-AUTH-001 getAccount no-key', status, ...extra }) as CheckResult;
  const plan = (retries: number, passed = ['FSAPI-AUTH-001 getAccount no-key']) => ({ retries, passed });
  /** `again` answering the given statuses in turn, counting its calls. */
  const again = (...statuses: CheckStatus[]) => {
    const calls: number[] = [];
    const fn = async (attempt: number) => {
      calls.push(attempt);
      return result(statuses[attempt - 1]!);
    };
    return { fn, calls };
  };

  it('runs every retry, even after one passed, and counts the first run among the runs and the failures', async () => {
    const a = again('passed', 'failed', 'passed', 'failed');
    const r = await withRetries(result('failed'), plan(4), a.fn);
    expect(a.calls).toEqual([1, 2, 3, 4]);
    expect(r.attempts).toEqual({ runs: 5, failed: 3 });
    expect(r.intermittent).toBe(true);
    expect(r.status).toBe('failed');
    // One passing retry is enough: failed on every run but one.
    const once = await withRetries(result('failed'), plan(2), again('failed', 'passed').fn);
    expect(once.attempts).toEqual({ runs: 3, failed: 2 });
    expect(once.intermittent).toBe(true);
  });

  it('a failure every retry repeats is no intermittent one; an error (not rate-limited) counts as a failure', async () => {
    const r = await withRetries(result('failed'), plan(3), again('failed', 'error', 'failed').fn);
    expect(r.attempts).toEqual({ runs: 4, failed: 4 });
    expect(r.intermittent).toBeUndefined();
    const errored = await withRetries(result('failed'), plan(2), again('error', 'passed').fn);
    expect(errored.attempts).toEqual({ runs: 3, failed: 2 });
  });

  it('retries nothing that passed, was not passing in the baseline, was rate-limited, or with no retries asked', async () => {
    for (const [first, p] of [
      [result('passed'), plan(3)],
      [result('failed'), plan(3, ['another check'])],
      [result('error', { cause: 'rate-limited' }), plan(3)],
      [result('failed'), plan(0)],
      [result('failed'), undefined],
    ] as const) {
      const a = again('passed', 'passed', 'passed');
      expect(await withRetries(first, p, a.fn)).toBe(first);
      expect(a.calls).toEqual([]);
    }
  });

  it('rates failures over the retries only (the first run was retried for failing)', () => {
    expect(retryFailureRate({ runs: 21, failed: 3 })).toBeCloseTo(2 / 20);
    expect(retryFailureRate({ runs: 1, failed: 1 })).toBe(1);
    expect(describeAttempts({ attempts: { runs: 11, failed: 3 } })).toBe('failed 3 of 11 runs; 20% of the 10 retries');
    expect(describeAttempts({})).toBe('');
  });

  it("sums the verdict's intermittent line over the retries of every intermittent check, naming three", () => {
    const e = (id: string, runs: number, failed: number): DiffEntry => ({ id, requirement: 'FSAPI-AUTH-001', level: 'MUST', attempts: { runs, failed }, intermittent: true });
    const diff = { intermittent: [e('a', 11, 2), e('b', 11, 3), e('c', 6, 1), e('d', 6, 6)] } as BaselineDiff;
    const line = intermittentLine(diff)!;
    expect(line).toMatch(/^intermittent: 4 checks that passed in the baseline fail only sometimes \(8 of 30 retries failed, 27%\)/);
    expect(line).toContain('a (failed 2 of 11 runs), b (failed 3 of 11 runs), c (failed 1 of 6 runs) and 1 more');
    expect(line).toContain(`exit ${EXIT.intermittent} when no plain regression`);
    expect(intermittentLine({ intermittent: [] } as unknown as BaselineDiff)).toBeUndefined();
  });

  it('an intermittent check is no regression; a blocking failure or any error of a check that passed is', () => {
    const d = (after: CheckStatus, extra: Partial<DiffEntry> = {}): DiffEntry => ({ id: 'x', requirement: 'FSAPI-AUTH-001', level: 'MUST', before: 'passed', after, ...extra });
    expect(isRegression(d('failed'))).toBe(true);
    expect(isRegression(d('failed', { intermittent: true }))).toBe(false);
    expect(isRegression(d('error', { level: 'INFO' }))).toBe(true);
    expect(isRegression(d('failed', { level: 'INFO' }))).toBe(false);
    expect(isRegression(d('warning'))).toBe(false);
    expect(isRegression(d('failed', { before: 'skipped' }))).toBe(false);
  });
});
