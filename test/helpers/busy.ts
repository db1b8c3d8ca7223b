/**
 * A test's time limit, given as what it needs on an idle 2-core machine and stretched for one busy with other work:
 * under a load average of 15-30 (other jobs, helpers, a second test run) a run of three suites took over 120 s where
 * it takes 20 s idle. A limit bounds a hung test; it must never fail a slow one (issue 32).
 */
export const BUSY_FACTOR = 4;

export const busy = (idleMs: number): number => idleMs * BUSY_FACTOR;
