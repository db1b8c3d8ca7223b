import { isBlockingLevel } from '../catalogue/levels.js';
import type { Coverage, RequirementCoverage, Verdict } from './model.js';

const MAX_NAMED = 3;

/** "A, B: reason; C: other reason, …": requirements grouped by their reason, the first few named. */
function named(reqs: readonly RequirementCoverage[], withReason: boolean): string {
  if (!withReason) return `${reqs.slice(0, MAX_NAMED * 2).map((r) => r.id).join(', ')}${reqs.length > MAX_NAMED * 2 ? ', …' : ''}`;
  const byReason = new Map<string, string[]>();
  for (const r of reqs) (byReason.get(r.reason ?? '') ?? byReason.set(r.reason ?? '', []).get(r.reason ?? '')!).push(r.id);
  const parts = [...byReason].map(([why, ids]) => `${ids.join(', ')}${why ? `: ${why}` : ''}`);
  return `${parts.slice(0, MAX_NAMED).join('; ')}${parts.length > MAX_NAMED ? '; …' : ''}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The verdict in one line, saying what was not verified:
 *   conformant: 27 of 27 MUST requirements verified; document operations exercised: 46 of 46
 *   inconclusive: 2 MUST requirements not verified (FSAPI-TEN-001, FSAPI-TEN-002: needs a second business: …); …
 */
export function renderHeadline(verdict: Verdict, coverage: Coverage | undefined, opts: { rateLimited?: number; incompleteReason?: string | undefined; exploration?: string | undefined } = {}): string {
  if (!coverage) return verdict;
  const m = coverage.must;
  const reqs = coverage.requirements;
  const mustOf = (s: RequirementCoverage['status']) => reqs.filter((r) => r.level === 'MUST' && r.status === s && r.cause !== 'suite-obligation');
  const verified = `${m.verified} of ${m.applicable} MUST requirements verified`;
  const parts: string[] = [];
  if (verdict === 'incomplete') parts.push(`${opts.incompleteReason ?? 'the run was interrupted'}; ${verified} before it stopped`);
  else if (verdict === 'non-conformant') {
    const failed = reqs.filter((r) => r.status === 'failed' && isBlockingLevel(r.level));
    parts.push(failed.length ? `${plural(failed.length, 'MUST or CONTRACT requirement')} failed (${named(failed, false)})` : 'a blocking check failed', verified);
  } else if (verdict === 'inconclusive') {
    const unverified = mustOf('not-verified');
    if (unverified.length) parts.push(`${plural(unverified.length, 'MUST requirement')} not verified (${named(unverified, true)})`);
    if (opts.rateLimited) parts.push(`${plural(opts.rateLimited, 'check')} rate-limited (the target kept answering 429/503: lower FSAPI_RATE_LIMIT)`);
    if (unverified.length) parts.push(verified);
  } else parts.push(verified);
  const waived = mustOf('waived');
  if (waived.length) parts.push(`${plural(waived.length, 'MUST requirement')} waived (${named(waived, true)})`);
  if (m.not_applicable) parts.push(`${m.not_applicable} not applicable to this run`);
  const ops = coverage.operations;
  parts.push(`document operations exercised: ${ops.exercised} of ${ops.total}${ops.not_in_run ? ` (${ops.not_in_run} not in this run)` : ''}`);
  if (opts.exploration) parts.push(opts.exploration);
  return `${verdict}: ${parts.join('; ')}`;
}
