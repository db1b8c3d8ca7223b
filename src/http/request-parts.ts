/**
 * The parts of a request as every layer above the client names them: its values (with where they came from), the
 * options of one call, and the ways a request may be invalid on purpose. Here, below binding, harness and checks,
 * because all of them build requests.
 */

/**
 * Where the values of a request came from. A value the target returned, or a driver built on a real prerequisite,
 * names something that exists; a value from the document's examples or made from its schema may name nothing on the
 * target. Such values ride along with the request parts (a symbol-keyed member, so `{ ...parts, body }` keeps them)
 * until the request is sent, where the one rule on made-up values applies (src/values/made-up.ts).
 */
export const MADE_UP: unique symbol = Symbol('fsapi.made-up');

export interface MadeUpValue {
  in: 'path' | 'query' | 'header' | 'body';
  name: string;
  value: string;
  origin: 'example' | 'generated';
}

export interface Traced {
  [MADE_UP]?: readonly MadeUpValue[];
}

export const madeUpOf = (parts: Traced): readonly MadeUpValue[] => parts[MADE_UP] ?? [];

/** The parts with these made-up values added to what they already carry. */
export function withMadeUp<T extends Traced>(parts: T, values: readonly MadeUpValue[]): T {
  if (values.length === 0) return parts;
  return { ...parts, [MADE_UP]: [...madeUpOf(parts), ...values] };
}

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

export interface CallOptions {
  /** The request is invalid on purpose, in this way (see Probe). */
  probe?: Probe;
  /** Whose credentials: the configured business (default) or the second one. */
  as?: 'primary' | 'second';
  /** Header overrides; undefined removes a default header (e.g. { 'Api-Key': undefined }). */
  headers?: Record<string, string | undefined>;
  /** POST only: a given key, or null to send none. Default: a fresh key. */
  idempotencyKey?: string | null;
  /** Send this text as the body instead of JSON-serialising `parts.body`. */
  rawBody?: string | Buffer;
  query?: Record<string, string | number | boolean | undefined>;
  timeoutMs?: number;
  /** How much of each body the evidence keeps (RequestSpec.evidenceBytes): more for an answer a judge reads. */
  evidenceBytes?: number;
  /**
   * The body is sent as the seed fixes it (POST /customers' flat body and field names), not through the binding's
   * renames and wrappers: what a requirement of the seed's own request holds the target to.
   */
  seedForm?: boolean;
}

/** A request's values; the ones the suite made up from the document carry that (MADE_UP above). */
export interface RequestParts extends Traced {
  pathParams?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}
