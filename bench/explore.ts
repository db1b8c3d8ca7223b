/**
 * What the exploration phase adds to a whole run: pairs of runs as a user starts them (embedded sandbox, same seed),
 * one with `--explore 0` and one with `--explore N`, alternated (the order flips every pair, so a machine that
 * slows down over the bench weighs on both). Per pair: wall time, suites phase, CPU, requests sent and the
 * exploration's own requests (the explore checks' facts); then the median ratio of the two.
 *
 *   npx tsx bench/explore.ts [--pairs 5] [--budget 24] [--groups G1,G2] [--seed 20261120]
 *   FSAPI_API_KEY=... FSAPI_TENANT_ID=... FSAPI_CA_FILE=... npx tsx bench/explore.ts --spec FILE --binding FILE --base-url URL
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertRan, benchArgs, ensureBuild, int, machine, printTable, readLatestReport, round, runCli, type RunReport, sec, spread, usage, writeResult } from './lib.js';

const USAGE = 'npx tsx bench/explore.ts [--pairs 5] [--budget 24] [--groups G1,G2] [--seed N] [--spec FILE] [--binding FILE] [--embedded-sandbox]';

interface Side {
  budget: number;
  wall_ms: number;
  suites_ms: number;
  cpu_ms: number | null;
  requests: number;
  explore_requests: number;
  explore_shrink_requests: number;
  explore_unexplored: number;
  verdict: string;
  failed: number;
}

const factSum = (r: RunReport, name: string): number =>
  r.checks.filter((c) => c.id.endsWith(' explore')).reduce((n, c) => n + (typeof c.facts?.[name] === 'number' ? (c.facts[name] as number) : 0), 0);

/** A remote target's settings (key, business, CA) pass from the bench's environment to the runs; secrets are never printed. */
function targetEnv(): Record<string, string> {
  const names = ['FSAPI_API_KEY', 'FSAPI_TENANT_ID', 'FSAPI_CA_FILE'];
  return Object.fromEntries(names.flatMap((n) => (process.env[n] ? [[n, process.env[n]!]] : [])));
}

async function once(budget: number, base: string[]): Promise<Side> {
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-bench-explore-'));
  try {
    const reportRoot = join(dir, 'reports');
    const r = await runCli([...base, '--explore', String(budget), '--report-dir', reportRoot], { cwd: dir, cpu: true, env: targetEnv() });
    assertRan(r, `--explore ${budget}`);
    const report = readLatestReport(reportRoot);
    return {
      budget,
      wall_ms: Math.round(r.wall_ms),
      suites_ms: report.run.phases.suites_ms,
      cpu_ms: r.cpu ? Math.round(r.cpu.user_ms + r.cpu.system_ms) : null,
      requests: report.run.requests_sent,
      explore_requests: factSum(report, 'explore_requests'),
      explore_shrink_requests: factSum(report, 'explore_shrink_requests'),
      explore_unexplored: factSum(report, 'explore_unexplored'),
      verdict: report.verdict,
      failed: report.counts.by_status.failed,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = benchArgs(USAGE, {
    options: {
      pairs: { type: 'string', default: '5' },
      budget: { type: 'string', default: '24' },
      groups: { type: 'string' },
      seed: { type: 'string', default: '20261120' },
      spec: { type: 'string' },
      binding: { type: 'string' },
      'base-url': { type: 'string' },
      'embedded-sandbox': { type: 'boolean', default: false },
    },
  });
  const pairs = int(values.pairs) ?? usage(USAGE);
  const budget = int(values.budget) ?? usage(USAGE);
  await ensureBuild();
  const base = ['run', '--seed', values.seed, '--quiet', ...(values.groups ? ['--groups', values.groups] : []), ...(values.spec ? ['--spec', values.spec] : []), ...(values.binding ? ['--binding', values.binding] : []), ...(values['base-url'] ? ['--base-url', values['base-url']] : []), ...(values['embedded-sandbox'] ? ['--embedded-sandbox'] : [])];
  const rows: { pair: number; off: Side; on: Side }[] = [];
  for (let i = 1; i <= pairs; i++) {
    const order = i % 2 === 1 ? [0, budget] : [budget, 0];
    const sides: Side[] = [];
    for (const b of order) {
      console.error(`pair ${i}/${pairs}: --explore ${b}`);
      sides.push(await once(b, base));
    }
    rows.push({ pair: i, off: sides.find((s) => s.budget === 0)!, on: sides.find((s) => s.budget === budget)! });
  }
  const ratio = (f: (s: Side) => number) => spread(rows.map((r) => f(r.on) / f(r.off)));
  printTable(
    ['pair', 'off wall s', 'on wall s', 'ratio', 'off req', 'on req', 'explore req', 'shrink req', 'unexplored', 'verdicts', 'failed on'],
    rows.map((r) => [String(r.pair), sec(r.off.wall_ms), sec(r.on.wall_ms), round(r.on.wall_ms / r.off.wall_ms).toFixed(2), String(r.off.requests), String(r.on.requests), String(r.on.explore_requests), String(r.on.explore_shrink_requests), String(r.on.explore_unexplored), `${r.off.verdict}/${r.on.verdict}`, String(r.on.failed)]),
  );
  const wall = ratio((s) => s.wall_ms);
  const suites = ratio((s) => s.suites_ms);
  // CPU time is the steadier figure on a shared machine: another job's load stretches wall time, not the run's own work.
  const cpu = ratio((s) => s.cpu_ms ?? NaN);
  console.log(`wall time on/off: median ${round(wall.median)} (${round(wall.min)}-${round(wall.max)}); suites phase: median ${round(suites.median)} (${round(suites.min)}-${round(suites.max)}); CPU: median ${round(cpu.median)} (${round(cpu.min)}-${round(cpu.max)})`);
  const file = writeResult(values.spec ? 'explore-vendor' : 'explore', { machine: machine(), budget, pairs: rows, wall_ratio: wall, suites_ratio: suites, cpu_ratio: cpu, args: base });
  console.log(`written: ${file}`);
}

await main();
