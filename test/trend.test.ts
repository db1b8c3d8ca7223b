/**
 * The trend over the last runs in the report directory: counts, MUST coverage and latency per run, this run last,
 * only runs against the same target; in summary.md and conformance.json.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeReports } from '../src/reports/index.js';
import { renderTrendMarkdown } from '../src/reports/regression-render.js';
import { trendOf } from '../src/regression/trend.js';
import type { RunReport } from '../src/results/model.js';
import { check, exchange, report } from './fixtures/reports/build.js';

/** A run of `failed` failures out of 4 checks, each exchange taking `ms`. */
function run(id: string, failed: number, ms: number, over: (r: RunReport) => void = () => {}): RunReport {
  const checks = [0, 1, 2, 3].map((i) => ({
    ...check({ requirement: 'FSAPI-AUTH-001', level: 'MUST', group: 'customers', operation: `op${i}`, status: i < failed ? 'failed' : 'passed' }),
    exchanges: [{ ...exchange(i), duration_ms: ms }],
  }));
  const r = report(checks, { id });
  r.run.started_at = `2026-11-0${id.slice(7, 8)}T00:00:00.000Z`;
  over(r);
  return r;
}

function root(runs: RunReport[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-trend-'));
  for (const r of runs) {
    mkdirSync(join(dir, r.run.id));
    writeFileSync(join(dir, r.run.id, 'conformance.json'), JSON.stringify(r));
  }
  mkdirSync(join(dir, '20261101-000000-ffffff'));
  writeFileSync(join(dir, '20261101-000000-ffffff', 'conformance.json'), '{ not json');
  return dir;
}

describe('trend', () => {
  const earlier = [run('20261102-000000-aaaaaa', 0, 10), run('20261103-000000-bbbbbb', 1, 20), run('20261104-000000-cccccc', 0, 30, (r) => (r.target.embedded = false))];
  const current = run('20261105-000000-dddddd', 2, 40);

  it('takes the last runs of the same target, oldest first and this one last, skipping what it cannot read', () => {
    const t = trendOf(current, root(earlier), 10)!;
    // cccccc tested another target; ffffff is no report.
    expect(t.map((p) => p.run_id)).toEqual(['20261102-000000-aaaaaa', '20261103-000000-bbbbbb', '20261105-000000-dddddd']);
    expect(t.map((p) => p.counts.failed)).toEqual([0, 1, 2]);
    expect(t.map((p) => p.latency_ms?.p95)).toEqual([10, 20, 40]);
    expect(trendOf(current, root(earlier), 2)!.map((p) => p.run_id)).toEqual(['20261103-000000-bbbbbb', '20261105-000000-dddddd']);
    expect(trendOf(current, root(earlier), 0)).toBeUndefined();
    expect(trendOf(current, root([]), 10)).toBeUndefined();
  });

  it('reads in summary.md as a row a run and what moved since the previous one; conformance.json keeps it', async () => {
    const dir = root(earlier);
    const w = await writeReports(current, { dir: join(dir, current.run.id), reportRoot: dir, html: false, trend: 10 });
    const md = readFileSync(join(dir, current.run.id, 'summary.md'), 'utf8');
    expect(md).toContain('## Trend over the last 3 runs');
    expect(md).toMatch(/\| `20261103-000000-bbbbbb` \| 2026-11-03 00:00 \| non-conformant \| 3 \| 1 \|/);
    expect(md).toContain('Since the previous run: passed −1, failed +1, p95 +20 ms.');
    expect(w.report.trend).toHaveLength(3);
    expect(renderTrendMarkdown(w.report.trend!.slice(0, 1))).not.toContain('Since the previous run');
  });
});
