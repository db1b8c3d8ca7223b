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
  /** Transport failure: timeout, reset, TLS, size cap... */
  error?: string;
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
