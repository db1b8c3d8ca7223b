import type { Attempts, BaselineDiff, DiffEntry } from './model.js';
import { EXIT } from './verdict.js';

/** A retried check's failure rate: over the retries only, since the first run was retried because it failed. */
export function retryFailureRate(a: Attempts): number {
  return a.runs > 1 ? (a.failed - 1) / (a.runs - 1) : 1;
}

/** "failed 3 of 11 runs; 20% of the retries": the first run is left out of the rate (it was retried for failing). */
export function describeAttempts(e: Pick<DiffEntry, 'attempts'>): string {
  const a = e.attempts;
  if (!a) return '';
  return `failed ${a.failed} of ${a.runs} runs; ${Math.round(retryFailureRate(a) * 100)}% of the ${a.runs - 1} retries`;
}

/** At most this many intermittent checks are named on the verdict's line; the report lists them all. */
const NAMED = 3;

/** The verdict's line for intermittent failures, naming the checks, or undefined when there are none. */
export function intermittentLine(diff: BaselineDiff): string | undefined {
  const list = diff.intermittent ?? [];
  if (!list.length) return undefined;
  const retries = list.reduce((n, e) => n + (e.attempts ? e.attempts.runs - 1 : 0), 0);
  const failed = list.reduce((n, e) => n + (e.attempts ? e.attempts.failed - 1 : 0), 0);
  const named = list.slice(0, NAMED).map((e) => `${e.id}${e.attempts ? ` (failed ${e.attempts.failed} of ${e.attempts.runs} runs)` : ''}`);
  const more = list.length > NAMED ? ` and ${list.length - NAMED} more` : '';
  return `intermittent: ${list.length} check${list.length === 1 ? '' : 's'} that passed in the baseline fail${list.length === 1 ? 's' : ''} only sometimes (${failed} of ${retries} retries failed, ${retries ? Math.round((failed / retries) * 100) : 0}%): ${named.join(', ')}${more}; still a failure of the target (exit ${EXIT.intermittent} when no plain regression)`;
}

/**
 * The newly failing checks counted apart: those that fail or error now, and those that only warn ("12 newly failing,
 * 10 newly warning"; the warnings left out when there are none). `newly_failing` holds both.
 */
export function newlyFailingCounts(list: readonly DiffEntry[]): string {
  const warning = list.filter((e) => e.after === 'warning').length;
  return `${list.length - warning} newly failing${warning ? `, ${warning} newly warning` : ''}`;
}
