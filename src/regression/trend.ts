/**
 * Trend: how the counts, MUST coverage and latency moved over the last runs kept in the report directory
 * (reports/<run-id>/conformance.json, run ids sort by time). Only runs against the same target count: another
 * target's runs in the same directory are no trend of this one.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { RunReport } from '../results/model.js';
import { cachedDerivation } from '../catalogue/yaml-file.js';
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

/** What the trend takes from one conformance.json: the target it tested and its point, or no target when it is no run report of this suite. */
export interface TrendEntry {
  target: string | null;
  point?: TrendPoint;
}

/**
 * The name (and version: change it when trendPoint or TrendEntry changes) of a report's entry in this user's cache of
 * values made from a file's content (src/catalogue/yaml-file.ts): an earlier report is then hashed, not parsed.
 */
export const TREND_ENTRY = 'trend-entry-1';

/** The entry of a parsed report: its target and point, when it is a run report of this suite. */
function trendEntryOf(r: RunReport): TrendEntry {
  if (r?.suite?.name !== 'fsapi-conformance' || !r.counts || !r.run || !r.target) return { target: null };
  return { target: targetOf(r), point: trendPoint(r) };
}

const isNumber = (v: unknown): v is number => typeof v === 'number';
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A cache entry of the shape this version writes (an entry of another shape is made again from the report). */
function isTrendEntry(v: unknown): v is TrendEntry {
  if (!isRecord(v)) return false;
  if (v['target'] === null) return v['point'] === undefined;
  const p = v['point'];
  if (typeof v['target'] !== 'string' || !isRecord(p)) return false;
  const counts = p['counts'];
  const must = p['must'];
  const latency = p['latency_ms'];
  return (
    ['run_id', 'started_at', 'verdict', 'document_sha256'].every((k) => typeof p[k] === 'string') &&
    isRecord(counts) &&
    ['total', 'passed', 'failed', 'warning', 'skipped', 'error'].every((k) => isNumber(counts[k])) &&
    (must === undefined || (isRecord(must) && isNumber(must['verified']) && isNumber(must['applicable']))) &&
    (latency === undefined || (isRecord(latency) && isNumber(latency['p50']) && isNumber(latency['p95'])))
  );
}

/** The SHA-256 of a file, read a slice at a time: an earlier vendor run's report can be a hundred megabytes. */
function fileSha256(path: string): string {
  const hash = createHash('sha256');
  const buf = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(path, 'r');
  try {
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) hash.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/**
 * The entry of the report with this content: from the cache when this user's runs have made it before (the report
 * this run wrote, or an earlier trend's reading), else parsed from the file. Keyed by the digest of the bytes, so an
 * edited report is read again.
 */
export function trendEntry(sha256: string, read: () => RunReport): Promise<TrendEntry> {
  return cachedDerivation(sha256, TREND_ENTRY, async () => trendEntryOf(read()), isTrendEntry);
}

/** The last `runs` runs (this one the last), or undefined when no earlier run of this target is at hand. */
export async function trendOf(current: RunReport, reportRoot: string, runs: number): Promise<TrendPoint[] | undefined> {
  if (runs < 2) return undefined;
  let ids: string[];
  try {
    ids = readdirSync(reportRoot).filter((d) => RUN_ID.test(d) && d < current.run.id).sort();
  } catch {
    return undefined;
  }
  const earlier: TrendPoint[] = [];
  const target = targetOf(current);
  // Newest first, until enough runs of this target are found; a directory without a readable report is skipped.
  for (const id of ids.reverse()) {
    if (earlier.length >= runs - 1) break;
    const file = join(reportRoot, id, 'conformance.json');
    try {
      const entry = await trendEntry(fileSha256(file), () => JSON.parse(readFileSync(file, 'utf8')) as RunReport);
      if (entry.target === target && entry.point) earlier.push(entry.point);
    } catch {
      continue;
    }
  }
  return earlier.length ? [...earlier.reverse(), trendPoint(current)] : undefined;
}
