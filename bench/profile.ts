/**
 * Where a run's CPU goes: the run of bench/floor.ts (a sandbox started apart, warmed by one run first; the suite at
 * the embedded run's concurrency and unpaced) under V8's sampling profiler, every thread of the suite's process
 * (`node --cpu-prof`: the main thread and each vitest worker write a profile). Each thread's samples are summed by
 * where the code comes from: a package under node_modules, a folder of the suite's own build, a part of Node, or
 * V8 itself (garbage collection, compiling, idle).
 *
 *   npx tsx bench/profile.ts [--groups G1,G2] [--seed 20261120] [--top 12] [--keep]
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMBEDDED_CONCURRENCY } from '../src/config/run-config.js';
import { assertRan, benchArgs, ensureBuild, int, printTable, readLatestReport, round, runCli, sec, startSandboxApart, usage, writeResult } from './lib.js';

const USAGE = 'npx tsx bench/profile.ts [--groups G1,G2] [--seed N] [--top N] [--keep]';
const DEFAULT_SEED = 20261120;

/** The parts of a .cpuprofile file read here (Chrome DevTools' format, as V8 writes it). */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code comes from: "undici", "suite: src/checks", "node: tls", "(garbage collector)". */
export function origin(functionName: string, url: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/dist\/(src\/[^/]+|suites|sandbox|fixtures)\//.exec(url) ?? /\/(src\/[^/]+|suites|sandbox|fixtures)\/[^/]+\.[cm]?[jt]s$/.exec(url);
  if (own) return `suite: ${own[1]}`;
  const node = /^node:(?:internal\/)?([^/]+)/.exec(url);
  if (node) return `node: ${node[1]}`;
  return url.replace(/^file:\/\//, '').split('/').slice(-2).join('/');
}

interface ThreadFigures {
  file: string;
  main: boolean;
  span_ms: number;
  busy_ms: number;
  by_origin: Record<string, number>;
}

/**
 * Sums a profile's sample time by origin; idle time apart. A native function (JSON.stringify, a TLS write) counts
 * for the code that called it: the nearest frame above it with a source.
 */
function figures(file: string, p: CpuProfile, window?: { from: number; to: number }): ThreadFigures {
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const nodes = new Map(p.nodes.map((n) => [n.id, n]));
  const originOf = (id: number): string => {
    const n = nodes.get(id)!;
    const o = origin(n.callFrame.functionName, n.callFrame.url);
    if (o !== '(native)') return o;
    const up = parent.get(id);
    return up === undefined ? o : originOf(up);
  };
  const byId = new Map(p.nodes.map((n) => [n.id, originOf(n.id)]));
  const by: Record<string, number> = {};
  let at = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    at += p.timeDeltas[i] ?? 0;
    if (window && (at < window.from || at > window.to)) continue;
    const o = byId.get(p.samples[i]!) ?? '(unknown)';
    by[o] = (by[o] ?? 0) + (p.timeDeltas[i] ?? 0) / 1000;
  }
  const idle = by['(idle)'] ?? 0;
  const total = Object.values(by).reduce((a, b) => a + b, 0);
  // Node names a profile CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile; thread 0 is the main thread.
  const main = /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(file);
  const span = window ? Math.min(p.endTime, window.to) - Math.max(p.startTime, window.from) : p.endTime - p.startTime;
  return { file, main, span_ms: span / 1000, busy_ms: total - idle, by_origin: by };
}

async function main(): Promise<void> {
  const { values } = benchArgs(USAGE, {
    options: {
      groups: { type: 'string' },
      seed: { type: 'string', default: String(DEFAULT_SEED) },
      top: { type: 'string', default: '12' },
      keep: { type: 'boolean', default: false },
    },
  });
  const seed = int(values.seed, 0) ?? usage(USAGE);
  const top = int(values.top) ?? usage(USAGE);
  const build = await ensureBuild();
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-bench-profile-'));
  const profiles = join(dir, 'profiles');
  mkdirSync(profiles);
  const sandbox = await startSandboxApart();
  try {
    // As bench/floor.ts runs it: the embedded run's concurrency, unpaced. (--cpu-prof-dir=DIR in one argument: vitest hands
    // the profiling flags to its workers, and a value apart from its flag would be left behind.)
    const env = { ...sandbox.env, FSAPI_CONCURRENCY: String(EMBEDDED_CONCURRENCY), FSAPI_RATE_LIMIT: '0' };
    const args = (root: string) => ['run', '--seed', String(seed), '--report-dir', root, ...(values.groups ? ['--groups', values.groups] : [])];
    console.error(`warm-up: node bin/fsapi-conformance.js ${args(join(dir, 'warm')).join(' ')} (against ${sandbox.info.base_url})`);
    assertRan(await runCli(args(join(dir, 'warm')), { cwd: dir, env }), 'the warm-up run');
    console.error(`profiled: node --cpu-prof bin/fsapi-conformance.js ${args(join(dir, 'reports')).join(' ')}`);
    const r = await runCli(args(join(dir, 'reports')), { cwd: dir, env, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profiles}`] });
    assertRan(r, 'the profiled run');
    const report = readLatestReport(join(dir, 'reports'));
    const read = readdirSync(profiles)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => ({ f, p: JSON.parse(readFileSync(join(profiles, f), 'utf8')) as CpuProfile }));
    const threads = read.map(({ f, p }) => figures(f, p)).sort((a, b) => Number(b.main) - Number(a.main) || b.busy_ms - a.busy_ms);
    // The main thread's samples from the first worker's start to the last worker's end are its share of the suites
    // phase (one process, so every thread's profile has the same clock; the workers end when vitest closes, the end
    // of the phase). Not the phase's length from the first worker's start: the workers start some 0.3 s into the
    // phase, and that window took in the Allure files written after it.
    const workerProfiles = read.filter(({ f }) => !threads.find((t) => t.file === f)!.main).map(({ p }) => p);
    const phase = workerProfiles.length ? { from: Math.min(...workerProfiles.map((p) => p.startTime)), to: Math.max(...workerProfiles.map((p) => p.endTime)) } : undefined;
    const mainInPhase = read.filter(({ f }) => threads.find((t) => t.file === f)!.main).map(({ f, p }) => figures(f, p, phase))[0];
    const workers = threads.filter((t) => !t.main && t.busy_ms > 0);
    const sum = (ts: ThreadFigures[]) => {
      const out: Record<string, number> = {};
      for (const t of ts) for (const [k, v] of Object.entries(t.by_origin)) if (k !== '(idle)') out[k] = (out[k] ?? 0) + v;
      return out;
    };
    const mainThread = threads.find((t) => t.main);
    const busy = (ts: ThreadFigures[]) => ts.reduce((n, t) => n + t.busy_ms, 0);
    console.log(`\nseed ${seed}, groups ${values.groups ?? 'all'}; verdict ${report.verdict}; suites phase ${sec(report.run.phases.suites_ms, 2)} s, whole run ${sec(report.run.duration_ms, 2)} s (wall ${sec(r.wall_ms, 2)} s)`);
    // Busy: sampled outside idle. The sampler runs on wall time, so on a loaded machine a thread waiting for a core in
    // the middle of its code counts as busy there: the shares are what to read, the seconds are an upper bound.
    console.log(`threads profiled: ${threads.length} (main: busy ${sec(mainThread?.busy_ms, 2)} s of ${sec(mainThread?.span_ms, 2)} s; ${workers.length} workers busy ${sec(busy(workers), 2)} s in all; busy is wall time outside idle)\n`);
    const rows = (by: Record<string, number>, total: number) =>
      Object.entries(by)
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([k, v]) => [k, sec(v, 2), `${Math.round((100 * v) / Math.max(1, total))}%`]);
    console.log('workers (every vitest worker thread, summed): CPU by origin');
    printTable(['origin', 'CPU (s)', 'share'], rows(sum(workers), busy(workers)));
    if (mainThread) {
      console.log('\nmain thread, the whole run (start-up and report writing included): CPU by origin');
      printTable(['origin', 'CPU (s)', 'share'], rows(sum([mainThread]), mainThread.busy_ms));
    }
    if (mainInPhase) {
      console.log(`\nmain thread while the workers ran (${sec(mainInPhase.span_ms, 2)} s): busy ${sec(mainInPhase.busy_ms, 2)} s; CPU by origin`);
      printTable(['origin', 'CPU (s)', 'share'], rows(sum([mainInPhase]), mainInPhase.busy_ms));
    }
    const written = writeResult('profile', {
      seed,
      groups: values.groups ?? 'all',
      build,
      verdict: report.verdict,
      suites_ms: report.run.phases.suites_ms,
      duration_ms: report.run.duration_ms,
      wall_ms: round(r.wall_ms, 0),
      ...(mainInPhase ? { main_in_suites_phase: { span_ms: round(mainInPhase.span_ms, 0), busy_ms: round(mainInPhase.busy_ms, 0), by_origin: Object.fromEntries(Object.entries(mainInPhase.by_origin).map(([k, v]) => [k, round(v, 1)])) } } : {}),
      threads: threads.map((t) => ({ ...t, span_ms: round(t.span_ms, 0), busy_ms: round(t.busy_ms, 0), by_origin: Object.fromEntries(Object.entries(t.by_origin).map(([k, v]) => [k, round(v, 1)])) })),
      ...(values.keep ? { kept: dir } : {}),
    });
    console.log(`\nwritten: ${written}${values.keep ? `\nkept: ${dir} (profiles/: open a .cpuprofile in Chrome DevTools)` : ''}`);
  } finally {
    await sandbox.stop();
    if (!values.keep) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
