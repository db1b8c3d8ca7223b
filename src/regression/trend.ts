/**
 * Trend: how the counts, MUST coverage and latency moved over the last runs kept in the report directory
 * (reports/<run-id>/conformance.json, run ids sort by time). Only runs against the same target count: another
 * target's runs in the same directory are no trend of this one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunReport } from '../results/model.js';
import { percentile } from './drift.js';
import type { TrendPoint } from '../results/regression-model.js';

export type { TrendPoint } from '../results/regression-model.js';

const RUN_ID = /^\d{8}-\d{6}-[0-9a-f]{6}$/;
const targetOf = (r: Pick<RunReport, 'target'>) => (r.target.embedded ? 'embedded' : r.target.base_url);

export function trendPoint(r: RunReport): TrendPoint {
  const c = r.counts.by_status;
  const durations = r.checks.flatMap((x) => x.exchanges.map((e) => e.duration_ms)).sort((a, b) => a - b);
  return {
    run_id: r.run.id,
    started_at: r.run.started_at,
    verdict: r.verdict,
    counts: { total: c.total, passed: c.passed, failed: c.failed, warning: c.warning, skipped: c.skipped, error: c.error },
    ...(r.coverage ? { must: { verified: r.coverage.must.verified, applicable: r.coverage.must.applicable } } : {}),
    ...(durations.length ? { latency_ms: { p50: percentile(durations, 50), p95: percentile(durations, 95) } } : {}),
    document_sha256: r.spec.sha256,
  };
}

/** The last `runs` runs (this one the last), or undefined when no earlier run of this target is at hand. */
export function trendOf(current: RunReport, reportRoot: string, runs: number): TrendPoint[] | undefined {
  if (runs < 2) return undefined;
  let ids: string[];
  try {
    ids = readdirSync(reportRoot).filter((d) => RUN_ID.test(d) && d < current.run.id).sort();
  } catch {
    return undefined;
  }
  const earlier: TrendPoint[] = [];
  // Newest first, until enough runs of this target are found; a directory without a readable report is skipped.
  for (const id of ids.reverse()) {
    if (earlier.length >= runs - 1) break;
    try {
      const r = JSON.parse(readFileSync(join(reportRoot, id, 'conformance.json'), 'utf8')) as RunReport;
      if (r.suite?.name === 'fsapi-conformance' && targetOf(r) === targetOf(current) && r.counts && r.run) earlier.push(trendPoint(r));
    } catch {
      continue;
    }
  }
  return earlier.length ? [...earlier.reverse(), trendPoint(current)] : undefined;
}
