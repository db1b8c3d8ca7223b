/**
 * The run's request pacing, shared by every thread of the run: one SharedArrayBuffer, made by the runner and
 * handed to each worker in its config, holds the rate, the requests in flight and any Retry-After pause, so a
 * 429 or 503 seen by one worker slows every request of the run, not only that worker's.
 *
 * Three kinds (src/config/pacing.ts chooses one):
 * - adaptive (a remote target by default): starts at a rate and a number of requests in flight any sandbox takes,
 *   and each step in which one of them held requests back while the answers stayed healthy (no 429/503, latency
 *   steady) raises it: doubled every half second until the first 429/503, then each second by an eighth (the
 *   rate) or by one (in flight); never above the ceilings (FSAPI_ENVIRONMENT=live keeps polite ones).
 * - fixed (an explicit FSAPI_RATE_LIMIT): at most that rate.
 * - none (the embedded sandbox, FSAPI_RATE_LIMIT=0): unpaced until the first 429/503, then from half the rate
 *   measured at that moment.
 * Whatever the kind, a 429/503 halves the rate and the requests in flight (at most once per round of requests in
 * flight: the answers to requests sent before the last decrease say nothing about the new rate), every request of
 * the run waits out its Retry-After, and quiet seconds bring the rate back, never above its cap.
 */

/** How a run is paced: its kind, where it starts and how far it may rise (0: no limit). */
export interface Pacing {
  kind: 'adaptive' | 'fixed' | 'none';
  /** Requests per second to start at (0: unpaced). */
  rate: number;
  /** The most requests per second it may rise to (0: no ceiling). */
  rateCeiling: number;
  /** Requests in flight at once, across the run, to start at (0: no limit). */
  inFlight: number;
  /** The most requests in flight it may rise to (0: no ceiling). */
  inFlightCeiling: number;
}

/** A fixed cap of `requestsPerSecond` (0: unpaced until a 429/503). */
export function capped(requestsPerSecond: number): Pacing {
  return { kind: requestsPerSecond > 0 ? 'fixed' : 'none', rate: requestsPerSecond, rateCeiling: requestsPerSecond, inFlight: 0, inFlightCeiling: 0 };
}

/** Slots of the shared state (BigInt64; times in microseconds since the epoch, rates in milli-requests per second). */
const NEXT = 0; // when the next request may start
const PAUSE = 1; // no request starts before this (Retry-After)
const RATE = 2; // current rate; 0 = not paced
const CEILING = 3; // the rate's ceiling; 0 = none
const CHANGED = 4; // last step (decrease or increase); 0 = none yet
const DECREASED = 5; // last decrease
const THROTTLED = 6; // 429/503 answers seen
const WAITED = 7; // union of the pauses, in microseconds
const WIN_START = 8; // the current measuring window
const WIN_COUNT = 9;
const MEASURED = 10; // the rate measured over the last full window
const ADAPTIVE = 11; // 1: raised only while it holds requests back and the answers are healthy
const SLOW_START = 12; // 1 until the first decrease: increases double
const WINDOW = 13; // requests in flight allowed; 0 = no limit
const WINDOW_CEILING = 14;
const IN_FLIGHT = 15;
const HELD = 16; // last time a request waited for a place in flight
const LAT_SUM = 17; // answers' latency this step, microseconds
const LAT_N = 18;
const LAT_BASE = 19; // the lowest mean latency of a step (with enough answers); 0 = none yet
const STEADY = 20; // 1 when the last step's latency stayed near the base
const STEP_STARTS = 21; // requests started since the last step
const SLOTS = 22;

/** The slowest the run is paced at: a target that refuses everything is given up on by the retry budgets, not by a crawl. */
const MIN_RATE_MILLI = 1000n;
const SECOND_US = 1_000_000n;
/** Until the first 429/503 an adaptive pacing steps every half second (doubling), then every second. */
const SLOW_START_STEP_US = SECOND_US / 2n;
/** Answers a step needs before its mean latency says anything. */
const MIN_LATENCY_SAMPLES = 8n;
/** Latency is steady while a step's mean stays under twice the lowest seen plus this (a loopback sandbox's few ms vary widely). */
const LATENCY_SLACK_US = 100_000n;
/** How long after the last wait for a place in flight the pacing still counts as holding requests back. */
const HELD_RECENTLY_US = 1_000_000n;
/** The rate binds when requests start at three quarters of it or more: demand is at the pacing, not below it. */
const BINDING = { num: 3n, den: 4n };

/** Wall-clock microseconds, comparable across threads (each thread's performance.timeOrigin differs). */
function nowUs(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000));
}

const big = (n: bigint, m: bigint) => (n > m ? n : m);
const atMost = (n: bigint, ceiling: bigint) => (ceiling > 0n && n > ceiling ? ceiling : n);
/** Atomics.waitAsync (ES2024, in Node since 16), typed here: the project's lib is ES2023. */
const waitAsync = (Atomics as unknown as { waitAsync(a: BigInt64Array, i: number, v: bigint, timeoutMs: number): { async: boolean; value: Promise<string> | string } }).waitAsync;

export interface ThrottleFigures {
  /** 429 and 503 answers seen. */
  responses: number;
  /** Wall time during which no request started because of them (overlapping pauses counted once). */
  waited_ms: number;
}

/** The pacing as it stands, for the progress line. */
export interface PacingNow {
  /** Requests per second allowed now (0: unpaced). */
  rate: number;
  /** Requests in flight allowed now (0: no limit). */
  inFlight: number;
  /** The pacing sets the pace: requests start at nearly its rate, or one waited for a place in flight within the last second. */
  heldBack: boolean;
  /** Every request waits out a Retry-After now. */
  paused: boolean;
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

  /** The state of a run paced so (a number: a fixed cap of that many requests per second, 0 = none), to share with every thread. */
  static shared(pacing: Pacing | number): SharedArrayBuffer {
    const p = typeof pacing === 'number' ? capped(pacing) : pacing;
    const buf = new SharedArrayBuffer(SLOTS * 8);
    const s = new BigInt64Array(buf);
    const milli = (n: number) => BigInt(Math.round(Math.max(0, n) * 1000));
    s[RATE] = milli(p.rate);
    s[CEILING] = milli(p.rateCeiling);
    s[ADAPTIVE] = p.kind === 'adaptive' ? 1n : 0n;
    s[SLOW_START] = 1n;
    s[WINDOW] = BigInt(Math.max(0, Math.round(p.inFlight)));
    s[WINDOW_CEILING] = BigInt(Math.max(0, Math.round(p.inFlightCeiling)));
    s[STEADY] = 1n;
    return buf;
  }

  get figures(): ThrottleFigures {
    return { responses: Number(Atomics.load(this.s, THROTTLED)), waited_ms: Math.round(Number(Atomics.load(this.s, WAITED)) / 1000) };
  }

  /** The current rate in requests per second (0 = not paced). */
  get rate(): number {
    return Number(Atomics.load(this.s, RATE)) / 1000;
  }

  /** The pacing now: its rate and requests in flight, and whether it holds requests back. */
  get current(): PacingNow {
    const s = this.s;
    const now = this.now();
    return {
      rate: Number(Atomics.load(s, RATE)) / 1000,
      inFlight: Number(Atomics.load(s, WINDOW)),
      heldBack: now - Atomics.load(s, HELD) < HELD_RECENTLY_US || this.rateBinds(now),
      paused: Atomics.load(s, PAUSE) > now,
    };
  }

  /** Pause time so far, for a budget over the whole run. */
  get waitedMs(): number {
    return Number(Atomics.load(this.s, WAITED)) / 1000;
  }

  /**
   * Resolves when a request may start: after any pause, with a place among the requests in flight, at the run's
   * pace. Returns the start time to hand to answered() or throttled(); release() must follow once the answer is in.
   */
  async acquire(signal?: AbortSignal): Promise<bigint> {
    const s = this.s;
    let placed = false;
    try {
      for (;;) {
        const now = this.now();
        const pause = Atomics.load(s, PAUSE);
        if (pause > now) {
          this.held(now);
          await delay(Number(pause - now) / 1000, signal);
          continue;
        }
        if (!placed) {
          const window = Atomics.load(s, WINDOW);
          const inFlight = Atomics.load(s, IN_FLIGHT);
          if (window > 0n && inFlight >= window) {
            this.held(now);
            await this.placeFreed(inFlight, signal);
            continue;
          }
          if (Atomics.compareExchange(s, IN_FLIGHT, inFlight, inFlight + 1n) !== inFlight) continue;
          placed = true;
        }
        this.measure(now);
        Atomics.add(s, STEP_STARTS, 1n);
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
    } catch (e) {
      if (placed) this.release();
      throw e;
    }
  }

  /** The request acquire() let start has its answer (or failed): its place in flight is free. */
  release(): void {
    Atomics.sub(this.s, IN_FLIGHT, 1n);
    Atomics.notify(this.s, IN_FLIGHT, 1);
  }

  /**
   * A 429/503 answer to a request started at `startedAt`: every request of the run waits `waitMs` (Retry-After),
   * and the rate and the requests in flight are halved unless an earlier answer already halved them for this round.
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
    const window = Atomics.load(s, WINDOW);
    if (window > 0n) Atomics.store(s, WINDOW, big(1n, window / 2n));
    Atomics.store(s, SLOW_START, 0n);
    Atomics.store(s, STEP_STARTS, 0n);
    Atomics.store(s, CHANGED, now);
  }

  /**
   * Any other answer, after `latencyMs`. Once a step (a second; half a second while an adaptive pacing doubles)
   * the pacing may rise: a fixed or unpaced run climbs back by an eighth (at least 1 request/s) towards its cap
   * after a decrease; an adaptive one raises what held requests back in the step past (the rate when requests
   * started at nearly its pace, the requests in flight when one waited for a place), and only while the answers
   * are healthy (no 429/503 since the last step, latency steady).
   */
  answered(latencyMs = 0): void {
    const s = this.s;
    const rate = Atomics.load(s, RATE);
    if (rate === 0n) return;
    const now = this.now();
    Atomics.add(s, LAT_SUM, BigInt(Math.round(latencyMs * 1000)));
    Atomics.add(s, LAT_N, 1n);
    const changed = Atomics.load(s, CHANGED);
    const adaptive = Atomics.load(s, ADAPTIVE) === 1n;
    const doubling = adaptive && Atomics.load(s, SLOW_START) === 1n;
    if (now - changed < (doubling ? SLOW_START_STEP_US : SECOND_US) || Atomics.load(s, PAUSE) > now) return;
    if (Atomics.compareExchange(s, CHANGED, changed, now) !== changed) return;
    // The run's first answer opens the first step: nothing before it was measured.
    if (changed === 0n) return void Atomics.store(s, STEP_STARTS, 0n);
    const steady = this.steadyLatency();
    // Requests started over the step, against its rate: at nearly its pace, the rate held them back.
    const starts = Atomics.exchange(s, STEP_STARTS, 0n);
    const bound = starts * 1000n * SECOND_US * BINDING.den >= rate * (now - changed) * BINDING.num;
    const ceiling = Atomics.load(s, CEILING);
    if (!adaptive) {
      Atomics.store(s, RATE, atMost(rate + big(MIN_RATE_MILLI, rate / 8n), ceiling));
      return;
    }
    if (!steady) return;
    if (bound) Atomics.store(s, RATE, atMost(doubling ? rate * 2n : rate + big(MIN_RATE_MILLI, rate / 8n), ceiling));
    const window = Atomics.load(s, WINDOW);
    if (window > 0n && Atomics.load(s, HELD) >= changed) Atomics.store(s, WINDOW, atMost(doubling ? window * 2n : window + 1n, Atomics.load(s, WINDOW_CEILING)));
  }

  /** Requests start at (nearly) the rate: it, not the run's demand, sets the pace. */
  private rateBinds(now: bigint): boolean {
    const rate = Atomics.load(this.s, RATE);
    return rate > 0n && this.measuredMilli(now) * BINDING.den >= rate * BINDING.num;
  }

  /** The step's mean latency against the lowest seen: steady unless it more than doubled (and by more than the slack). */
  private steadyLatency(): boolean {
    const s = this.s;
    const n = Atomics.exchange(s, LAT_N, 0n);
    const sum = Atomics.exchange(s, LAT_SUM, 0n);
    if (n < MIN_LATENCY_SAMPLES) return Atomics.load(s, STEADY) === 1n;
    const mean = sum / n;
    const base = Atomics.load(s, LAT_BASE);
    if (base === 0n || mean < base) Atomics.store(s, LAT_BASE, mean);
    const steady = base === 0n || mean <= 2n * base + LATENCY_SLACK_US;
    Atomics.store(s, STEADY, steady ? 1n : 0n);
    return steady;
  }

  private held(now: bigint): void {
    if (Atomics.load(this.s, HELD) < now) Atomics.store(this.s, HELD, now);
  }

  /** Waits until the requests in flight are no longer `inFlight` (one ended), checking the signal now and then. */
  private async placeFreed(inFlight: bigint, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason as Error;
    const w = waitAsync(this.s, IN_FLIGHT, inFlight, 250);
    if (w.async) await w.value;
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
