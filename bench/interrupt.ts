/**
 * Interrupts under load: `run` is sent SIGINT at fixed moments after it starts while busy processes hold every
 * core, many times each, and every outcome is classed. A kept promise is exit 5 with a report whose verdict is
 * incomplete (the run said it would write one), or 130 with no report (the signal came before the CLI's first line,
 * when nothing was promised). A broken one is any run that went on to a finished verdict, or exit 5 without the
 * report. Exit 1 when any promise was broken.
 *
 *   npx tsx bench/interrupt.ts [--at 0.3,0.5,1,2.5] [--times 10] [--busy N] [--signal SIGINT|SIGTERM]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { atExit, benchArgs, BIN, childEnv, ensureBuild, printTable, writeResult } from './lib.js';

const USAGE = 'npx tsx bench/interrupt.ts [--at 0.3,0.5,1,2.5] [--times 10] [--busy N] [--signal SIGINT|SIGTERM]';

const { values } = benchArgs(USAGE, {
  options: {
    at: { type: 'string', default: '0.3,0.5,1,2.5' },
    times: { type: 'string', default: '10' },
    busy: { type: 'string', default: String(availableParallelism()) },
    signal: { type: 'string', default: 'SIGINT' },
  },
});
const moments = values.at.split(',').map(Number);
const times = Number(values.times);
const busyCount = Number(values.busy);
const signal = values.signal as NodeJS.Signals;
if (moments.some((m) => !(m >= 0)) || !(times >= 1) || !(busyCount >= 0) || !['SIGINT', 'SIGTERM'].includes(signal)) {
  console.error('usage: npx tsx bench/interrupt.ts [--at 0.3,0.5,1,2.5] [--times 10] [--busy N] [--signal SIGINT|SIGTERM]');
  process.exit(2);
}

await ensureBuild();
const work = mkdtempSync(join(tmpdir(), 'fsapi-bench-interrupt-'));
atExit(() => rmSync(work, { recursive: true, force: true }));

// A busy loop per core, in processes of their own, for the whole measurement.
const busy: ChildProcess[] = Array.from({ length: busyCount }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
atExit(() => busy.forEach((b) => b.kill('SIGKILL')));

type Outcome = 'incomplete report (5)' | 'nothing promised (130)' | 'BROKEN: finished' | 'BROKEN: no report' | 'BROKEN: other';
interface Trial {
  at: number;
  code: number | null;
  outcome: Outcome;
  verdict?: string;
  ms: number;
}

async function trial(at: number, i: number): Promise<Trial> {
  const reports = join(work, `r-${at}-${i}`);
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'run', '--seed', String(20261120 + i), '--report-dir', reports, '--quiet'], { cwd: work, env: childEnv(), stdio: 'ignore' });
  const timer = setTimeout(() => child.kill(signal), at * 1000);
  // Killed by the signal itself (no handler yet: it came before the CLI's first line) is what a shell reports as 130.
  const code: number | null = await new Promise((resolve) => child.on('exit', (c, sig) => resolve(c ?? (sig === signal ? 128 + (sig === 'SIGINT' ? 2 : 15) : null))));
  clearTimeout(timer);
  const ms = Math.round(performance.now() - t0);
  const file = join(reports, 'latest', 'conformance.json');
  const verdict = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { verdict: string }).verdict : undefined;
  const outcome: Outcome =
    code === 5 && verdict === 'incomplete' ? 'incomplete report (5)' : (code === 130 || code === 143) && verdict === undefined ? 'nothing promised (130)' : verdict && verdict !== 'incomplete' ? 'BROKEN: finished' : code === 5 ? 'BROKEN: no report' : 'BROKEN: other';
  return { at, code, outcome, ...(verdict ? { verdict } : {}), ms };
}

const trials: Trial[] = [];
for (const at of moments) {
  for (let i = 0; i < times; i++) {
    const t = await trial(at, i);
    trials.push(t);
    console.error(`${signal} at ${at} s, run ${i + 1}/${times}: exit ${t.code}, ${t.outcome} (${(t.ms / 1000).toFixed(1)} s)`);
  }
}

const rows = moments.map((at) => {
  const mine = trials.filter((t) => t.at === at);
  const count = (o: string) => String(mine.filter((t) => t.outcome.startsWith(o)).length);
  return [`${at} s`, String(mine.length), count('incomplete'), count('nothing'), count('BROKEN')];
});
printTable([`${signal} at`, 'runs', 'exit 5, incomplete report', 'exit 130, nothing promised', 'broken'], rows);
const broken = trials.filter((t) => t.outcome.startsWith('BROKEN')).length;
console.log(`busy processes: ${busyCount}; broken promises: ${broken}`);
console.log(`written: ${writeResult('interrupt', { signal, busy: busyCount, trials })}`);
process.exitCode = broken ? 1 : 0;
