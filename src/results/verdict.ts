import { BLOCKING_LEVELS, isBlockingLevel, LEVELS, type Level } from '../catalogue/levels.js';
import { CHECK_STATUSES, type CheckResult, type CheckStatus, type Coverage, type RunReport, type StatusCounts, type Verdict } from './model.js';

// Named here too for the reports that show the verdict.
export { BLOCKING_LEVELS };

/** A check that errored because the target kept answering 429/503: the run learnt nothing, the target broke nothing. */
export const isRateLimited = (c: CheckResult): boolean => c.status === 'error' && c.cause === 'rate-limited';

/** A check whose outcome makes the target non-conformant. */
export const isBlockingFailure = (c: CheckResult): boolean =>
  (c.status === 'failed' && c.level !== 'INFO') || (c.status === 'error' && isBlockingLevel(c.level) && !isRateLimited(c));

/**
 * incomplete when the run was cut short; non-conformant when a blocking check failed or errored; inconclusive when
 * nothing blocking failed but a MUST requirement that applies was not verified, or a check was rate-limited;
 * conformant otherwise. Under --strict the harness records SHOULD/PROFILE failures as `failed` (not `warning`),
 * and they then block too. Without `coverage` (a report from before coverage existed) only the checks decide.
 */
export function computeVerdict(checks: readonly CheckResult[], opts: { incomplete?: boolean; coverage?: Coverage } = {}): Verdict {
  if (opts.incomplete) return 'incomplete';
  if (checks.some(isBlockingFailure)) return 'non-conformant';
  if ((opts.coverage?.must.not_verified ?? 0) > 0 || checks.some(isRateLimited)) return 'inconclusive';
  return 'conformant';
}

/** Exit codes, documented in the README and in `run --help`. */
export const EXIT = {
  conformant: 0,
  nonConformant: 1,
  usage: 2,
  internal: 3,
  regression: 4,
  incomplete: 5,
  inconclusive: 6,
  intermittent: 7,
} as const;

export const EXIT_CODE_HELP = [
  { code: EXIT.conformant, meaning: 'conformant: no MUST or CONTRACT check failed or errored, and every MUST requirement that applies was verified (or waived, not under --strict)' },
  { code: EXIT.nonConformant, meaning: 'non-conformant: a MUST or CONTRACT check failed or errored (with --strict, also SHOULD/PROFILE)' },
  { code: EXIT.usage, meaning: 'configuration, file or connectivity error before testing (one message says what to fix)' },
  { code: EXIT.internal, meaning: 'internal error of the suite' },
  { code: EXIT.regression, meaning: 'with --baseline: a check that passed in the baseline fails now (takes precedence over 0 and 1)' },
  { code: EXIT.incomplete, meaning: 'incomplete: the run was interrupted (SIGINT/SIGTERM); the report holds what was learnt' },
  { code: EXIT.inconclusive, meaning: 'inconclusive: nothing blocking failed, but a MUST requirement that applies was not verified (or the target rate-limited checks); the headline says which' },
  { code: EXIT.intermittent, meaning: 'with --baseline: a check that passed in the baseline fails now only sometimes (a retry passed; --retries); no plain regression. Still non-conformant' },
];

/** Precedence: incomplete (5) > regression (4) > intermittent (7) > non-conformant (1) > inconclusive (6) > conformant (0). */
export function exitCodeFor(verdict: Verdict, regression = false, intermittent = false): number {
  if (verdict === 'incomplete') return EXIT.incomplete;
  if (regression) return EXIT.regression;
  if (intermittent) return EXIT.intermittent;
  return verdict === 'conformant' ? EXIT.conformant : verdict === 'inconclusive' ? EXIT.inconclusive : EXIT.nonConformant;
}

/** A written report's exit code: its verdict and its baseline diff (regression, intermittent failures). */
export function exitCodeOf(report: Pick<RunReport, 'verdict' | 'baseline'>): number {
  return exitCodeFor(report.verdict, report.baseline?.regression ?? false, (report.baseline?.intermittent?.length ?? 0) > 0);
}

export function emptyCounts(): StatusCounts {
  return { total: 0, passed: 0, failed: 0, warning: 0, skipped: 0, error: 0 };
}

export function countStatuses(checks: readonly CheckResult[]): RunReport['counts'] {
  const byStatus = emptyCounts();
  const byLevel = Object.fromEntries(LEVELS.map((l) => [l, emptyCounts()])) as Record<Level, StatusCounts>;
  const byGroup: Record<string, StatusCounts> = {};
  const add = (c: StatusCounts, s: CheckStatus) => {
    c[s]++;
    c.total++;
  };
  for (const c of checks) {
    add(byStatus, c.status);
    add(byLevel[c.level], c.status);
    add((byGroup[c.group] ??= emptyCounts()), c.status);
  }
  return { by_status: byStatus, by_level: byLevel, by_group: byGroup };
}

export { CHECK_STATUSES };
