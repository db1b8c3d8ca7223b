/**
 * What the exploration phase did in a run, summed from its checks' facts (src/checks/explore.ts records them): the
 * headline and the progress line say it, so a budget that left most of the input space unexplored is seen without
 * opening conformance.json.
 */
import { plural } from '../plural.js';
import type { CheckResult } from './model.js';

/** The variant of an exploration check (its id ends with it). */
export const EXPLORE_VARIANT = 'explore';

/** The variant of the check that judges the same exploration for server errors, documented or not (FSAPI-CONTRACT-102). */
export const EXPLORE_5XX_VARIANT = 'explore-5xx';

/** Whether a check's variant is the exploration's: its evidence ends with the minimal request a failure shrank to. */
export const isExplorationVariant = (variant: string): boolean => variant === EXPLORE_VARIANT || variant === EXPLORE_5XX_VARIANT;

/** Why an exploration check is skipped before any request when the run's budget is 0 (src/harness/preconditions.ts). */
export const EXPLORATION_OFF = 'the exploration phase is off (--explore 0, FSAPI_EXPLORE=0)';

/** Why an exploration check is skipped before any request when the run's total left its operation nothing. */
export const EXPLORATION_TOTAL_SPENT =
  "the exploration's total budget (--explore-total, FSAPI_EXPLORE_TOTAL) has fewer requests than the run has operations to explore: the first operations by operationId took one each, this one none";

/** What the run's total budget leaves each operation it explores, decided when the run is planned. */
export interface ExploreAllocation {
  /** Requests per explored operation: the per-operation budget, or the total's even share where that is smaller. */
  perOperation: number;
  /** Operations the total left unexplored (it has fewer requests than there are operations), by operationId. */
  leftOut: string[];
}

/**
 * The total shared out, the same for the run (src/runner/run-plan.ts) and for verify (src/certify/derive.ts): each
 * explorable operation of the plan gets an even share, at most the per-operation budget; when the total is smaller
 * than the number of operations, the first `total` by operationId get one request each and the rest none. A total
 * of 0 caps nothing. Only the plan decides it, never what a run sent: the same seed explores the same requests.
 */
export function exploreAllocation(perOperation: number, total: number, planned: Iterable<{ variant: string; operation?: string | undefined }>): ExploreAllocation {
  const ops = [...new Set([...planned].filter((d) => d.variant === EXPLORE_VARIANT && d.operation !== undefined).map((d) => d.operation!))].sort();
  if (perOperation === 0 || total === 0 || ops.length === 0) return { perOperation, leftOut: [] };
  const share = Math.floor(total / ops.length);
  if (share >= 1) return { perOperation: Math.min(perOperation, share), leftOut: [] };
  return { perOperation: 1, leftOut: ops.slice(total) };
}

export interface ExplorationTotals {
  /** Operations explored (their check ran to a verdict). */
  operations: number;
  requests: number;
  shrinkRequests: number;
  /** Variants the budget left unexplored. */
  unexplored: number;
  /** Time the exploration checks took, summed over operations (they run side by side with the other checks). */
  ms: number;
  failed: number;
  /** Operations where the target refused a value the document allows (suggestions, never a verdict). */
  refusals: number;
  /** The requests per operation the run's total held each to, when that is less than the per-operation budget. */
  heldTo?: number;
  /** Operations the total left unexplored, each skipped before any request. */
  leftByTotal: number;
}

const fact = (c: CheckResult, name: string): number => (typeof c.facts?.[name] === 'number' ? (c.facts[name] as number) : 0);

/** The totals over the exploration checks among `checks`, or undefined when none explored anything. */
export function explorationTotals(checks: Iterable<CheckResult>): ExplorationTotals | undefined {
  const t: ExplorationTotals = { operations: 0, requests: 0, shrinkRequests: 0, unexplored: 0, ms: 0, failed: 0, refusals: 0, leftByTotal: 0 };
  for (const c of checks) {
    if (c.id.endsWith(` ${EXPLORE_VARIANT}`) && c.status === 'skipped' && c.message === EXPLORATION_TOTAL_SPENT) t.leftByTotal++;
    if (!c.id.endsWith(` ${EXPLORE_VARIANT}`) || c.facts?.['explore_requests'] === undefined) continue;
    t.operations++;
    t.requests += fact(c, 'explore_requests');
    t.shrinkRequests += fact(c, 'explore_shrink_requests');
    t.unexplored += fact(c, 'explore_unexplored');
    t.ms += fact(c, 'explore_ms');
    if (c.status === 'failed') t.failed++;
    if (c.refused_value) t.refusals++;
    const held = c.facts?.['explore_held_by_total'];
    if (typeof held === 'number') t.heldTo = held;
  }
  return t.operations ? t : undefined;
}

/**
 * "exploration: 413 valid requests over 25 operations (+16 shrinking), 273 variants left unexplored by the budget
 * (FSAPI_EXPLORE)", or, where the run's total decided it, "..., the total budget (FSAPI_EXPLORE_TOTAL) held each
 * operation to 1 request and left 39 variants and 3 operations unexplored".
 */
export function renderExploration(t: ExplorationTotals): string {
  const shrink = t.shrinkRequests ? ` (+${t.shrinkRequests} shrinking)` : '';
  let left: string;
  if (t.heldTo !== undefined || t.leftByTotal) {
    const lost = [...(t.unexplored ? [plural(t.unexplored, 'variant')] : []), ...(t.leftByTotal ? [plural(t.leftByTotal, 'operation')] : [])];
    const did = [...(t.heldTo !== undefined ? [`held each operation to ${plural(t.heldTo, 'request')}`] : []), ...(lost.length ? [`left ${lost.join(' and ')} unexplored`] : [])];
    left = `the total budget (FSAPI_EXPLORE_TOTAL) ${did.join(' and ')}`;
  } else left = t.unexplored ? `${t.unexplored} variants left unexplored by the budget (FSAPI_EXPLORE)` : 'nothing left unexplored';
  // A suggestion, not a verdict: counted here so it is seen, shown in summary.md with its minimal request.
  const refused = t.refusals ? `; ${plural(t.refusals, 'operation')} refused a value the document allows (suggestions in summary.md)` : '';
  return `exploration: ${t.requests} valid requests over ${t.operations} operations${shrink}, ${left}${refused}`;
}

/**
 * The headline's words on the phase: what it explored, or, when the run switched it off, how many operations it
 * left unexplored (a verdict says what it did not test); undefined where no operation takes input.
 */
export function explorationLine(checks: readonly CheckResult[]): string | undefined {
  const explored = explorationTotals(checks);
  if (explored) return renderExploration(explored);
  // Skipped for the budget alone: an operation left out for another reason (an unaddressable path) is not counted.
  const off = checks.filter((c) => c.id.endsWith(` ${EXPLORE_VARIANT}`) && c.status === 'skipped' && c.message === EXPLORATION_OFF).length;
  return off ? `exploration off (--explore 0): ${plural(off, 'operation')} not explored` : undefined;
}
