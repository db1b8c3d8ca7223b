/**
 * How long this thread's event loop has been kept from turning while a request was in flight: a thread busy for
 * seconds (a worker compiling a large document's validators, a main thread writing reports) or starved of CPU on a
 * shared runner. Meanwhile the request could not connect, finish its TLS handshake, send, or read: that time was
 * this process's, not the target's (setIoDeadline gives it back).
 *
 * Measured by a timer that ticks every TICK_MS while any watch is open: a tick later than that by more than SLACK_MS
 * adds its lateness. What the last tick has not yet seen (a stall that ends as the reader runs) is counted at the
 * reading, so a reading just after a stall already holds it. The timer never keeps a process alive, and stops when
 * the last watch ends.
 */
const TICK_MS = 50;
const SLACK_MS = 20;

let stalled = 0;
let lastTick = 0;
let ticking: NodeJS.Timeout | undefined;
let open = 0;

function tick(): void {
  const now = performance.now();
  stalled += Math.max(0, now - lastTick - TICK_MS - SLACK_MS);
  lastTick = now;
}

function reading(): number {
  return stalled + Math.max(0, performance.now() - lastTick - TICK_MS - SLACK_MS);
}

/** A watch on this thread's stalls from now until `end`: `ms` is how long the loop was stalled meanwhile. */
export class StallWatch {
  private readonly from: number;
  private ended = false;

  constructor() {
    if (open++ === 0) {
      lastTick = performance.now();
      ticking = setInterval(tick, TICK_MS).unref();
    }
    this.from = reading();
  }

  get ms(): number {
    return Math.round(reading() - this.from);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (--open === 0) {
      clearInterval(ticking);
      ticking = undefined;
    }
  }
}
