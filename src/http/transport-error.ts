import type { RecordedExchange } from '../results/model.js';

export type TransportErrorKind = 'timeout' | 'tls' | 'connect' | 'reset' | 'too-large' | 'aborted' | 'other';

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
