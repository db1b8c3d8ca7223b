/**
 * A time limit on waiting for I/O, counted in this thread's attention and judged only after the event loop has read
 * what was waiting.
 *
 * Attention: the time this thread's event loop was stalled since the limit was set (StallWatch: a worker compiling
 * a large validator for seconds, a main thread writing reports, a runner starved of CPU) is given back when the limit
 * falls due, up to the limit again. Meanwhile the thread could not connect, finish a TLS handshake, send, answer or
 * read, so the other side was not given its time. Stalls shorter than MIN_GIVEN_BACK_MS are not given back.
 *
 * Reading: a timer runs in the event loop's timers phase, before the poll phase reads the sockets, so what arrived
 * during a stall would be unread when a limit that fell due meanwhile is judged. A limit that falls due waits two
 * more turns of the loop (setImmediate runs after the poll phase): the first accepts a connection that came in
 * meanwhile, the second reads what it carries (an answer on a connection already open is read in the first). Then
 * `expire` runs; `clear` cancels it at any stage.
 */
import { StallWatch } from './loop-stall.js';

const MIN_GIVEN_BACK_MS = 100;

export interface IoDeadline {
  clear(): void;
  /** The time given back for this thread's stalls (at most the limit). */
  readonly givenBackMs: number;
  /** How long after the limit (and what was given back) `expire` ran: the time this thread could not look sooner. */
  readonly lateMs: number;
}

export function setIoDeadline(expire: () => void, ms: number): IoDeadline {
  const stalls = new StallWatch();
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let due = 0;
  const deadline = { givenBackMs: 0, lateMs: 0, clear };
  function arm(wait: number): void {
    due = performance.now() + wait;
    timer = setTimeout(() => (immediate = setImmediate(() => (immediate = setImmediate(judge)))), wait);
  }
  function judge(): void {
    immediate = undefined;
    const owed = Math.min(stalls.ms, ms) - deadline.givenBackMs;
    if (owed >= MIN_GIVEN_BACK_MS) {
      deadline.givenBackMs += owed;
      return arm(owed);
    }
    stalls.end();
    deadline.lateMs = Math.max(0, Math.round(performance.now() - due));
    expire();
  }
  function clear(): void {
    clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
    stalls.end();
  }
  arm(ms);
  return deadline;
}
