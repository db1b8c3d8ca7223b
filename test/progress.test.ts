/**
 * Live progress: the line's content and pace (a fake clock and stream, ticks called directly), and a real run in
 * a pseudo-terminal (`script`), where the status line must count the very checks the run reports, leave the
 * per-suite lines and the closing summary whole, and be absent with --quiet.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listenForRequestTotals, requestTotalsReporter } from '../src/harness/request-totals.js';
import { LiveProgress, LONG_CHECK_MS, renderProgress, type ProgressCounts, type ProgressStream } from '../src/runner/progress.js';
import { listenForCheckActivity } from '../src/harness/checks-in-progress.js';
import { Worker } from 'node:worker_threads';
import type { RunReport } from '../src/results/model.js';
import { busy } from './helpers/busy.js';

const BIN = new URL('../bin/fsapi-conformance.js', import.meta.url).pathname;
const ESC = '\x1b';
const ERASE = `${ESC}[G${ESC}[K`;

class FakeStream implements ProgressStream {
  text = '';
  constructor(
    readonly isTTY: boolean,
    readonly columns = 200,
  ) {}
  write(s: string): boolean {
    this.text += s;
    return true;
  }
}

const counts = (c: Partial<ProgressCounts> = {}): ProgressCounts => ({ done: 0, planned: undefined, failed: 0, errors: 0, requests: 0, ...c });

let shown: LiveProgress | undefined;
afterEach(() => shown?.stop());

/** A progress on a fake stream and clock; `set` changes what its source reports, `at` the clock. */
function fake(isTTY: boolean, columns?: number) {
  let now = 0;
  let current = counts();
  const out = new FakeStream(isTTY, columns);
  const p = new LiveProgress(out, () => now);
  shown = p;
  p.track(() => current);
  return {
    out,
    p,
    step(ms: number, c: Partial<ProgressCounts>) {
      now += ms;
      current = counts(c);
      p.tick();
    },
  };
}

describe('the progress line', () => {
  it('says checks done of planned and the time left (first: 80 columns keep it), failures, requests, the recent rate', () => {
    const line = renderProgress(counts({ done: 412, planned: 1454, failed: 2, requests: 1873, pacing: { rate: 20, inFlight: 8, heldBack: true, paused: false } }), 19.84, 65_000);
    expect(line).toBe('1m 05s: 412/1454 checks (28%, ~2m 44s left), 2 failed, 1873 requests, 19.8 req/s (paced at 20/s, 8 in flight: holding back)');
    expect(`  ${line}`.slice(0, 79)).toContain('left)');
    // Before the planner has counted: no total and no estimate; errors are named when there are any.
    expect(renderProgress(counts({ done: 3, errors: 1, requests: 9 }), undefined, 2_000)).toBe('2s: 3 checks, 0 failed, 1 error, 9 requests');
  });

  it('without a terminal: a plain line every few seconds, the rate over the last seconds only', () => {
    const { out, step } = fake(false);
    step(1_000, { done: 1, planned: 100, requests: 100 });
    expect(out.text).toBe('');
    for (let s = 2; s <= 5; s++) step(1_000, { done: s * 10, planned: 100, requests: 100 + (s - 1) * 20 });
    expect(out.text.split('\n').filter(Boolean)).toEqual(['progress 5s: 50/100 checks (50%, ~5s left), 0 failed, 180 requests, 36.0 req/s']);
    // The first second's burst no longer counts: 20 requests over the last 5 s is 4 per second.
    for (let s = 6; s <= 10; s++) step(1_000, { done: 50 + s, planned: 100, requests: 180 + (s - 5) * 4 });
    // The estimate is smoothed: after the pace fell tenfold the raw 7s (40 checks at 6 a second) is approached, not jumped to.
    expect(out.text.split('\n').filter(Boolean)[1]).toMatch(/^progress 10s: 60\/100 checks \(60%, ~[3-5]s left\), 0 failed, 200 requests, 4\.0 req\/s$/);
    expect(out.text).not.toContain(ESC);
  });

  it('the time left is smoothed: a pace that halves for a moment moves it a little, not to double', () => {
    const { out, step } = fake(false);
    // 10 checks a second for 30 s: 70 s left of 1000.
    for (let s = 1; s <= 30; s++) step(1_000, { done: s * 10, planned: 1000 });
    const before = Number(/~1m (\d+)s left/.exec(out.text.split('\n').filter(Boolean).at(-1)!)![1]);
    // Five slow seconds: the raw estimate rises (305 done in 35 s reads 1m 20s left), the shown one less.
    for (let s = 31; s <= 35; s++) step(1_000, { done: 300 + (s - 30), planned: 1000 });
    const after = /~(\d+)m (\d+)s left/.exec(out.text.split('\n').filter(Boolean).at(-1)!)!;
    const afterS = Number(after[1]) * 60 + Number(after[2]);
    expect(afterS).toBeGreaterThanOrEqual(60 + before - 5);
    // Unsmoothed it would read 1m 20s.
    expect(afterS).toBeLessThan(60 + before + 8);
    expect(out.text).not.toContain(ESC);
  });

  it('in a terminal: one line redrawn in place, other lines printed above it, gone when stopped', () => {
    const { out, p, step } = fake(true, 40);
    step(2_000, { done: 5, planned: 50, requests: 10 });
    // Cut to the terminal's width less one: a line that wraps could not be redrawn in place.
    expect(out.text.endsWith(`${ERASE}  2s: 5/50 checks (10%), 0 failed, 10 r`)).toBe(true);
    out.text = '';
    p.line('  ok  accounts   100 checks');
    expect(out.text).toMatch(new RegExp(`^${escape(ERASE)}  ok  accounts   100 checks\\n${escape(ERASE)}  2s: 5/50`));
    out.text = '';
    p.stop();
    expect(out.text).toBe(ERASE);
    p.line('verdict: CONFORMANT');
    expect(out.text).toBe(`${ERASE}verdict: CONFORMANT\n`);
  });
});

describe('a check that holds its worker', () => {
  it('is named on the line past a few seconds, with its operation where its id does not say it', () => {
    const longest = { check: 'FSAPI-SCHEMA-001 createTransfer', operation: 'createTransfer', worker: '2', forMs: 12_000 };
    expect(renderProgress(counts({ done: 3, requests: 9, longest }), 0, 20_000)).toBe('20s: 3 checks, 0 failed, 9 requests, 0.0 req/s; worker 2 on FSAPI-SCHEMA-001 createTransfer for 12s');
    expect(renderProgress(counts({ done: 3, requests: 9, longest: { ...longest, check: 'FSAPI-FLOW-002 payout', operation: 'createPayout' } }), 0, 20_000)).toMatch(/; worker 2 on FSAPI-FLOW-002 payout \(operation createPayout\) for 12s$/);
    // A check a second or two long is the run's ordinary pace: not named.
    expect(renderProgress(counts({ done: 3, requests: 9, longest: { ...longest, forMs: LONG_CHECK_MS - 1 } }), 0, 20_000)).not.toContain('worker');
  });

  it('is heard of from a worker that spins right after it started it, and no longer once it ended', async () => {
    let now = 0;
    const heard = listenForCheckActivity('run-spin', () => now);
    // A thread that starts a check and never yields again, as a generator without a bound did (issue 34).
    const reporter = new URL('../dist/src/harness/checks-in-progress.js', import.meta.url).href;
    const worker = new Worker(`import(${JSON.stringify(reporter)}).then((m) => { const a = m.checkActivityReporter('run-spin', () => 0); a.started('FSAPI-A-001 done', 'x'); a.ended('FSAPI-A-001 done'); a.started('FSAPI-B-002 getThing', 'getThing'); require('node:worker_threads').parentPort.postMessage('spinning'); for (;;); });`, { eval: true });
    try {
      await new Promise((resolve) => worker.once('message', resolve));
      // The main thread hears of the worker's table as its loop turns: wait for the start, not for a time. (The
      // worker's clock reads 0 when it starts a check, the main thread's the time set here.)
      while (heard.longest()?.check !== 'FSAPI-B-002 getThing') await new Promise((resolve) => setImmediate(resolve));
      now = 12_000;
      expect(heard.longest()).toEqual({ check: 'FSAPI-B-002 getThing', operation: 'getThing', worker: expect.any(String), forMs: 12_000 });
      // Asked on an interrupt, it does not answer: it is the one to stop at once.
      expect(await heard.unresponsive(200)).toEqual([heard.longest()!.worker]);
    } finally {
      await worker.terminate();
      heard.close();
    }
  });

  it('past its limit and the grace, with the worker stuck: overdue, naming the check it last started and the others in flight', async () => {
    let now = 0;
    const heard = listenForCheckActivity('run-overdue', () => now);
    const reporter = new URL('../dist/src/harness/checks-in-progress.js', import.meta.url).href;
    // Two checks in flight with a 1 s limit; the thread then blocks (its event loop never turns again).
    const worker = new Worker(`import(${JSON.stringify(reporter)}).then((m) => { const a = m.checkActivityReporter('run-overdue', () => 0); a.started('FSAPI-A-001 first', 'x', 1000); a.started('FSAPI-B-002 second', 'y', 1000); require('node:worker_threads').parentPort.postMessage('blocked'); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); });`, { eval: true });
    try {
      await new Promise((resolve) => worker.once('message', resolve));
      // The main thread hears of the worker's table as its loop turns: wait until both starts are seen (any grace will do).
      while (heard.overdue(-Infinity)[0]?.others.length !== 1) await new Promise((resolve) => setImmediate(resolve));
      now = 10_999;
      expect(heard.overdue(10_000)).toEqual([]);
      now = 11_001;
      expect(heard.overdue(10_000)).toEqual([{ worker: expect.any(String), limitMs: 1000, forMs: 11_001, lastStarted: 'FSAPI-B-002 second', others: ['FSAPI-A-001 first'] }]);
      expect(await heard.unresponsive(200)).toEqual([heard.overdue(10_000)[0]!.worker]);
    } finally {
      await worker.terminate();
      heard.close();
    }
  });

  it('is heard of from a worker that announced its checks before the main thread listened, and a table holds more than a run has in flight', async () => {
    const reporter = new URL('../dist/src/harness/checks-in-progress.js', import.meta.url).href;
    // 300 checks started (more than its table holds: the last are not shown, and nothing throws), 299 ended.
    const worker = new Worker(
      `import(${JSON.stringify(reporter)}).then((m) => { const a = m.checkActivityReporter('run-late'); for (let i = 0; i < 300; i++) a.started('FSAPI-D-' + i, 'op' + i, 5000); for (let i = 1; i < 300; i++) a.ended('FSAPI-D-' + i); const same = m.checkActivityReporter('run-late') === a; setInterval(() => {}, 1000); require('node:worker_threads').parentPort.postMessage(same); });`,
      { eval: true },
    );
    let heard: ReturnType<typeof listenForCheckActivity> | undefined;
    try {
      // A second reporter of the same run in the same thread is the first: one table per worker and run.
      expect(await new Promise((resolve) => worker.once('message', resolve))).toBe(true);
      const listening = (heard = listenForCheckActivity('run-late'));
      // It asks the workers to announce their tables again as it starts listening (bounded: a missed one never comes).
      await expect.poll(() => listening.longest()?.check, { timeout: 10_000, interval: 5 }).toBe('FSAPI-D-0');
      expect(listening.longest()).toMatchObject({ check: 'FSAPI-D-0', operation: 'op0', limitMs: 5000 });
    } finally {
      await worker.terminate();
      heard?.close();
    }
  });

  it('that waits on the network answers when asked, and is not taken for a spinning one', async () => {
    const heard = listenForCheckActivity('run-idle');
    const reporter = new URL('../dist/src/harness/checks-in-progress.js', import.meta.url).href;
    // On a check whose request is out: its event loop turns. The interval keeps the thread alive while it waits.
    const worker = new Worker(`import(${JSON.stringify(reporter)}).then((m) => { m.checkActivityReporter('run-idle').started('FSAPI-C-003 slow', 'slow'); setInterval(() => {}, 1000); require('node:worker_threads').parentPort.postMessage('waiting'); });`, { eval: true });
    try {
      await new Promise((resolve) => worker.once('message', resolve));
      while (heard.longest() === undefined) await new Promise((resolve) => setImmediate(resolve));
      expect(await heard.unresponsive(10_000)).toEqual([]);
    } finally {
      await worker.terminate();
      heard.close();
    }
  });
});

describe('requests sent, while checks are still running', () => {
  it('reach the main thread as each suite\'s latest total, throttled, on a channel of the run', async () => {
    const got: [string, number][] = [];
    let stop = () => {};
    const received = new Promise<void>((resolve) => {
      stop = listenForRequestTotals('run-a', (suite, n) => {
        got.push([suite, n]);
        if (got.length === 2) resolve();
      });
    });
    const otherRun = requestTotalsReporter('run-b');
    otherRun('accounts', 99);
    const sent = requestTotalsReporter('run-a');
    for (const n of [1, 2, 3]) sent('accounts', n);
    sent('cards', 5);
    await received;
    stop();
    // One message per suite with its latest total; nothing from another run's channel.
    expect(got).toEqual([
      ['accounts', 3],
      ['cards', 5],
    ]);
  });
});

const escape = (s: string) => s.replace(/[[\]\\^$.|?*+()]/g, '\\$&');

/**
 * A run in a pseudo-terminal, as a person at a terminal sees it (`script` gives the child a tty). Rate-capped
 * (about 7 s of requests), as remote runs are, so the planner has counted well before the run ends.
 */
function runInTerminal(extra: string[]): { output: string; report: RunReport } {
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-progress-'));
  const command = [process.execPath, BIN, 'run', '--groups', 'accounts', '--seed', '5', '--rate-limit', '40', '--report-dir', dir, ...extra].map((a) => `'${a}'`).join(' ');
  const r = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', COLUMNS: '150' }, timeout: busy(120_000) });
  expect(r.status, r.stdout + r.stderr).toBe(0);
  return { output: r.stdout, report: JSON.parse(readFileSync(join(dir, 'latest', 'conformance.json'), 'utf8')) as RunReport };
}

describe('a run in a terminal', { timeout: busy(150_000) }, () => {
  it('shows the checks done of those planned, keeps the suite lines and the summary whole; --quiet shows none', () => {
    const { output, report } = runInTerminal([]);
    const total = report.counts.by_status.total;
    const drawn = [...output.matchAll(/\x1b\[G\x1b\[K {2}(\d+s: [^\r\n\x1b]*)/g)].map((m) => m[1]!);
    expect(drawn.length).toBeGreaterThan(0);
    // The planner's count is the number of checks the run reports.
    const planned = drawn.map((d) => /\d+\/(\d+) checks/.exec(d)?.[1]).filter(Boolean);
    expect(planned.length).toBeGreaterThan(0);
    expect(new Set(planned)).toEqual(new Set([String(total)]));
    // Every suite line and the closing summary start on a line of their own, with nothing of the status line left.
    const lines = output.replace(/\x1b\[G\x1b\[K {2}\d+s: [^\r\n\x1b]*/g, '').replaceAll(ERASE, '').split(/\r?\n/);
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^ {2}ok {2}accounts +\d+ checks/), 'verdict: CONFORMANT']));
    expect(lines.find((l) => l.startsWith(`${total} checks:`))).toBeDefined();

    const quiet = runInTerminal(['--quiet']);
    expect(quiet.output).not.toContain(`${ESC}[G`);
    expect(quiet.output).toMatch(/^ {2}ok {2}accounts +\d+ checks/m);
    expect(quiet.output).toContain('verdict: CONFORMANT');
  });
});
