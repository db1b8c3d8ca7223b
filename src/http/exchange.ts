import type { Redactor } from './redact.js';

/** What kind of transport failure ended an exchange (src/http/transport-error.ts names the same kinds). */
export type TransportErrorKind = 'timeout' | 'tls' | 'connect' | 'reset' | 'too-large' | 'aborted' | 'other';

/**
 * The case of the identical requests a check sends together with one Idempotency-Key (FSAPI-IDEM-003/103): which of
 * them a conforming target answers 409 and which as the success is the timing's (src/regression/drift.ts reads it).
 */
export const PARALLEL_BURST_CASE = 'parallel-burst';

/** One HTTP exchange, redacted at recording time: no configured secret ever reaches this structure. */
export interface RecordedExchange {
  started_at: string;
  duration_ms: number;
  request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    /** Body as text, cut at the evidence cap. */
    body?: string;
    body_truncated?: boolean;
  };
  response?: {
    status: number;
    headers: Record<string, string>;
    body?: string;
    body_truncated?: boolean;
    /** Bytes received (may exceed what was kept). */
    size_bytes: number;
  };
  /**
   * Why the request was sent a second time: its first attempt's connection closed before any byte of an answer (a
   * connection kept alive that the target closed as the request left on it). Only a replayable request (an
   * idempotent method, or one with an Idempotency-Key) is, once. The answer recorded is the second attempt's; the
   * exchange's start and duration run from the first (the time the answer took, both attempts).
   */
  resent_after?: string;
  /** Transport failure: timeout, reset, TLS, size cap... */
  error?: string;
  /**
   * The kind of that failure, as data: a judge tells a refused connection (`connect`, `reset`: the plain-HTTP probe's
   * pass) from one that proves nothing (a timeout), offline as in the run.
   */
  error_kind?: TransportErrorKind;
  /**
   * A request the target sent to the suite's webhook receiver (a delivery), with the receiver's answer: not a
   * request the suite sent, so its URL is the receiver's, not under the base URL.
   */
  received?: true;
  /** The document operation the answer was judged as (observed traffic), when the suite knew it. */
  operation?: string;
  /** What the request broke on purpose (a Probe of request-parts.ts), when it was a probe. */
  probe?: string;
  /**
   * Which of its cases the check sent this request as (a mutation's slug, "truncated-json"...), as data: the check's
   * judge names and judges each answer by it, in the run and offline alike.
   */
  case?: string;
}

/**
 * How much of a body the evidence keeps, in characters (a report stays bounded; `body_truncated` says when a body was
 * cut): a request body (a 2 MiB padding probe needs none of its padding); an answer, 64 KiB, so the answers the
 * observed-traffic checks judge, lists included, are whole for verify; an answer a judge picks by its case, more.
 * An answer marked cut is over its cap and was kept up to it, never less than `responseBody` (src/certify/provenance.ts).
 */
export const EVIDENCE_CAP = { requestBody: 4096, responseBody: 65_536 } as const;

/**
 * The most of a body kept for an answer a judge picks by its case (a list page it reads, a balance): whole, for any
 * page the suite asks for (the reference's default page of 20 items is some 10 KiB), so `verify` judges what the run
 * judged.
 */
export const JUDGED_BODY_BYTES = 262_144;

/** A body as evidence: redacted, cut at `cap` characters. */
export function evidenceBody(text: string, redactor: Redactor, cap: number): { body: string; body_truncated?: boolean } {
  const cut = text.length > cap;
  return { body: redactor.text(cut ? text.slice(0, cap) : text), ...(cut ? { body_truncated: true } : {}) };
}
