/**
 * An interrupt while a worker spins: `run --groups accounts` with the test-only hook that makes the worker starting
 * one check spin in a synchronous loop for ever (as a value generator without a bound once did, issue 34), the
 * signal sent the moment the worker says it spins, and the time from the signal to the report on disk and to the
 * process's exit, `--times` runs. Exit 1 when a run did not write its incomplete report or took over `--within`
 * seconds to. Busy loops per core (`--busy`, default none) load the machine as a CI runner's neighbours would.
 *
 *   npx tsx bench/interrupt-spin.ts [--times 10] [--signal SIGTERM|SIGINT] [--within 2] [--busy N]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_SPIN_VARIABLE } from '../src/harness/test-spin.js';
import { atExit, benchArgs, BIN, childEnv, ensureBuild, machine, printTable, sec, spread, usage, writeResult } from './lib.js';

const USAGE = 'npx tsx bench/interrupt-spin.ts [--times 10] [--signal SIGTERM|SIGINT] [--within 2] [--busy N]';

const { values } = benchArgs(USAGE, {
  options: {
    times: { type: 'string', default: '10' },
    signal: { type: 'string', default: 'SIGTERM' },
    within: { type: 'string', default: '2' },
    busy: { type: 'string', default: '0' },
  },
});
const times = Number(values.times);
const within = Number(values.within) * 1000;
const busyCount = Number(values.busy);
const signal = values.signal as NodeJS.Signals;
if (!(times >= 1) || !(within > 0) || !(busyCount >= 0) || !['SIGINT', 'SIGTERM'].includes(signal)) usage('npx tsx bench/interrupt-spin.ts [--times 10] [--signal SIGTERM|SIGINT] [--within 2] [--busy N]');

/** A check of the accounts suite that starts early: its worker spins, the others' checks go on and end. */
const SPINNING = 'FSAPI-ACC-001 listAccounts seed-request';

await ensureBuild();
const work = mkdtempSync(join(tmpdir(), 'fsapi-bench-interrupt-spin-'));
atExit(() => rmSync(work, { recursive: true, force: true }));
const busy: ChildProcess[] = Array.from({ length: busyCount }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
atExit(() => busy.forEach((b) => b.kill('SIGKILL')));

interface Trial {
  code: number | null;
  verdict?: string;
  checks?: number;
  /** From the signal to the report's last write, and to the process's exit. */
  reportMs?: number;
  exitMs: number;
}

async function trial(i: number): Promise<Trial> {
  const reports = join(work, `r-${i}`);
  const child = spawn(process.execPath, [BIN, 'run', '--groups', 'accounts', '--seed', '7', '--report-dir', reports, '--quiet'], {
    cwd: work,
    env: childEnv({ [TEST_SPIN_VARIABLE]: SPINNING }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  // The hook writes its line straight to the descriptor as the worker starts spinning: the signal follows it.
  let stderr = '';
  let signalledAt = 0;
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
    if (!signalledAt && stderr.includes(`spinning in ${SPINNING}`)) {
      signalledAt = Date.now();
      child.kill(signal);
    }
  });
  const code = await exited;
  const exitMs = Date.now() - signalledAt;
  const file = join(reports, 'latest', 'conformance.json');
  if (!signalledAt || !existsSync(file)) return { code, exitMs };
  const report = JSON.parse(readFileSync(file, 'utf8')) as { verdict: string; checks: unknown[] };
  return { code, verdict: report.verdict, checks: report.checks.length, reportMs: statSync(file).mtimeMs - signalledAt, exitMs };
}

const trials: Trial[] = [];
for (let i = 0; i < times; i++) {
  const t = await trial(i);
  trials.push(t);
  console.error(`run ${i + 1}/${times}: exit ${t.code}, ${t.verdict ?? 'no report'}${t.checks !== undefined ? ` (${t.checks} checks)` : ''}, report ${sec(t.reportMs, 2)} s and exit ${sec(t.exitMs, 2)} s after ${signal}`);
}
const reportMs = spread(trials.flatMap((t) => (t.reportMs === undefined ? [] : [t.reportMs])));
const exitMs = spread(trials.map((t) => t.exitMs));
const late = trials.filter((t) => t.code !== 5 || t.verdict !== 'incomplete' || t.reportMs === undefined || t.reportMs > within);
printTable(
  [`after ${signal}`, 'median s', 'min s', 'max s'],
  [
    ['report written', sec(reportMs.median, 2), sec(reportMs.min, 2), sec(reportMs.max, 2)],
    ['process exited', sec(exitMs.median, 2), sec(exitMs.min, 2), sec(exitMs.max, 2)],
  ],
);
const m = machine();
console.log(`runs: ${trials.length}; busy processes: ${busyCount}; load (1 min): ${m.loadavg_1m}; without the report within ${within / 1000} s: ${late.length}`);
console.log(`written: ${writeResult('interrupt-spin', { signal, busy: busyCount, within_ms: within, machine: m, trials })}`);
process.exitCode = late.length ? 1 : 0;
