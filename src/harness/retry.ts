/**
 * Intermittent failures: with a baseline, a check that passed there and fails now is run again, a bounded number of
 * times (FSAPI_RETRIES). When a retry passes, the check is intermittent: it stays failed (a target that sometimes
 * breaks a MUST is not conformant), but the baseline diff reports it apart from plain regressions, with its rate.
 */
import type { CheckResult } from '../results/model.js';
import { isRateLimited } from '../results/verdict.js';
import type { WorkerConfig } from './worker-config.js';

/** A failure a retry can tell apart: failed, or errored for another reason than the target's rate limiting. */
const isRetryable = (r: CheckResult): boolean => r.status === 'failed' || (r.status === 'error' && !isRateLimited(r));

/**
 * Runs `again` up to plan.retries times when `first` is a failure the baseline did not have; every retry runs (not
 * only until one passes) so the failure rate comes from a known number of runs.
 */
export async function withRetries(first: CheckResult, plan: WorkerConfig['rerun'], again: (attempt: number) => Promise<CheckResult>): Promise<CheckResult> {
  if (!plan || plan.retries < 1 || !isRetryable(first) || !plan.passed.includes(first.id)) return first;
  let failed = 1;
  for (let attempt = 1; attempt <= plan.retries; attempt++) {
    if (isRetryable(await again(attempt))) failed++;
  }
  const runs = plan.retries + 1;
  return { ...first, attempts: { runs, failed }, ...(failed < runs ? { intermittent: true } : {}) };
}

