/**
 * The harness overhead: how long the suite phase of a run takes, against how long a bare HTTP client takes to
 * send exactly the requests that run sent. The sandbox runs in a child process (`sandbox --json --http-port 0`);
 * the suite runs against it as a child process (FSAPI_BASE_URL and the sandbox's credentials) with
 * FSAPI_TRACE_FILE; then this process replays the trace with a bare undici Agent against the same sandbox.
 *
 *   npx tsx bench/floor.ts [--groups G1,G2] [--seed 20261120] [--concurrency N] [--keys fresh|verbatim] [--warm-runs 1] [--keep]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertRan, benchArgs, ensureBuild, int, printTable, readLatestReport, round, runCli, sec, startSandboxApart, usage, writeResult } from './lib.js';
import { byClass, prepare, replay, type TraceLine } from './trace-replay.js';
import { EMBEDDED_CONCURRENCY, harnessWorkers } from '../src/config/run-config.js';
import { SETTINGS } from '../src/config/variables.js';

const USAGE = 'npx tsx bench/floor.ts [--groups G1,G2] [--seed N] [--concurrency N] [--keys fresh|verbatim] [--warm-runs N] [--keep]';
const DEFAULT_SEED = 20261120;
/** What the embedded sandbox run uses (no pacing; a remote target is paced adaptively by default): the run must match it. */
const EMBEDDED_RATE_LIMIT = 0;
/** The run's default wait before the delayed idempotency replay (src/config/variables.ts), the same for every user. */
const REPLAY_DELAY_MS = Number(SETTINGS.find((s) => s.env === 'FSAPI_REPLAY_DELAY_MS')?.default);
if (!(REPLAY_DELAY_MS > 0)) throw new Error('src/config/variables.ts gives FSAPI_REPLAY_DELAY_MS no numeric default');

const delta = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : b - a);
/** This process's CPU time (user + system, ms) since `from`. */
const cpuSince = (from: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1000;
};

interface FloorOptions {
  seed: number;
  warmRuns: number;
  keys: 'fresh' | 'verbatim';
  concurrencyFlag: number | undefined;
  groups: string | undefined;
  keep: boolean;
}

function floorOptions(): FloorOptions {
  const { values } = benchArgs(USAGE, {
    options: {
      groups: { type: 'string' },
      seed: { type: 'string', default: String(DEFAULT_SEED) },
      concurrency: { type: 'string' },
      keys: { type: 'string', default: 'fresh' },
      keep: { type: 'boolean', default: false },
      'warm-runs': { type: 'string', default: '1' },
    },
  });
  return {
    seed: int(values.seed, 0) ?? usage(USAGE),
    warmRuns: int(values['warm-runs'], 0) ?? usage(USAGE),
    keys: values.keys === 'fresh' || values.keys === 'verbatim' ? values.keys : usage(USAGE),
    concurrencyFlag: values.concurrency === undefined ? undefined : (int(values.concurrency) ?? usage(USAGE)),
    groups: values.groups,
    keep: values.keep,
  };
}

type Cpu = { client_ms: number | undefined; sandbox_ms: number | undefined };

/** What one measurement saw: the warm-up runs, the traced run, and its two replays. */
interface Floor {
  warmSuites: number[];
  report: ReturnType<typeof readLatestReport>;
  lines: TraceLine[];
  workers: number;
  concurrency: number;
  prepared: ReturnType<typeof prepare>;
  preparedTimed: ReturnType<typeof prepare>;
  result: Awaited<ReturnType<typeof replay>>;
  timed: Awaited<ReturnType<typeof replay>>;
  cpu: { run: Cpu; replay: Cpu; timed_replay: Cpu };
}

/** Runs the suite against the sandbox (after the warm-up runs), then replays its trace, untimed and timed. */
async function measure(o: FloorOptions, sandbox: Awaited<ReturnType<typeof startSandboxApart>>, dir: string): Promise<Floor> {
  const traceFile = join(dir, 'trace.jsonl');
  const reportRoot = join(dir, 'reports');
  const { info } = sandbox;
  const env: Record<string, string> = {
    ...sandbox.env,
    // A remote target is paced adaptively by default; this one must run as the embedded run does.
    FSAPI_CONCURRENCY: String(EMBEDDED_CONCURRENCY),
    FSAPI_RATE_LIMIT: String(EMBEDDED_RATE_LIMIT),
    // Said, not left to the default, so the timed replay keeps the same waits.
    FSAPI_REPLAY_DELAY_MS: String(REPLAY_DELAY_MS),
    FSAPI_TRACE_FILE: traceFile,
  };
  const runArgs = (root: string) => ['run', '--seed', String(o.seed), '--report-dir', root, ...(o.groups ? ['--groups', o.groups] : [])];
  const args = runArgs(reportRoot);
  // The replay meets a sandbox that has served the whole run, its code optimised by V8; the run met it cold, and
  // its first few thousand requests cost the sandbox about 2.5x what they cost later (bench/README.md). So the
  // measured run is not the sandbox's first: the warm-up runs are the same run, unmeasured, and their suite
  // phases are printed for comparison (the first is what `npm run conformance` sees).
  const warmSuites: number[] = [];
  for (let i = 1; i <= o.warmRuns; i++) {
    const warmRoot = join(dir, `warm-${i}`);
    const warmArgs = runArgs(warmRoot);
    console.error(`warm-up ${i}/${o.warmRuns}: node bin/fsapi-conformance.js ${warmArgs.join(' ')} (against ${info.base_url})`);
    const { FSAPI_TRACE_FILE: _unused, ...warmEnv } = env;
    const warm = await runCli(warmArgs, { cwd: dir, env: warmEnv });
    assertRan(warm, `warm-up run ${i}`);
    warmSuites.push(readLatestReport(warmRoot).run.phases.suites_ms);
  }
  console.error(`suite: node bin/fsapi-conformance.js ${args.join(' ')} (against ${info.base_url})`);
  const sandboxBefore = sandbox.cpuMs();
  const run = await runCli(args, { cwd: dir, env, cpu: true });
  const sandboxRun = delta(sandboxBefore, sandbox.cpuMs());
  assertRan(run, 'the suite run');
  const report = readLatestReport(reportRoot);
  if (!existsSync(traceFile)) throw new Error(`the run wrote no trace (${traceFile}): does this build know FSAPI_TRACE_FILE?`);
  const lines = readFileSync(traceFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as TraceLine);

  // At most the run's workers (the waiting file counted): the concurrency the floor is given.
  const workers = harnessWorkers(report.run.groups.length + 1);
  const concurrency = o.concurrencyFlag ?? report.run.concurrency * workers;
  // Untimed, the floor as the issue defines it: every request as soon as a slot is free. Timed, the same
  // requests with the run's deliberate waits kept (a delayed repeat goes no sooner than REPLAY_DELAY_MS after
  // the request it repeats), which no harness could shorten. Each replay gets keys of its own.
  const prepared = prepare(lines, info, o.keys, REPLAY_DELAY_MS);
  console.error(`replay: ${prepared.requests.length} requests at concurrency ${concurrency} (keys ${o.keys})`);
  const [s0, c0] = [sandbox.cpuMs(), process.cpuUsage()];
  const result = await replay(prepared.requests, sandbox.ca, concurrency, false);
  const replayCpu = { client_ms: cpuSince(c0), sandbox_ms: delta(s0, sandbox.cpuMs()) };
  const preparedTimed = prepare(lines, info, o.keys, REPLAY_DELAY_MS);
  console.error(`timed replay: the same, ${preparedTimed.delayed} of them ${REPLAY_DELAY_MS} ms after the request they repeat`);
  const [t0, d0] = [sandbox.cpuMs(), process.cpuUsage()];
  const timed = await replay(preparedTimed.requests, sandbox.ca, concurrency, true);
  const timedCpu = { client_ms: cpuSince(d0), sandbox_ms: delta(t0, sandbox.cpuMs()) };
  const runCpu = { client_ms: run.cpu ? run.cpu.user_ms + run.cpu.system_ms : undefined, sandbox_ms: sandboxRun };
  return { warmSuites, report, lines, workers, concurrency, prepared, preparedTimed, result, timed, cpu: { run: runCpu, replay: replayCpu, timed_replay: timedCpu } };
}

/** Prints the measurement's tables and notes; answers what bench/results keeps of it. */
function printFloor(o: FloorOptions, f: Floor): Record<string, unknown> {
  const { warmSuites, report, lines, workers, concurrency, prepared, preparedTimed, result, timed } = f;
  const { run: runCpu, replay: replayCpu, timed_replay: timedCpu } = f.cpu;
  const suitesMs = report.run.phases.suites_ms;
  // Where the suite phase went, from the trace: before the first request (workers starting, suite files loading,
  // planning), from the first request to the last, and after it (the last answers, the checks over observed
  // traffic, vitest closing). Request times are the run's wall clock, in ms.
  const phaseStart = Date.parse(report.run.started_at) + report.run.phases.startup_ms + report.run.phases.preflight_ms;
  const starts = lines.map((l) => Date.parse(l.at)).sort((a, b) => a - b);
  const split = { lead_in_ms: starts[0]! - phaseStart, requests_ms: starts.at(-1)! - starts[0]!, tail_ms: phaseStart + suitesMs - starts.at(-1)! };
  const ratio = suitesMs / result.duration_ms;
  const ratioTimed = suitesMs / timed.duration_ms;
  const runStatuses: Record<string, number> = {};
  for (const r of prepared.requests) runStatuses[String(r.status)] = (runStatuses[String(r.status)] ?? 0) + 1;
  const runClasses = byClass(runStatuses);
  const replayClasses = byClass(result.statuses);
  const timedClasses = byClass(timed.statuses);
  const warmRuns = o.warmRuns;

  console.log(`\nseed ${o.seed}, groups ${o.groups ?? 'all'} (${report.run.groups.length} suites, ${workers} workers × ${report.run.concurrency} in flight); verdict ${report.verdict}`);
  printTable(
    ['', 'time (s)', 'requests', 'req/s'],
    [
      ...warmSuites.map((ms, i) => [`suite phase, warm-up run ${i + 1}${i === 0 ? ' (sandbox cold)' : ''}`, sec(ms, 2), '', '']),
      [`suite phase (the measured run${warmRuns ? `, after ${warmRuns} warm-up run${warmRuns > 1 ? 's' : ''}` : ', sandbox cold'})`, sec(suitesMs, 2), String(lines.length), String(Math.round(lines.length / (suitesMs / 1000)))],
      ['  before its first request (workers, suite files, planning)', sec(split.lead_in_ms, 2), '', ''],
      ['  from its first request to its last', sec(split.requests_ms, 2), '', String(Math.round(lines.length / (split.requests_ms / 1000)))],
      ['  after its last request (last answers, traffic checks, closing)', sec(split.tail_ms, 2), '', ''],
      [`replay (bare undici, ${concurrency} in flight)`, sec(result.duration_ms, 2), String(prepared.requests.length), String(Math.round(prepared.requests.length / (result.duration_ms / 1000)))],
      [`timed replay (the same, ${preparedTimed.delayed} repeats held ${sec(REPLAY_DELAY_MS, 0)} s as the run held them)`, sec(timed.duration_ms, 2), String(preparedTimed.requests.length), String(Math.round(preparedTimed.requests.length / (timed.duration_ms / 1000)))],
      ['ratio suite ÷ replay', `${ratio.toFixed(1)}×`, '', ''],
      ['ratio suite ÷ timed replay (the deliberate waits not counted as overhead)', `${ratioTimed.toFixed(1)}×`, '', ''],
      ...(warmSuites.length ? [['ratio warm-up run 1 ÷ replay (sandbox cold in the run only)', `${(warmSuites[0]! / result.duration_ms).toFixed(1)}×`, '', '']] : []),
    ],
  );
  // On a machine whose cores the client and the sandbox share (and other work with them), CPU time says what wall
  // time cannot: how much work each side did for the same requests.
  console.log('');
  printTable(
    ['CPU (s)', 'run', 'replay', 'timed replay'],
    [
      ['client (the suite\'s whole process / this one)', sec(runCpu.client_ms, 2), sec(replayCpu.client_ms, 2), sec(timedCpu.client_ms, 2)],
      ['sandbox process', sec(runCpu.sandbox_ms, 2), sec(replayCpu.sandbox_ms, 2), sec(timedCpu.sandbox_ms, 2)],
    ],
  );
  console.log('');
  printTable(
    ['status', 'run', 'replay', 'timed replay'],
    Object.keys(replayClasses).map((k) => [k, String(runClasses[k] ?? 0), String(replayClasses[k] ?? 0), String(timedClasses[k] ?? 0)]),
  );
  const untraced = report.run.requests_sent - lines.length;
  const samePct = prepared.requests.length ? (100 * result.same_status_as_run) / prepared.requests.length : 0;
  console.log(
    `\nrequests sent by the run: ${report.run.requests_sent}; in the trace: ${lines.length} (${untraced === 1 ? 'the preflight request is not traced' : `${untraced} sent requests are not in the trace, one of them the preflight's`})` +
      `\nskipped: ${prepared.skipped_plain_http} plain-HTTP probes, ${prepared.skipped_other_origin} other absolute URLs` +
      `\nidempotency keys remapped: ${prepared.keys_remapped} (--keys ${o.keys}); same status as in the run: ${result.same_status_as_run} (${samePct.toFixed(1)}%), timed replay ${timed.same_status_as_run}` +
      `\nheld in the timed replay: ${preparedTimed.delayed} requests that repeat an earlier one's Idempotency-Key ${REPLAY_DELAY_MS} ms or more after it in the run (the waiting checks' second requests)`,
  );
  if (Object.keys(prepared.unresolved_secrets).length) console.log(`unresolved redactions (sent as is): ${JSON.stringify(prepared.unresolved_secrets)}`);
  if (Object.keys(result.errors).length) console.log(`replay errors: ${JSON.stringify(result.errors)}`);
  if (Object.keys(timed.errors).length) console.log(`timed replay errors: ${JSON.stringify(timed.errors)}`);
  return {
    seed: o.seed,
    groups: o.groups ?? 'all',
    verdict: report.verdict,
    suites: report.run.groups.length,
    workers,
    run_concurrency_per_suite: report.run.concurrency,
    replay_concurrency: concurrency,
    keys: o.keys,
    warm_runs: warmRuns,
    warm_suites_ms: warmSuites,
    suites_ms: suitesMs,
    suites_split: split,
    cpu_ms: f.cpu,
    replay_ms: round(result.duration_ms, 1),
    ratio: round(ratio, 2),
    replay_delay_ms: REPLAY_DELAY_MS,
    timed_replay_ms: round(timed.duration_ms, 1),
    timed_held: preparedTimed.delayed,
    ratio_timed: round(ratioTimed, 2),
    timed_same_status_as_run: timed.same_status_as_run,
    timed_replay_statuses: timed.statuses,
    timed_replay_errors: timed.errors,
    requests_sent: report.run.requests_sent,
    trace_lines: lines.length,
    untraced_requests: untraced,
    replayed: prepared.requests.length,
    skipped_plain_http: prepared.skipped_plain_http,
    skipped_other_origin: prepared.skipped_other_origin,
    keys_remapped: prepared.keys_remapped,
    unresolved_secrets: prepared.unresolved_secrets,
    same_status_as_run: result.same_status_as_run,
    run_statuses: runStatuses,
    replay_statuses: result.statuses,
    replay_errors: result.errors,
  };
}

async function main(): Promise<void> {
  const o = floorOptions();
  const build = await ensureBuild();
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-bench-floor-'));
  // Started apart with every setting a full run needs, the webhook receiver's address included: without one, the
  // MUST requirements it unlocks are not verified and the run is inconclusive (exit 6), which stops the bench.
  const sandbox = await startSandboxApart();
  try {
    const f = await measure(o, sandbox, dir);
    const { seed, groups, ...kept } = printFloor(o, f);
    const written = writeResult('floor', { seed, groups, build, ...kept, ...(o.keep ? { kept: dir } : {}) });
    console.log(`\nwritten: ${written}${o.keep ? `\nkept: ${dir} (trace.jsonl, reports/)` : ''}`);
    if (f.result.statuses['error'] || f.timed.statuses['error']) process.exitCode = 1;
  } finally {
    await sandbox.stop();
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
