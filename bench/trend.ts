/**
 * What the trend costs a run whose report directory keeps earlier runs: `trendOf` over N earlier reports of the same
 * target (copies of one full embedded run's conformance.json, each under its own run id, so each has its own bytes),
 * in a fresh node each round, first with an empty cache folder (the first run to read them) and then again in the
 * same process (every later run). With --against, another checkout's build is measured too, alternated round by
 * round with this one.
 *
 *   npx tsx bench/trend.ts [--earlier 9] [--rounds 5] [--against ../other-checkout]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { assertRan, atExit, benchArgs, ensureBuild, int, printTable, readLatestReport, ROOT, round, runCli, spread, usage, writeResult } from './lib.js';

const USAGE = 'npx tsx bench/trend.ts [--earlier 9] [--rounds 5] [--against DIR]';

/** In a fresh node: trendOf twice over the report root, timed; prints the CPU (ms), wall (ms) and points of each, and the peak RSS. */
const CHILD = `
const [root, reportRoot, currentFile, runs] = process.argv.slice(1);
const { pathToFileURL } = await import('node:url');
const { readFileSync } = await import('node:fs');
const { resourceUsage } = await import('node:process');
const { trendOf } = await import(pathToFileURL(root + '/dist/src/regression/trend.js').href);
const current = JSON.parse(readFileSync(currentFile, 'utf8'));
const out = [];
for (const pass of ['first', 'again']) {
  const c = process.cpuUsage();
  const t = performance.now();
  const points = await trendOf(current, reportRoot, Number(runs));
  const u = process.cpuUsage(c);
  out.push({ pass, cpu_ms: (u.user + u.system) / 1000, wall_ms: performance.now() - t, points: points?.length ?? 0 });
}
console.log(JSON.stringify({ passes: out, max_rss_mb: resourceUsage().maxRSS / 1024 }));
`;

interface Pass {
  pass: 'first' | 'again';
  cpu_ms: number;
  wall_ms: number;
  points: number;
}

function measure(root: string, reportRoot: string, currentFile: string, runs: number): Promise<{ passes: Pass[]; max_rss_mb: number }> {
  // A fresh temporary directory: the cache folder (<tmp>/fsapi-conformance-cache-<uid>) starts empty.
  const tmp = mkdtempSync(join(tmpdir(), 'fsapi-bench-trend-tmp-'));
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, root, reportRoot, currentFile, String(runs)], { cwd: root, env: { ...process.env, TMPDIR: tmp }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => {
      rmSync(tmp, { recursive: true, force: true });
      if (code !== 0) return fail(new Error(`trendOf in ${root} failed (${code}): ${err.slice(-2000)}`));
      ok(JSON.parse(out.trim().split('\n').pop()!) as { passes: Pass[]; max_rss_mb: number });
    });
  });
}

const { values: args } = benchArgs(USAGE, { options: { earlier: { type: 'string', default: '9' }, rounds: { type: 'string', default: '5' }, against: { type: 'string' } } });
const earlier = int(args.earlier) ?? usage(USAGE);
const rounds = int(args.rounds) ?? usage(USAGE);
const against = args.against === undefined ? undefined : resolve(args.against);
if (against && !existsSync(join(against, 'dist', 'src', 'regression', 'trend.js'))) usage(`${USAGE}\n--against: ${against} has no build (npm run build there first)`);
await ensureBuild();

const work = mkdtempSync(join(tmpdir(), 'fsapi-bench-trend-'));
atExit(() => rmSync(work, { recursive: true, force: true }));
console.log('a full embedded run, to copy as the earlier runs...');
const run = await runCli(['run', '--report-dir', join(work, 'made')], { cwd: work });
assertRan(run, 'the full run');
const made = readLatestReport(join(work, 'made'));
const text = readFileSync(join(work, 'made', 'latest', 'conformance.json'), 'utf8');
const reportRoot = join(work, 'reports');
// Earlier run ids (older than the current one), each copy with its own id inside, so each has its own digest.
for (let i = 1; i <= earlier; i++) {
  const id = `20200101-${String(i).padStart(6, '0')}-abcdef`;
  mkdirSync(join(reportRoot, id), { recursive: true });
  writeFileSync(join(reportRoot, id, 'conformance.json'), text.replaceAll(made.run.id, id));
}
const currentFile = join(work, 'current.json');
writeFileSync(currentFile, JSON.stringify({ ...made, run: { ...made.run, id: '20991231-000000-ffffff' } }));

const builds = [{ name: 'this', root: ROOT }, ...(against ? [{ name: 'against', root: against }] : [])];
const samples = new Map(builds.map((b) => [b.name, [] as { passes: Pass[]; max_rss_mb: number }[]]));
for (let r = 0; r < rounds; r++) {
  for (const b of r % 2 ? [...builds].reverse() : builds) samples.get(b.name)!.push(await measure(b.root, reportRoot, currentFile, earlier + 1));
  console.log(`round ${r + 1} of ${rounds}`);
}

const cell = (xs: number[]) => {
  const s = spread(xs);
  return `${round(s.median, 0)} (${round(s.min, 0)}-${round(s.max, 0)})`;
};
const rows = builds.map((b) => {
  const s = samples.get(b.name)!;
  const of = (pass: Pass['pass'], k: 'cpu_ms' | 'wall_ms') => s.map((x) => x.passes.find((p) => p.pass === pass)![k]);
  return [b.name, String(s[0]!.passes[0]!.points), cell(of('first', 'cpu_ms')), cell(of('again', 'cpu_ms')), cell(of('again', 'wall_ms')), cell(s.map((x) => x.max_rss_mb))];
});
console.log(`\nthe trend over ${earlier} earlier full runs (${(text.length / 1048576).toFixed(1)} MB of conformance.json each); median (min-max) of ${rounds}`);
printTable(['build', 'points', 'first CPU ms', 'again CPU ms', 'again wall ms', 'peak MiB'], rows);
console.log(`\nwritten: ${writeResult('trend', { earlier, rounds, report_mb: round(text.length / 1048576), samples: Object.fromEntries(samples) })}`);
