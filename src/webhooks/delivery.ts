// A webhook delivery as the run's receiver (src/runner/receiver.ts) records it and the checks read it back: one
// shape for both sides, below them.
import { evidenceBody, type RecordedExchange } from '../http/exchange.js';
import type { Redactor } from '../http/redact.js';

/** One delivery attempt as the receiver got it (raw body kept byte for byte, for signature checks). */
export interface ReceivedDelivery {
  seq: number;
  received_at: string;
  /** The request line the target sent: its method and path (with any query) on the receiver. */
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** What the receiver answered. */
  answered: number;
  webhook_id?: string;
  event_type?: string;
  object_id?: string;
}

/** Metadata value that asks the receiver to fail the first attempt of a delivery (to observe retries). */
export const FAIL_FIRST_MARKER = 'fail-first';

/** A delivery body kept whole up to this size in the evidence: an event is a few hundred bytes, and its judge reads it. */
const DELIVERY_BODY_BYTES = 65_536;

/**
 * A delivery as a check's evidence: the request the target sent to the receiver (at the receiver's `origin`),
 * redacted as every exchange is, with the receiver's answer, marked `received`.
 */
export function deliveryExchange(d: ReceivedDelivery, origin: string, redactor: Redactor): RecordedExchange {
  return {
    started_at: d.received_at,
    duration_ms: 0,
    request: { method: d.method, url: redactor.text(new URL(d.path, origin).toString()), headers: redactor.headers(d.headers), ...evidenceBody(d.body, redactor, DELIVERY_BODY_BYTES) },
    response: { status: d.answered, headers: {}, size_bytes: 0 },
    received: true,
  };
}
