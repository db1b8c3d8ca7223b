/**
 * Soak: the suite run many times in a row in one process (runConformance in-process, embedded sandbox, one
 * seed), to see that nothing leaks from run to run and nothing is flaky. After each run: heap and RSS (after a
 * full GC), the run's check statuses. Asserts (exit 1 otherwise): every run has the same checks with the same
 * statuses as the first, and the heap after GC grows by less than the bound from the first run to any later one.
 *
 *   npx tsx bench/soak.ts [--runs 20] [--groups G1,G2] [--seed 20261120] [--max-heap-growth-mb 64]
 *
 * It needs `global.gc`: started without --expose-gc, it starts itself again as
 * `node --expose-gc --import tsx bench/soak.ts ...` and exits with that process's code.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pathToFileURL } from 'node:url';
import { benchArgs, childEnv, ensureBuild, int, printTable, ROOT, round, sec, usage, writeResult } from './lib.js';
import type { CheckStatus } from '../src/results/model.js';

const USAGE = 'npx tsx bench/soak.ts [--runs 20] [--groups G1,G2] [--seed N] [--max-heap-growth-mb 64]';
const DEFAULT_SEED = 20261120;
const REEXEC_MARK = 'BENCH_SOAK_EXPOSE_GC';

/** Without global.gc, start again with --expose-gc (once: the mark stops a loop) and pass on its exit code. */
async function reexecWithGc(): Promise<number> {
  const args = ['--expose-gc', '--import', import.meta.resolve('tsx'), fileURLToPath(import.meta.url), ...process.argv.slice(2)];
  const child = spawn(process.execPath, args, { stdio: 'inherit', env: { ...process.env, [REEXEC_MARK]: '1' } });
  // Ctrl-C reaches both processes (same process group): this one waits for the child's report. A SIGTERM sent
  // to this one alone is passed on.
  const onInt = () => undefined;
  const onTerm = () => child.kill('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c, s) => resolve({ code: c, signal: s }));
  });
  process.off('SIGINT', onInt);
  process.off('SIGTERM', onTerm);
  return code ?? (signal ? 128 + 15 : 1);
}

interface Sample {
  run: number;
  verdict: string;
  checks: number;
  suites_ms: number;
  heap_used_mb: number;
  rss_mb: number;
  external_mb: number;
  /** process.getActiveResourcesInfo().length: handles and requests left open (sockets, timers, servers). */
  active_resources: number;
  /** Checks whose id or status differs from run 1. */
  differences: number;
}

const mb = (bytes: number): number => round(bytes / 1024 / 1024, 1);

function memory(): { heap_used_mb: number; rss_mb: number; external_mb: number } {
  // Twice: finalizers run by the first collection can free more in the second.
  global.gc!();
  global.gc!();
  const m = process.memoryUsage();
  return { heap_used_mb: mb(m.heapUsed), rss_mb: mb(m.rss), external_mb: mb(m.external) };
}

type Difference = { run: number; id: string; first?: CheckStatus; now?: CheckStatus };
type RunConformance = typeof import('../src/runner/run.js')['runConformance'];
type RunConfig = ReturnType<typeof import('../src/config/run-config.js')['loadRunConfig']>;

/** What the runs in a row saw: a sample after each, every check whose status left run 1's, and why they stopped early. */
interface Soak {
  samples: Sample[];
  differences: Difference[];
  failure: string | undefined;
  warnings: string[];
}

async function main(): Promise<number> {
  const { values } = benchArgs(USAGE, {
    options: {
      runs: { type: 'string', default: '20' },
      groups: { type: 'string' },
      seed: { type: 'string', default: String(DEFAULT_SEED) },
      'max-heap-growth-mb': { type: 'string', default: '64' },
    },
  });
  const runs = int(values.runs) ?? usage(USAGE);
  const seed = int(values.seed, 0) ?? usage(USAGE);
  const bound = int(values['max-heap-growth-mb']) ?? usage(USAGE);
  if (typeof global.gc !== 'function') {
    if (process.env[REEXEC_MARK]) throw new Error('global.gc is still missing after starting with --expose-gc');
    return reexecWithGc();
  }

  // The compiled build, as `npm run conformance` runs it (vitest then loads dist/ natively in its workers).
  await ensureBuild();
  const load = <T>(path: string) => import(pathToFileURL(join(ROOT, 'dist', path)).href) as Promise<T>;
  const { loadRunConfig } = await load<typeof import('../src/config/run-config.js')>('src/config/run-config.js');
  const { runConformance } = await load<typeof import('../src/runner/run.js')>('src/runner/run.js');

  const dir = mkdtempSync(join(tmpdir(), 'fsapi-bench-soak-'));
  // The shell's FSAPI_* variables and any .env are not this benchmark's: a clean environment, a fresh directory.
  const cfg = loadRunConfig({ seed: String(seed), 'report-dir': join(dir, 'reports'), ...(values.groups ? { groups: values.groups } : {}) }, { env: childEnv(), cwd: dir });
  const interrupt = new AbortController();
  const start = memory();
  console.log(`soak: ${runs} runs in this process (pid ${process.pid}), seed ${seed}, groups ${values.groups ?? 'all'}; start: heap ${start.heap_used_mb} MB, RSS ${start.rss_mb} MB`);
  let soak: Soak;
  try {
    soak = await runsInARow(runConformance, cfg, runs, interrupt);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const { problems, heapGrowth, rssGrowth } = judged(soak, { start, runs, bound, interrupted: interrupt.signal.aborted });
  const { samples, differences, warnings } = soak;
  const written = writeResult('soak', {
    seed,
    groups: values.groups ?? 'all',
    runs_requested: runs,
    runs_completed: samples.length,
    max_heap_growth_bound_mb: bound,
    start,
    samples,
    max_heap_growth_mb: round(heapGrowth, 1),
    max_rss_growth_mb: round(rssGrowth, 1),
    flaky_checks: [...new Set(differences.map((d) => d.id))],
    differences: differences.slice(0, 200),
    warnings,
    problems,
  });
  console.log(`\nwritten: ${written}`);
  if (problems.length) {
    console.log(`\nFAILED:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    return interrupt.signal.aborted && !soak.failure ? 130 : 1;
  }
  console.log('\nOK: no flaky outcome, heap growth within the bound');
  return 0;
}

/** The runs, one after another in this process, until `runs` are done, one fails or a signal stops them. */
async function runsInARow(runConformance: RunConformance, cfg: RunConfig, runs: number, interrupt: AbortController): Promise<Soak> {
  const onSignal = (sig: NodeJS.Signals) => {
    console.error(`\n${sig}: stopping after the current run (its report will be incomplete)`);
    interrupt.abort(new Error(`interrupted by ${sig}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  const samples: Sample[] = [];
  let first: Map<string, CheckStatus> | undefined;
  const differences: Difference[] = [];
  let failure: string | undefined;
  try {
    for (let i = 1; i <= runs && !interrupt.signal.aborted; i++) {
      let outcome: Awaited<ReturnType<RunConformance>>;
      try {
        // The run's own progress lines are not this benchmark's output.
        outcome = await runConformance(cfg, () => undefined, interrupt.signal);
      } catch (e) {
        failure = `run ${i} threw: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`;
        break;
      }
      const { report } = outcome;
      rmSync(outcome.written.dir, { recursive: true, force: true });
      if (report.verdict === 'incomplete') {
        failure = `run ${i} is incomplete: ${report.run.incomplete_reason ?? 'no reason given'}`;
        break;
      }
      const statuses = new Map(report.checks.map((c) => [c.id, c.status]));
      let diff = 0;
      if (!first) first = statuses;
      else {
        const found = differencesFrom(first, statuses, i);
        diff = found.length;
        differences.push(...found);
      }
      const m = memory();
      const sample: Sample = { run: i, verdict: report.verdict, checks: report.counts.by_status.total, suites_ms: report.run.phases.suites_ms, ...m, active_resources: process.getActiveResourcesInfo().length, differences: diff };
      samples.push(sample);
      console.log(
        `run ${String(i).padStart(2)}/${runs}: ${report.verdict}, ${sample.checks} checks, suites ${sec(sample.suites_ms)} s; heap ${m.heap_used_mb} MB, RSS ${m.rss_mb} MB, ` +
          `${sample.active_resources} active resources; ${diff === 0 ? 'same as run 1' : `${diff} checks differ from run 1`}`,
      );
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('warning', onWarning);
  }
  return { samples, differences, failure, warnings };
}

/** Every check whose status in run `run` is not run 1's, or that only one of the two has. */
function differencesFrom(first: ReadonlyMap<string, CheckStatus>, statuses: ReadonlyMap<string, CheckStatus>, run: number): Difference[] {
  const out: Difference[] = [];
  for (const [id, s] of first) if (statuses.get(id) !== s) out.push({ run, id, first: s, ...(statuses.has(id) ? { now: statuses.get(id)! } : {}) });
  for (const [id, s] of statuses) if (!first.has(id)) out.push({ run, id, now: s });
  return out;
}

/** Prints the memory table and the findings; answers the problems (none when the soak held) and the growth over run 1. */
function judged(soak: Soak, o: { start: ReturnType<typeof memory>; runs: number; bound: number; interrupted: boolean }): { problems: string[]; heapGrowth: number; rssGrowth: number } {
  const { samples, differences, failure, warnings } = soak;
  const { start, runs, bound } = o;
  const one = samples[0];
  const last = samples[samples.length - 1];
  const heapGrowth = one ? Math.max(0, ...samples.map((s) => s.heap_used_mb - one.heap_used_mb)) : 0;
  const rssGrowth = one ? Math.max(0, ...samples.map((s) => s.rss_mb - one.rss_mb)) : 0;
  console.log('');
  if (one && last) {
    printTable(
      ['after GC', 'heap used (MB)', 'RSS (MB)', 'external (MB)', 'active resources'],
      [
        ['start (before run 1)', String(start.heap_used_mb), String(start.rss_mb), String(start.external_mb), ''],
        ['after run 1', String(one.heap_used_mb), String(one.rss_mb), String(one.external_mb), String(one.active_resources)],
        [`end (after run ${last.run})`, String(last.heap_used_mb), String(last.rss_mb), String(last.external_mb), String(last.active_resources)],
        ['max growth over run 1', round(heapGrowth, 1).toFixed(1), round(rssGrowth, 1).toFixed(1), '', ''],
      ],
    );
  }
  const flaky = new Set(differences.map((d) => d.id));
  const verdicts = [...new Set(samples.map((s) => s.verdict))];
  const problems: string[] = [];
  if (failure) problems.push(failure);
  if (o.interrupted) problems.push(`interrupted after ${samples.length} of ${runs} runs`);
  if (flaky.size) problems.push(`${flaky.size} checks did not have run 1's status in every run (flaky)`);
  if (verdicts.length > 1) problems.push(`the verdict changed between runs: ${verdicts.join(', ')}`);
  if (heapGrowth >= bound) problems.push(`heap after GC grew ${round(heapGrowth, 1)} MB over run 1 (bound: < ${bound} MB)`);
  const listenerLeaks = warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'));
  if (listenerLeaks.length) problems.push(`listener leak warnings: ${listenerLeaks[0]}`);

  console.log(`\nflaky outcomes: ${flaky.size} (every run's checks and statuses against run 1's)`);
  for (const d of differences.slice(0, 10)) console.log(`  run ${d.run}: ${d.id}: ${d.first ?? 'absent'} in run 1, ${d.now ?? 'absent'} now`);
  console.log(`heap growth after GC: ${round(heapGrowth, 1)} MB at most over run 1 (bound < ${bound} MB); RSS ${round(rssGrowth, 1)} MB (reported, not asserted)`);
  if (warnings.length) console.log(`process warnings: ${warnings.length}, e.g. ${warnings[0]}`);
  return { problems, heapGrowth, rssGrowth };
}

process.exitCode = await main();
