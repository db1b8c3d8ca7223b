import type { SuiteSlug } from '../catalogue/groups.js';
import { listenForRequestTotals } from '../harness/request-totals.js';
import { listenForCheckActivity } from '../harness/checks-in-progress.js';
import type { ResultCollector } from './collector.js';
import type { ProgressCounts } from './progress.js';
import type { PacingNow } from '../http/rate-limiter.js';
import type { Catalogue } from '../binding/catalogue-in-use.js';

/** Where the live progress line's numbers come from, the checks' results aside (the collector, once vitest is up). */
export interface ProgressSources {
  runId: string;
  catalogue: Catalogue;
  groups: readonly SuiteSlug[];
  mainThreadRequests: () => number;
  /** The run's pacing now (src/http/rate-limiter.ts). */
  pacing: () => PacingNow;
}

/**
 * Where the live progress line's numbers come from during a run: checks done and failed (the collector), checks
 * planned (the planner), requests sent (the workers' running totals, and `mainThreadRequests` such as the
 * preflight's), the check that has held a worker longest. `close` stops listening to the workers.
 */
export function progressCounts(a: ProgressSources & { collector: ResultCollector }): { counts: () => ProgressCounts; close: () => void } {
  let planned: number | undefined;
  let planning: Promise<void> | undefined;
  const live = new Map<string, number>();
  const stopTotals = listenForRequestTotals(a.runId, (suite, n) => live.set(suite, Math.max(n, live.get(suite) ?? 0)));
  const checks = listenForCheckActivity(a.runId);
  const close = () => {
    stopTotals();
    checks.close();
  };
  const counts = (): ProgressCounts => {
    const done = a.collector.counts;
    // The planner imports every suite file of the run: it counts once the checks are running, so that it never
    // delays their start.
    if (!planning && done.done > 0) {
      planning = import('../checks/planner.js')
        .then(({ planChecks }) => planChecks(a.catalogue, a.groups))
        .then((p) => void (planned = p.length), () => undefined);
    }
    const longest = checks.longest();
    return { ...done, planned, requests: a.collector.requestsSoFar(live) + a.mainThreadRequests(), pacing: a.pacing(), ...(longest ? { longest } : {}) };
  };
  return { counts, close };
}
