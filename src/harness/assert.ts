import type { HttpResponse } from '../http/client.js';
import { errorText } from '../http/error-text.js';
import type { SkipCause } from '../results/model.js';

export type { SkipCause };

/** The target broke the check's expectation. Its message must read on its own in a report. */
export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
}

/** The check cannot run here (missing credential, operation not declared...). Not a failure. */
export class CheckSkipped extends Error {
  override readonly name: string = 'CheckSkipped';
  /** What kind of reason: coverage tells "not verified" from "not applicable" by it. */
  readonly skipCause: SkipCause | undefined;
  constructor(message: string, cause?: SkipCause) {
    super(message);
    this.skipCause = cause;
  }
}

/**
 * A prerequisite the target refused to provide (web-platform-tests' "precondition failed"): the check is skipped
 * with the reason, and the defect is judged by the checks of the operation that refused. A clean run has none.
 */
export class PreconditionFailed extends CheckSkipped {
  override readonly name = 'PreconditionFailed';
  constructor(message: string) {
    super(`precondition failed: ${message}`, 'prerequisite');
  }
}

export function fail(message: string): never {
  throw new CheckFailure(message);
}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailure(message);
}

/** "POST /v1/customers" for messages. */
export function describeRequest(res: HttpResponse): string {
  const u = new URL(res.exchange.request.url);
  return `${res.exchange.request.method} ${u.pathname}${u.search}`;
}

/**
 * A server error is never a right answer: not to a valid request, and not to a probe made invalid on purpose
 * (which must be refused, not crash the target). Checks that accept "anything but X" call this first.
 */
export function notServerError(res: HttpResponse, what?: string): void {
  check(res.status < 500, `${describeRequest(res)}${what ? ` ${what}` : ''} answered ${res.status}${summariseBody(res)}: a server error is never a right answer`);
}

/** Expects a status (or one of several, or a class such as 4xx given as a predicate). */
export function expectStatus(res: HttpResponse, expected: number | readonly number[] | ((s: number) => boolean), what = 'status'): void {
  const ok = typeof expected === 'function' ? expected(res.status) : Array.isArray(expected) ? expected.includes(res.status) : res.status === expected;
  if (!ok) {
    const want = typeof expected === 'function' ? describePredicate(expected) : Array.isArray(expected) ? expected.join(' or ') : String(expected);
    fail(`${describeRequest(res)}: expected ${what} ${want}, got ${res.status}${summariseBody(res)}`);
  }
}

const is2xx = (s: number) => s >= 200 && s < 300;
const is4xx = (s: number) => s >= 400 && s < 500;
export const STATUS = { is2xx, is4xx };

function describePredicate(p: (s: number) => boolean): string {
  if (p === is2xx) return '2xx';
  if (p === is4xx) return '4xx';
  return 'matching the requirement';
}

/** A short excerpt of the body for failure messages: the target's own error text, or the first characters. */
export function summariseBody(res: HttpResponse): string {
  if (!res.text) return '';
  const said = errorText(res.json);
  if (said) return ` (${said.length > 300 ? `${said.slice(0, 300)}...` : said})`;
  const t = res.text.replace(/\s+/g, ' ').slice(0, 120);
  return ` (body: ${t}${res.text.length > 120 ? '...' : ''})`;
}

/**
 * An answer's JSON body in the document's own terms: what the target sent, even where `json` is a bound operation's
 * view in the reference's terms. Undefined when the body is not JSON.
 */
export function documentBody(res: Pick<HttpResponse, 'json' | 'text'>): unknown {
  try {
    return JSON.parse(res.text) as unknown;
  } catch {
    return res.json;
  }
}

/**
 * The one reading of a resource's `id`: a non-empty string, or a number (integer ids are common) as its text. Every
 * id the suite compares or sends goes through here, so a target with numeric ids is judged like any other.
 */
export function readId(resource: unknown): string | undefined {
  const id = resource && typeof resource === 'object' ? (resource as { id?: unknown }).id : undefined;
  return (typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id)) ? String(id) : undefined;
}

/** The id of an answer's JSON body, if any (judging what a target answered: none is an answer too). */
export function answeredId(res: Pick<HttpResponse, 'json'>): string | undefined {
  return readId(res.json);
}

/**
 * The id of a resource the suite needs to go on (a prerequisite, a flow's next step). Without one the suite cannot
 * build its next request: that is a gap of the suite's reading, not a finding (the resource's schema is judged by
 * the CONTRACT checks), so the check is skipped with the fix, never sent on to `/customers/undefined`.
 */
export function idOf(resource: Record<string, unknown>): string {
  const id = readId(resource);
  if (id !== undefined) return id;
  const members = Object.keys(resource).slice(0, 6).join(', ');
  throw new CheckSkipped(
    `the suite cannot read the resource's id (an object with ${members || 'no members'}): if the vendor's answer wraps the resource or names its id otherwise, bind it (operations.<id>.envelope, or fields: { id: <name> } in the binding file)`,
    'binding',
  );
}

/**
 * The items of a list answer the suite must read to go on (a flow's evidence, a prerequisite). A 2xx list whose
 * items the suite cannot find is a gap of its reading (the seed fixes no list shape), so the check is skipped with
 * the fix, naming the array member it did find.
 */
export function readableItems(res: HttpResponse, operation: string): Record<string, unknown>[] {
  const items = listItems(res) ?? (Array.isArray(res.json) ? (res.json as Record<string, unknown>[]) : undefined);
  if (items) return items;
  const j = res.json;
  const arrays = j && typeof j === 'object' ? Object.entries(j).filter(([, v]) => Array.isArray(v)).map(([k]) => k) : [];
  throw new CheckSkipped(
    `${describeRequest(res)} answered ${res.status} with no \`data\` array the suite can read${arrays.length ? ` (array member${arrays.length > 1 ? 's' : ''}: ${arrays.join(', ')})` : ''}: bind the list's shape (operations.${operation}.list in the binding file; \`fsapi-conformance bind\` proposes one)`,
    'binding',
  );
}

/** The `data` array of a list body, if any. */
export function listItems(res: HttpResponse): Record<string, unknown>[] | undefined {
  const j = res.json as { data?: unknown } | undefined;
  return j && typeof j === 'object' && Array.isArray(j.data) ? (j.data as Record<string, unknown>[]) : undefined;
}
