import type { CheckResult, Gap } from '../results/model.js';

/**
 * The gap report from the INFO checks: one entry per INFO requirement, in catalogue-id order, with what this
 * target was observed to do (the check's observation; for a check that could not observe, its status and message).
 * `statements` gives each requirement's statement (from existing gap entries or the catalogue); the check title
 * stands in when none is known.
 */
export function gapsFromChecks(checks: readonly CheckResult[], statements: ReadonlyMap<string, string> = new Map()): Gap[] {
  const byReq = new Map<string, Gap>();
  for (const c of checks) {
    if (c.level !== 'INFO') continue;
    let gap = byReq.get(c.requirement);
    if (!gap) {
      gap = { requirement: c.requirement, statement: statements.get(c.requirement) ?? c.title, observations: [] };
      byReq.set(c.requirement, gap);
    }
    const seen = c.observation ?? (c.status === 'passed' ? c.message : `not observed (${c.status}${c.message ? `: ${c.message}` : ''})`);
    if (seen && !gap.observations.includes(seen)) gap.observations.push(seen);
  }
  return [...byReq.values()].sort((a, b) => (a.requirement < b.requirement ? -1 : a.requirement > b.requirement ? 1 : 0));
}
