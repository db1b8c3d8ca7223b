/**
 * What a deliberately invalid request breaks on purpose. An undocumented 4xx in answer to one is the document's
 * gap (FSAPI-CONTRACT-101, SHOULD), not the target's contract failure: the suite caused it.
 */
export type Probe =
  | 'no-key'
  | 'bad-key'
  | 'no-tenant'
  | 'foreign-tenant'
  | 'foreign-object'
  | 'wrong-media-type'
  | 'malformed-body'
  | 'invalid-body'
  | 'empty-body'
  | 'no-idempotency-key'
  | 'reused-idempotency-key'
  | 'unknown-id'
  | 'oversized-body'
  | 'over-limit'
  // Not sent on purpose: a request naming values the suite made up (src/values/made-up.ts), answered "not found".
  | 'made-up-value';
