/**
 * The run's request pacing, shared by every thread of the run: one SharedArrayBuffer, made by the runner and
 * handed to each worker in its config, holds the cap, the current rate and any Retry-After pause, so a 429 or 503
 * seen by one worker slows every request of the run, not only that worker's.
 *
 * The rate is AIMD: halved on a 429/503 (at most once per round of requests in flight: the answers to requests
 * sent before the last decrease say nothing about the new rate), raised by an eighth every second without one, never
 * above the configured cap. A cap of 0 (unlimited) stays free of pacing until the first 429/503, then starts from
 * half the rate measured at that moment.
 */

/** Slots of the shared state (BigInt64; times in microseconds since the epoch, rates in milli-requests per second). */
const NEXT = 0; // when the next request may start
const PAUSE = 1; // no request starts before this (Retry-After)
const RATE = 2; // current rate; 0 = not paced
const CEILING = 3; // configured cap; 0 = none
const CHANGED = 4; // last rate change (decrease or increase)
const DECREASED = 5; // last decrease
const THROTTLED = 6; // 429/503 answers seen
const WAITED = 7; // union of the pauses, in microseconds
const WIN_START = 8; // the current measuring window
const WIN_COUNT = 9;
const MEASURED = 10; // the rate measured over the last full window
const SLOTS = 11;

/** The slowest the run is paced at: a target that refuses everything is given up on by the retry budgets, not by a crawl. */
const MIN_RATE_MILLI = 1000n;
const SECOND_US = 1_000_000n;

/** Wall-clock microseconds, comparable across threads (each thread's performance.timeOrigin differs). */
function nowUs(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000));
}

const big = (n: bigint, m: bigint) => (n > m ? n : m);

export interface ThrottleFigures {
  /** 429 and 503 answers seen. */
  responses: number;
  /** Wall time during which no request started because of them (overlapping pauses counted once). */
  waited_ms: number;
}

export class RateLimiter {
  private readonly s: BigInt64Array;

  /**
   * @param shared the run's state from RateLimiter.shared(); a number makes a limiter of its own (one client:
   * the preflight, tests) with that cap.
   */
  constructor(
    shared: SharedArrayBuffer | number,
    /** Microseconds since the epoch; the project's tests give a clock of their own. */
    private readonly now: () => bigint = nowUs,
  ) {
    this.s = new BigInt64Array(typeof shared === 'number' ? RateLimiter.shared(shared) : shared);
  }

  /** The state for a run capped at requestsPerSecond (0 = no cap), to share with every thread. */
  static shared(requestsPerSecond: number): SharedArrayBuffer {
    const buf = new SharedArrayBuffer(SLOTS * 8);
    const s = new BigInt64Array(buf);
    const milli = BigInt(Math.round(Math.max(0, requestsPerSecond) * 1000));
    s[RATE] = milli;
    s[CEILING] = milli;
    return buf;
  }

  get figures(): ThrottleFigures {
    return { responses: Number(Atomics.load(this.s, THROTTLED)), waited_ms: Math.round(Number(Atomics.load(this.s, WAITED)) / 1000) };
  }

  /** The current rate in requests per second (0 = not paced). */
  get rate(): number {
    return Number(Atomics.load(this.s, RATE)) / 1000;
  }

  /** Pause time so far, for a budget over the whole run. */
  get waitedMs(): number {
    return Number(Atomics.load(this.s, WAITED)) / 1000;
  }

  /** Resolves when a request may start: after any pause, at the run's pace. Returns the start time to hand to answered(). */
  async acquire(signal?: AbortSignal): Promise<bigint> {
    const s = this.s;
    for (;;) {
      const now = this.now();
      const pause = Atomics.load(s, PAUSE);
      if (pause > now) {
        await delay(Number(pause - now) / 1000, signal);
        continue;
      }
      this.measure(now);
      const rate = Atomics.load(s, RATE);
      if (rate === 0n) return now;
      const interval = (SECOND_US * 1000n) / rate;
      const next = Atomics.load(s, NEXT);
      const at = big(now, next);
      if (Atomics.compareExchange(s, NEXT, next, at + interval) !== next) continue;
      if (at === now) return now;
      await delay(Number(at - now) / 1000, signal);
      // A pause that began while this request waited for its slot holds it too.
      const started = this.now();
      if (Atomics.load(s, PAUSE) <= started) return started;
    }
  }

  /**
   * A 429/503 answer to a request started at `startedAt`: every request of the run waits `waitMs` (Retry-After),
   * and the rate is halved unless an earlier answer already halved it for this round.
   */
  throttled(waitMs: number, startedAt: bigint): void {
    const s = this.s;
    const now = this.now();
    Atomics.add(s, THROTTLED, 1n);
    const until = now + BigInt(Math.round(waitMs * 1000));
    for (;;) {
      const pause = Atomics.load(s, PAUSE);
      if (pause >= until) break;
      if (Atomics.compareExchange(s, PAUSE, pause, until) === pause) {
        Atomics.add(s, WAITED, until - big(pause, now));
        break;
      }
    }
    const decreased = Atomics.load(s, DECREASED);
    if (startedAt < decreased || Atomics.compareExchange(s, DECREASED, decreased, now) !== decreased) return;
    const rate = Atomics.load(s, RATE);
    const measured = this.measuredMilli(now);
    const base = rate === 0n ? measured : measured > 0n && measured < rate ? measured : rate;
    Atomics.store(s, RATE, big(MIN_RATE_MILLI, base / 2n));
    Atomics.store(s, CHANGED, now);
  }

  /** Any other answer: once a second, the rate rises by an eighth (at least 1 request/s), up to the cap. */
  answered(): void {
    const s = this.s;
    const rate = Atomics.load(s, RATE);
    if (rate === 0n) return;
    const now = this.now();
    const changed = Atomics.load(s, CHANGED);
    if (now - changed < SECOND_US || Atomics.load(s, PAUSE) > now) return;
    if (Atomics.compareExchange(s, CHANGED, changed, now) !== changed) return;
    const ceiling = Atomics.load(s, CEILING);
    const raised = rate + big(MIN_RATE_MILLI, rate / 8n);
    Atomics.store(s, RATE, ceiling > 0n && raised > ceiling ? ceiling : raised);
  }

  /** Counts request starts in one-second windows: the rate an unlimited run was going at when it is first throttled. */
  private measure(now: bigint): void {
    const s = this.s;
    Atomics.add(s, WIN_COUNT, 1n);
    const start = Atomics.load(s, WIN_START);
    if (now - start < SECOND_US || Atomics.compareExchange(s, WIN_START, start, now) !== start) return;
    const count = Atomics.exchange(s, WIN_COUNT, 0n);
    Atomics.store(s, MEASURED, (count * 1000n * SECOND_US) / (now - start));
  }

  /** The higher of the last full window's rate and the current one's (counted over a quarter second at least). */
  private measuredMilli(now: bigint): bigint {
    const s = this.s;
    const elapsed = big(now - Atomics.load(s, WIN_START), SECOND_US / 4n);
    return big(Atomics.load(s, MEASURED), (Atomics.load(s, WIN_COUNT) * 1000n * SECOND_US) / elapsed);
  }
}

/** A cancellable pause, for politeness (rate caps, Retry-After); never used to synchronise tests. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
