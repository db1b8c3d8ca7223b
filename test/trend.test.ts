/**
 * The trend over the last runs in the report directory: counts, MUST coverage and latency per run, this run last,
 * only runs against the same target; in summary.md and conformance.json.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeReports } from '../src/reports/index.js';
import { renderTrendMarkdown } from '../src/reports/regression-render.js';
import { TREND_ENTRY, trendOf, trendPoint } from '../src/regression/trend.js';
import { privateCacheDir } from '../src/cache-dir.js';
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

  it('takes the last runs of the same target, oldest first and this one last, skipping what it cannot read', async () => {
    const t = (await trendOf(current, root(earlier), 10))!;
    // cccccc tested another target; ffffff is no report.
    expect(t.map((p) => p.run_id)).toEqual(['20261102-000000-aaaaaa', '20261103-000000-bbbbbb', '20261105-000000-dddddd']);
    expect(t.map((p) => p.counts.failed)).toEqual([0, 1, 2]);
    expect(t.map((p) => p.latency_ms?.p95)).toEqual([10, 20, 40]);
    expect((await trendOf(current, root(earlier), 2))!.map((p) => p.run_id)).toEqual(['20261103-000000-bbbbbb', '20261105-000000-dddddd']);
    expect(await trendOf(current, root(earlier), 0)).toBeUndefined();
    expect(await trendOf(current, root([]), 10)).toBeUndefined();
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

  describe("an earlier report's point, kept by its content's digest", () => {
    const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
    // The cache of values made from a file's content (src/catalogue/yaml-file.ts, cachedDerivation).
    const entryFile = (file: string) => join(privateCacheDir('fsapi-conformance-cache')!, `${sha(file)}.${TREND_ENTRY}.json`);
    // Made unique to this test run, so no entry of an earlier run of the tests is at hand.
    const unique = () => run('20261102-000000-aaaaaa', 1, 10 + Math.floor(Math.random() * 1e6));

    it('is taken from the cache once read: the report is hashed, not parsed again', async () => {
      const dir = root([unique()]);
      const file = join(dir, '20261102-000000-aaaaaa', 'conformance.json');
      expect(existsSync(entryFile(file))).toBe(false);
      expect((await trendOf(current, dir, 10))![0]!.counts.failed).toBe(1);
      const entry = JSON.parse(readFileSync(entryFile(file), 'utf8')) as { target: string; point: { counts: { failed: number } } };
      expect(entry.target).toBe('embedded');
      // The cached entry is what the trend reads: changed in the cache alone, the trend says what the cache says.
      entry.point.counts.failed = 99;
      writeFileSync(entryFile(file), JSON.stringify(entry));
      expect((await trendOf(current, dir, 10))![0]!.counts.failed).toBe(99);
    });

    it('is read again from a report whose bytes changed, and from one whose cache entry is not of the shape this version writes', async () => {
      const dir = root([unique()]);
      const file = join(dir, '20261102-000000-aaaaaa', 'conformance.json');
      await trendOf(current, dir, 10);
      writeFileSync(entryFile(file), JSON.stringify({ target: 'embedded', point: { run_id: 'x', counts: 'many' } }));
      expect((await trendOf(current, dir, 10))![0]!.counts.failed).toBe(1);
      const edited = JSON.parse(readFileSync(file, 'utf8')) as RunReport;
      edited.counts.by_status.failed = 3;
      writeFileSync(file, JSON.stringify(edited));
      expect((await trendOf(current, dir, 10))![0]!.counts.failed).toBe(3);
      // Another target's report is remembered as such, and still left out.
      edited.target.embedded = false;
      writeFileSync(file, JSON.stringify(edited));
      expect(await trendOf(current, dir, 10)).toBeUndefined();
      expect(await trendOf(current, dir, 10)).toBeUndefined();
    });

    it("a run files its own report's point as it writes it, and SHA256SUMS takes the digest it hashed", async () => {
      const dir = root([]);
      const mine = run('20261105-000000-dddddd', 2, 10 + Math.floor(Math.random() * 1e6));
      await writeReports(mine, { dir: join(dir, mine.run.id), reportRoot: dir, html: false, trend: 10 });
      const file = join(dir, mine.run.id, 'conformance.json');
      const cached = JSON.parse(readFileSync(entryFile(file), 'utf8')) as unknown;
      // The same as a reading of the file would make: the trend of the next run is the same either way.
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as RunReport;
      expect(cached).toEqual({ target: 'embedded', point: trendPoint(parsed) });
      expect(readFileSync(join(dir, mine.run.id, 'SHA256SUMS'), 'utf8')).toContain(`${sha(file)}  conformance.json\n`);
    });
  });
});
