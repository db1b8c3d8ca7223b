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
}
