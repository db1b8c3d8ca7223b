import type { RecordedExchange, TransportErrorKind } from './exchange.js';

export type { TransportErrorKind };

/**
 * The request could not complete. Its message is safe to show: it never carries a secret. A module of its own so
 * that code which only recognises the error (the checks, as the run's main thread plans them) does not load undici.
 */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    readonly kind: TransportErrorKind,
    message: string,
    readonly exchange: RecordedExchange,
  ) {
    super(message);
  }
}

/**
 * The target still answered 429 or 503 when the retries ran out. Such an answer says nothing about the
 * requirement the request was for, so the check that sent it is not judged: it ends as an `error` caused by rate
 * limiting, and the message names the fix.
 */
export class RateLimited extends Error {
  override readonly name = 'RateLimited';
  constructor(
    readonly status: number,
    detail: string,
    readonly exchange: RecordedExchange,
  ) {
    super(`rate limited: ${detail}; the check was not judged. Lower FSAPI_RATE_LIMIT (--rate-limit) below the target's limit (divided by the number of shards run at once), or ask for a higher limit`);
  }
}
