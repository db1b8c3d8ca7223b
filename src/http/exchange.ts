/**
 * How much of a body the evidence keeps, in characters: a request body (a 2 MiB padding probe needs none of its
 * padding), an answer (64 KiB: the answers judges read, lists included, whole; verify re-judges from them). An answer
 * whose size_bytes is over the cap may have been cut; one under it was not.
 */
export const EVIDENCE_CAP = { requestBody: 4096, responseBody: 65536 } as const;

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
