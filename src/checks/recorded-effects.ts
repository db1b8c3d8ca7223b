/**
 * Effect counts read again from a check's evidence: the run reads a driver's count around its probe (Scoped.count
 * with a case name), and the judge counts again from the recorded answers of that read, for the request the check
 * recorded, with the driver's own count. The number the run wrote as a fact is never what is judged; where it
 * disagrees with its read, the judge fails naming both.
 */
import type { Binding } from '../binding/binding.js';
import type { Operation } from '../catalogue/openapi.js';
import { DRIVERS } from '../drivers/index.js';
import { EffectsUnobservable, recountEffects } from '../drivers/shared.js';
import { check } from '../harness/assert.js';
import { judgeSkips } from '../harness/judge.js';
import type { HttpResponse } from '../http/client.js';
import type { RecordedExchange } from '../http/exchange.js';
import { pathParamNames } from '../http/path-template.js';
import type { RequestParts } from '../http/request-parts.js';
import { parseBody } from '../http/body.js';
import type { Facts } from '../results/model.js';

/** Reads a recorded request body as the check built it (JSON), or undefined when it cannot. */
export type BodyReader = (text: string, truncated: boolean) => unknown;

const jsonBody: BodyReader = (text, truncated) => (truncated ? undefined : parseBody(text).json);

/**
 * The parts of a recorded request to an operation, in the document's terms: path parameters read back from its URL
 * by the operation's path template, its query, and its body.
 */
export function recordedParts(op: Operation, x: RecordedExchange, body: BodyReader = jsonBody): RequestParts {
  const url = new URL(x.request.url);
  const names = pathParamNames(op.path);
  const pattern = op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '([^/]+)');
  const m = new RegExp(`${pattern}$`).exec(url.pathname);
  if (!m) throw new Error(`the recorded request ${x.request.method} ${url.pathname} does not match ${op.operationId}'s path ${op.path}`);
  const parts: RequestParts = {};
  if (names.length) parts.pathParams = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
  if ([...url.searchParams.keys()].length) parts.query = Object.fromEntries(url.searchParams);
  const b = x.request.body === undefined ? undefined : body(x.request.body, x.request.body_truncated === true);
  if (b !== undefined) parts.body = b;
  return parts;
}

/**
 * The effect count the run read as case `caseName` around the request `sent`, counted again from the recorded answers
 * of that read. A read the run could not make skips as it did there; a fact that disagrees fails.
 */
export function recordedEffects(
  answers: readonly HttpResponse[],
  facts: Facts,
  caseName: string,
  sent: { op: Operation; exchange: RecordedExchange; body?: BodyReader },
  binding: Binding | undefined,
): number {
  const bound = binding?.referenceOf(sent.op);
  const driver = DRIVERS.get(bound?.refId ?? sent.op.operationId);
  if (!driver?.effects) throw new Error(`no driver counts the effects of ${sent.op.operationId}: the recorded ${caseName} cannot be counted again`);
  const vendor = recordedParts(sent.op, sent.exchange, sent.body);
  const parts = bound && !bound.identity && binding ? binding.partsToReference(bound, vendor) : vendor;
  let counted: number;
  try {
    counted = recountEffects(driver.effects(parts), answers.filter((r) => r.exchange.case === caseName));
  } catch (e) {
    if (e instanceof EffectsUnobservable) judgeSkips.skip(`the effects cannot be observed: ${e.message}`, 'binding');
    throw e;
  }
  const fact = facts[caseName];
  if (fact !== undefined) check(fact === counted, `the recorded fact ${caseName} (${JSON.stringify(fact)}) disagrees with the count its recorded read shows (${counted})`);
  return counted;
}
