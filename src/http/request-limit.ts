import { EventEmitter } from 'node:events';
import { setIoDeadline, type IoDeadline } from './io-deadline.js';

/**
 * A request's time limit (setIoDeadline: counted in this thread's attention, judged only after this process has read
 * what arrived for the request), in the form undici takes as a request's `signal`: an EventEmitter, one of the two
 * kinds it accepts. An AbortController per request, with its EventTarget listeners, cost about 10 us of CPU a request
 * more.
 */
export class RequestLimit extends EventEmitter {
  aborted = false;
  reason: Error | undefined;
  private readonly deadline: IoDeadline;

  constructor(
    readonly ms: number,
    expired: (limit: RequestLimit) => Error,
  ) {
    super();
    this.deadline = setIoDeadline(() => {
      this.aborted = true;
      this.reason = expired(this);
      this.emit('abort');
    }, ms);
  }

  /** The time given back for this thread's stalls while the request was in flight (at most the limit). */
  get givenBackMs(): number {
    return this.deadline.givenBackMs;
  }

  /** How long after the limit (and what was given back) the request was judged: the time this process could not look sooner. */
  get lateMs(): number {
    return this.deadline.lateMs;
  }

  /** The request is answered, or failed otherwise: the limit no longer applies. */
  end(): void {
    this.deadline.clear();
  }
}

/** The error a request ends with when its limit fell due (its name is what the client's classification reads). */
export class RequestTimedOut extends Error {
  override readonly name = 'TimeoutError';
}
