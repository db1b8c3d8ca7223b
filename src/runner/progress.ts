import ansiEscapes from 'ansi-escapes';
import type { PacingNow } from '../http/rate-limiter.js';
import type { LongestCheck } from '../harness/checks-in-progress.js';

/** What the run has done so far, read on every tick. */
export interface ProgressCounts {
  done: number;
  /** Checks the run registers in all; undefined until the planner has counted them. */
  planned: number | undefined;
  failed: number;
  errors: number;
  requests: number;
  /** The exploration phase's requests so far, and the check time it took (src/results/exploration.ts). */
  explored?: { requests: number; ms: number };
  /** The run's pacing now, when it paces (src/http/rate-limiter.ts). */
  pacing?: PacingNow;
  /** The check that has held a worker longest now (src/harness/checks-in-progress.ts). */
  longest?: LongestCheck;
}

/** Where progress is written: a terminal (isTTY, columns) gets one updating line; anything else, plain lines. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** A terminal's status line is redrawn this often. */
export const TTY_TICK_MS = 250;
/** Without a terminal (a CI log), a plain progress line this often. */
export const LOG_EVERY_MS = 5_000;
/** A check that has held its worker this long is named on the line, with its operation and how long. */
export const LONG_CHECK_MS = 5_000;
/** The request rate shown is over this last stretch of the run. */
export const RATE_WINDOW_MS = 5_000;
/**
 * The time left shown follows the pace so far with this time constant, counting down between ticks: the raw figure
 * swings while suites of different speeds start and end (2m31s to 4m32s and back on a remote run); smoothed, a
 * change of pace moves it over some seconds.
 */
export const ESTIMATE_SMOOTHING_MS = 3_000;

/**
 * Live progress of a run: in a terminal, one status line redrawn in place (the lines the run prints go above
 * it); without one, a plain line every few seconds. Every other line of the run goes through `line`, so a
 * status line is never left half-overwritten.
 */
export class LiveProgress {
  private source: (() => ProgressCounts) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private lastLogAt = 0;
  private shown = false;
  /** (time, requests sent) samples over the last RATE_WINDOW_MS and a little more, oldest first. */
  private samples: { at: number; requests: number }[] = [];
  /** The smoothed time left, and when it was last updated. */
  private left: { ms: number; at: number } | undefined;

  constructor(
    private readonly out: ProgressStream,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Starts showing progress from `source`. */
  track(source: () => ProgressCounts): void {
    this.source = source;
    this.startedAt = this.lastLogAt = this.now();
    this.samples = [{ at: this.startedAt, requests: source().requests }];
    this.left = undefined;
    if (this.out.isTTY) this.draw();
    this.timer = setInterval(() => this.tick(), this.out.isTTY ? TTY_TICK_MS : 1_000);
    // Progress alone never keeps the process alive.
    this.timer.unref();
  }

  /**
   * Writes one line of the run's own output (a suite's line, a log line) above the status line: on the progress
   * stream, or on `to` (the results' stream, stdout, which shares the terminal with it).
   */
  line(text: string, to: ProgressStream = this.out): void {
    this.erase();
    to.write(`${text}\n`);
    if (this.source && this.out.isTTY) this.draw();
  }

  /** Stops and removes the status line: what follows (the closing summary) is printed on a clean screen. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.erase();
    this.source = undefined;
  }

  /** One tick: sample the request count, then redraw (terminal) or print when it is time (log). */
  tick(): void {
    if (!this.source) return;
    const at = this.now();
    const counts = this.source();
    this.samples.push({ at, requests: counts.requests });
    while (this.samples.length > 2 && this.samples[1]!.at <= at - RATE_WINDOW_MS) this.samples.shift();
    // Smoothed on every tick, whether or not this one prints.
    const left = this.timeLeft(counts, at);
    if (this.out.isTTY) return this.draw(counts);
    if (at - this.lastLogAt >= LOG_EVERY_MS) {
      this.lastLogAt = at;
      this.out.write(`progress ${renderProgress(counts, this.rate(), at - this.startedAt, left)}\n`);
    }
  }

  /** Requests per second over the last RATE_WINDOW_MS (undefined before a second has passed). */
  private rate(): number | undefined {
    const first = this.samples[0]!;
    const last = this.samples[this.samples.length - 1]!;
    const span = last.at - first.at;
    return span >= 1_000 ? ((last.requests - first.requests) * 1000) / span : undefined;
  }

  /** The time left at the pace so far, smoothed (ESTIMATE_SMOOTHING_MS); undefined until there is a pace. */
  private timeLeft(counts: ProgressCounts, at: number): number | undefined {
    const raw = rawTimeLeft(counts, at - this.startedAt);
    if (raw === undefined) return (this.left = undefined);
    if (!this.left) this.left = { ms: raw, at };
    else {
      const dt = at - this.left.at;
      const counted = Math.max(0, this.left.ms - dt);
      this.left = { ms: counted + (raw - counted) * (1 - Math.exp(-dt / ESTIMATE_SMOOTHING_MS)), at };
    }
    return this.left.ms;
  }

  private draw(counts = this.source?.()): void {
    if (!counts) return;
    const at = this.now();
    const text = `  ${renderProgress(counts, this.rate(), at - this.startedAt, this.timeLeft(counts, at))}`;
    // Cut to the terminal's width: a line that wraps cannot be redrawn in place.
    const width = Math.max(20, (this.out.columns ?? 80) - 1);
    this.out.write(`${ansiEscapes.cursorLeft}${ansiEscapes.eraseEndLine}${text.slice(0, width)}`);
    this.shown = true;
  }

  private erase(): void {
    if (!this.shown) return;
    this.out.write(`${ansiEscapes.cursorLeft}${ansiEscapes.eraseEndLine}`);
    this.shown = false;
  }
}

/** The time left at the pace so far, once there is a pace to go by (3 s into the checks). */
function rawTimeLeft(c: ProgressCounts, elapsedMs: number): number | undefined {
  return c.planned !== undefined && c.done > 0 && c.done < c.planned && elapsedMs >= 3_000 ? ((c.planned - c.done) * elapsedMs) / c.done : undefined;
}

/**
 * "1m 05s: 412/1454 checks (28%, ~2m 41s left), 2 failed, 1873 requests, 19.8 req/s (paced at 20/s, 8 in flight:
 * holding back)". The time left comes early, so an 80-column terminal, which cuts the line, still shows it.
 */
export function renderProgress(c: ProgressCounts, rate: number | undefined, elapsedMs: number, leftMs = rawTimeLeft(c, elapsedMs)): string {
  const left = leftMs !== undefined ? `, ~${duration(leftMs)} left` : '';
  const parts = [c.planned !== undefined ? `${c.done}/${c.planned} checks (${c.planned ? Math.floor((100 * c.done) / c.planned) : 100}%${left})` : `${c.done} checks`];
  parts.push(`${c.failed} failed`);
  if (c.errors) parts.push(`${c.errors} error${c.errors === 1 ? '' : 's'}`);
  parts.push(`${c.requests} requests`);
  if (c.explored) parts.push(`explored ${c.explored.requests} (${(c.explored.ms / 1000).toFixed(1)} s of checks)`);
  const pacing = c.pacing && c.pacing.rate > 0 ? ` (${renderPacing(c.pacing)})` : '';
  if (rate !== undefined) parts.push(`${rate.toFixed(1)} req/s${pacing}`);
  else if (pacing) parts.push(pacing.slice(2, -1));
  return `${duration(elapsedMs)}: ${parts.join(', ')}${c.longest && c.longest.forMs >= LONG_CHECK_MS ? `; ${renderLongest(c.longest)}` : ''}`;
}

/** "worker 2 on FSAPI-SCHEMA-001 createTransfer for 12s": the check, its operation where its id does not say it. */
function renderLongest(l: LongestCheck): string {
  const operation = l.operation && !l.check.split(' ').includes(l.operation) ? ` (operation ${l.operation})` : '';
  return `worker ${l.worker} on ${l.check}${operation} for ${duration(l.forMs)}`;
}

/** "paced at 160/s, 32 in flight: holding back": the pacing's rate now, and whether it holds the run back. */
function renderPacing(p: PacingNow): string {
  const state = p.paused ? ': paused by a Retry-After' : p.heldBack ? ': holding back' : '';
  return `paced at ${p.rate >= 10 ? Math.round(p.rate) : p.rate.toFixed(1)}/s${p.inFlight ? `, ${p.inFlight} in flight` : ''}${state}`;
}

/** 42s, 3m 05s. */
export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}
