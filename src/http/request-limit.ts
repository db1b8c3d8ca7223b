import { EventEmitter } from 'node:events';

/**
 * A request's time limit, judged only after this process has read what was waiting for the request.
 *
 * A timer runs in the event loop's timers phase, before the poll phase reads the sockets. A process that was busy past
 * a request's deadline (a worker compiling a large validator for seconds, a starved CI runner) would otherwise end a
 * request whose answer had arrived during the stall, and report the target as not answering: the suite's slowness
 * judged as the target's. So a limit that falls due waits one more turn of the loop (setImmediate runs after the poll
 * phase), and ends the request only if it is still unanswered then.
 *
 * undici takes it as the request's `signal` (an EventEmitter is one of the two kinds it accepts): an AbortController
 * per request, with its EventTarget listeners, cost about 10 us of CPU a request more.
 */
export class RequestLimit extends EventEmitter {
  aborted = false;
  reason: Error | undefined;
  /** How long after the limit the request was judged: the time this process could not look sooner. */
  lateMs = 0;
  private settled = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly ms: number,
    private readonly expired: (limit: RequestLimit) => Error,
  ) {
    super();
    const due = performance.now() + ms;
    this.timer = setTimeout(() => setImmediate(() => this.judge(due)), ms);
  }

  /** The request is answered, or failed otherwise: the limit no longer applies. */
  end(): void {
    this.settled = true;
    clearTimeout(this.timer);
  }

  private judge(due: number): void {
    if (this.settled) return;
    this.settled = true;
    this.lateMs = Math.max(0, Math.round(performance.now() - due));
    this.aborted = true;
    this.reason = this.expired(this);
    this.emit('abort');
  }
}

/** The error a request ends with when its limit fell due (its name is what the client's classification reads). */
export class RequestTimedOut extends Error {
  override readonly name = 'TimeoutError';
}
