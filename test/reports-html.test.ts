/**
 * The Allure HTML report, built from real allure-results (a tiny suite run through vitest's Node API with the
 * allure-vitest reporter, in a child process) with the installed `allure` package, and the `report` command.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReports } from '../src/reports/index.js';
import { standardReport } from './fixtures/reports/build.js';
import { busy } from './helpers/busy.js';

const root = mkdtempSync(join(tmpdir(), 'fsapi-html-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const BIN = fileURLToPath(new URL('../bin/fsapi-conformance.js', import.meta.url));
const MAKE_RESULTS = fileURLToPath(new URL('./fixtures/reports/make-allure-results.ts', import.meta.url));
const results = join(root, 'results');
let dir: string;
let buildMs = 0;

/** The environment without this vitest's own variables, so the child's vitest starts clean. */
const cleanEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'TEST' && k !== 'NODE_ENV'));

/** The report data a single-file Allure report embeds: d("path","base64 JSON") calls. */
function embedded(html: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of html.matchAll(/d\("([^"]+)","([A-Za-z0-9+/=]*)"\)/g)) out.set(m[1]!, Buffer.from(m[2]!, 'base64').toString('utf8'));
  return out;
}

beforeAll(() => {
  const r = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), MAKE_RESULTS, results], { encoding: 'utf8', env: cleanEnv() });
  if (r.status !== 0) throw new Error(`could not make allure-results: ${r.stderr}`);
  dir = join(root, 'reports', 'run-html');
  mkdirSync(dir, { recursive: true });
  cpSync(results, join(dir, 'allure-results'), { recursive: true });
}, busy(60_000));

describe('the Allure HTML report', () => {
  it('is one self-contained index.html built from allure-results', async () => {
    expect(readdirSync(join(dir, 'allure-results')).some((f) => f.endsWith('-result.json'))).toBe(true);
    const t0 = performance.now();
    const w = await writeReports(standardReport(), { dir, reportRoot: join(root, 'reports'), html: true });
    buildMs = performance.now() - t0;
    const index = join(dir, 'allure-report', 'index.html');
    console.log(`[reports] writeReports with HTML: ${buildMs.toFixed(0)} ms; index.html ${statSync(index).size} B`);
    expect(w.files).toContain(index);
    expect(w.files.at(-1)).toBe(join(dir, 'SHA256SUMS'));
    const html = readFileSync(index, 'utf8');
    expect(html.length).toBeGreaterThan(10_000);
    // Self-contained: every src/href is inline data, so the file opens from disk alone.
    for (const m of html.matchAll(/\b(?:src|href)="([^"]*)"/g)) expect(m[1]!.startsWith('data:') || m[1]!.startsWith('#'), m[1]).toBe(true);
    // No analytics: opening an archived report makes no request.
    expect(html).not.toContain('googletagmanager');
    const data = [...embedded(html).values()].join('\n');
    expect(data).toContain('FSAPI-AUTH-001 listCustomers: rejects a request without a key');
    expect(data).toContain('FSAPI-ACC-002 listAccounts: limit=100 matches the schema');
    // The tree is group > family > requirement (allurerc's groupBy over the suite labels), not the file path.
    const tree = JSON.parse(embedded(html).get('widgets/tree.json') ?? '{}') as {
      root: { groups: string[] };
      groupsById: Record<string, { name: string; groups?: string[]; leaves?: string[] }>;
    };
    const path = (id: string): string[] => {
      const g = tree.groupsById[id]!;
      return [g.name, ...(g.groups ?? []).flatMap((c) => path(c))];
    };
    expect(tree.root.groups.map(path).sort()).toEqual([
      ['Accounts', 'schema', 'FSAPI-ACC-002'],
      ['Customers', 'auth', 'FSAPI-AUTH-001'],
    ]);
    // Nothing left behind: no temporary build directory.
    expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('with a trend, each build adds its run to the Allure history beside the runs, and the charts draw it', async () => {
    const trendRoot = join(root, 'trend');
    const statusDynamics = async (run: string) => {
      const d = join(trendRoot, run);
      mkdirSync(d, { recursive: true });
      cpSync(results, join(d, 'allure-results'), { recursive: true });
      const base = standardReport();
      const startedAt = `${run.slice(0, 4)}-${run.slice(4, 6)}-${run.slice(6, 8)}T${run.slice(9, 11)}:${run.slice(11, 13)}:00.000Z`;
      await writeReports({ ...base, run: { ...base.run, id: run, started_at: startedAt } }, { dir: d, reportRoot: trendRoot, html: true, trend: 5 });
      const charts = JSON.parse(embedded(readFileSync(join(d, 'allure-report', 'index.html'), 'utf8')).get('widgets/charts.json') ?? '{}') as {
        general: Record<string, { type: string; data: unknown[] }>;
      };
      return Object.values(charts.general).find((c) => c.type === 'statusDynamics')!.data;
    };
    expect(await statusDynamics('20261101-000000-aaaaaa')).toHaveLength(1);
    expect(await statusDynamics('20261102-000000-bbbbbb')).toHaveLength(2);
    // Two runs of one day: each point of the trend is named with its run's date, time and id.
    const points = await statusDynamics('20261102-140500-cccccc');
    expect(points.map((p) => (p as { name: string }).name).filter((n) => n !== 'current')).toEqual([
      expect.stringMatching(/^fsapi-conformance 2026-11-01 00:00 UTC \(run 20261101-000000-aaaaaa\)/),
      expect.stringMatching(/^fsapi-conformance 2026-11-02 00:00 UTC \(run 20261102-000000-bbbbbb\)/),
    ]);
    expect(readFileSync(join(trendRoot, 'allure-history.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3);
    // Without a trend nothing is written outside the run's directory.
    expect(existsSync(join(root, 'reports', 'allure-history.jsonl'))).toBe(false);
  });

  it('is covered by SHA256SUMS with the results', () => {
    const sums = readFileSync(join(dir, 'SHA256SUMS'), 'utf8');
    expect(sums).toMatch(/ {2}allure-report\/index\.html$/m);
    expect(sums).toMatch(/ {2}allure-results\/[^\n]+-result\.json$/m);
    const r = spawnSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: dir, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
  it('is built, empty, for a run that recorded no result', async () => {
    const d = join(root, 'reports', 'run-empty');
    const w = await writeReports(standardReport(), { dir: d, reportRoot: join(root, 'reports'), html: true });
    expect(w.files).toContain(join(d, 'allure-report', 'index.html'));
    expect(spawnSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: d }).status).toBe(0);
  });
});

describe('fsapi-conformance report', () => {
  it('builds the HTML of a report directory, refreshes SHA256SUMS and prints the path', () => {
    const d = join(root, 'reports', 'run-cli');
    cpSync(dir, d, { recursive: true });
    rmSync(join(d, 'allure-report'), { recursive: true });
    const r = spawnSync(process.execPath, [BIN, 'report', d], { encoding: 'utf8', cwd: root });
    // A line per phase on stderr: the HTML build takes tens of seconds.
    expect(r.stderr).toMatch(/^report: read .*conformance\.json \(run .*\)\nhtml: Allure builds allure-report\/index\.html from \d+ result files .*\nhtml: built in [\d.]+ s\nreport: rewriting SHA256SUMS to cover the HTML\n$/);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(join(d, 'allure-report', 'index.html'));
    expect(existsSync(join(d, 'allure-report', 'index.html'))).toBe(true);
    expect(readFileSync(join(d, 'SHA256SUMS'), 'utf8')).toMatch(/allure-report\/index\.html/);
    expect(spawnSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: d }).status).toBe(0);
  });

  it('exits 2 with one message on a directory that is not a report, or has no results', () => {
    const empty = join(root, 'not-a-report');
    mkdirSync(empty);
    const r = spawnSync(process.execPath, [BIN, 'report', empty], { encoding: 'utf8', cwd: root });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error: .*not-a-report: cannot read the report|^error: .*conformance\.json: cannot read the report/);
    const noResults = join(root, 'no-results');
    mkdirSync(noResults);
    cpSync(join(dir, 'conformance.json'), join(noResults, 'conformance.json'));
    const n = spawnSync(process.execPath, [BIN, 'report', noResults], { encoding: 'utf8', cwd: root });
    expect(n.status).toBe(2);
    expect(n.stderr).toMatch(/no allure-results\/ directory/);
    const none = spawnSync(process.execPath, [BIN, 'report'], { encoding: 'utf8', cwd: empty });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/no report directory at reports\/latest\n {2}fix: run `fsapi-conformance run` first/);
  });
});
