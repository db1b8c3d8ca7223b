/**
 * The exploration's requests, derived (Derive, don't trust): an exploration sends the variants of the valid request
 * it started from in an order fixed by the run's seed and label, up to its budget, whatever the target answers
 * (src/explore). So the requests each exploring check sent are derived here from the package (the valid request in
 * its evidence, the recorded seed and run id, the budget derived from the plan) and each must be in the check's
 * evidence, in order. A package that leaves out an explored exchange (a 500 it would rather not show) differs.
 */
import { isDeepStrictEqual } from 'node:util';
import { runLabel } from '../../fixtures/factories.js';
import type { Catalogue } from '../binding/catalogue-in-use.js';
import { plannedExploredRequests } from '../checks/explore.js';
import { recordedParts } from '../checks/recorded-effects.js';
import { MAX_EXCHANGES } from '../harness/check.js';
import { EVIDENCE_CAP } from '../http/exchange.js';
import type { RequestParts } from '../http/request-parts.js';
import { EXPLORE_VARIANT } from '../results/exploration.js';
import type { RecordedExchange, RunReport } from '../results/model.js';
import { loadGenerator } from '../values/generate.js';
import { differs } from './difference.js';
import { VERIFY_EXIT } from './exit-codes.js';
import { REPORT_FILE } from './layout.js';

/** A request's query and body as the client sends them: query values as strings, absent ones left out. */
function sent(parts: RequestParts): { query: Record<string, string>; body: unknown } {
  const query = Object.fromEntries(Object.entries(parts.query ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));
  return { query, body: parts.body };
}

function readParts(op: Parameters<typeof recordedParts>[0], x: RecordedExchange): RequestParts | undefined {
  try {
    return recordedParts(op, x);
  } catch {
    return undefined;
  }
}

/** Whether a request body marked cut kept what a cut one keeps (EVIDENCE_CAP.requestBody): anything shorter was cut by hand. */
const honestlyCut = (x: RecordedExchange): boolean => x.request.body_truncated !== true || (x.request.body?.length ?? 0) >= EVIDENCE_CAP.requestBody;

/**
 * Whether a recorded request is `want`: the same query, and the same body, or for a body the evidence cut, the
 * start of the body's JSON as the client sent it.
 */
function isRequest(op: Parameters<typeof recordedParts>[0], x: RecordedExchange, want: ReturnType<typeof sent>): boolean {
  const got = readParts(op, x);
  if (!got) return false;
  const had = sent(got);
  if (x.request.body_truncated !== true) return isDeepStrictEqual(had, want);
  return isDeepStrictEqual(had.query, want.query) && want.body !== undefined && JSON.stringify(want.body).startsWith(x.request.body ?? '');
}

/**
 * Every exploring check that reached a verdict holds, in its evidence and in order, the requests its exploration
 * sends. Not derived: an operation bound through a translating binding (its query names are the vendor's), a check
 * whose evidence was cut at the most a check keeps (MAX_EXCHANGES; fewer kept with some not kept cannot be a run's),
 * and one whose valid request's body is over the evidence cap; an explored body the evidence cut is matched by the
 * start it kept.
 */
export async function checkExploredRequests(report: RunReport, catalogue: Catalogue, perOperation: number): Promise<void> {
  const exploring = report.checks.filter((c) => c.id.endsWith(` ${EXPLORE_VARIANT}`) && (c.status === 'passed' || c.status === 'failed' || c.status === 'warning'));
  if (!exploring.length) return;
  await loadGenerator();
  const label = runLabel(report.run.id);
  for (const c of exploring) {
    const op = catalogue.spec.operations.find((o) => o.operationId === c.operation);
    // Through a binding that translates (the vendor's query names), the requests sent are not the variants as made.
    const bound = op && catalogue.binding.referenceOf(op);
    if (!op || (bound && !bound.identity)) continue;
    if ((c.exchanges_not_kept ?? 0) > 0) {
      if (c.exchanges.length < MAX_EXCHANGES) differs(VERIFY_EXIT.rejudged, `${REPORT_FILE}: check ${c.id} says ${c.exchanges_not_kept} exchanges were not kept, but it keeps ${c.exchanges.length}: a check drops exchanges only past ${MAX_EXCHANGES}`);
      continue;
    }
    const mine = c.exchanges.filter((x) => x.operation === op.operationId);
    const cutByHand = mine.find((x) => !honestlyCut(x));
    if (cutByHand) differs(VERIFY_EXIT.rejudged, `${REPORT_FILE}: check ${c.id}: a request body is marked cut at ${cutByHand.request.body?.length ?? 0} characters, but a cut one keeps ${EVIDENCE_CAP.requestBody}`);
    const start = mine.findIndex((x) => x.case === undefined);
    // A valid request whose body the evidence cut cannot be varied again: not derived (its body is over the cap).
    if (start !== -1 && mine[start]!.request.body_truncated === true) continue;
    const base = start === -1 ? undefined : readParts(op, mine[start]!);
    if (!base) return differs(VERIFY_EXIT.rejudged, `${REPORT_FILE}: check ${c.id} holds no readable valid request of ${op.operationId} for its exploration to start from`);
    const planned = plannedExploredRequests(catalogue.spec, op, base, report.run.seed, label, perOperation);
    let at = start + 1;
    for (const [i, parts] of planned.entries()) {
      const want = sent(parts);
      // The next exchange of the operation that sent it: retries of one request, and refusals, are passed over.
      let found = false;
      while (!found && at < mine.length) found = isRequest(op, mine[at++]!, want);
      if (!found) {
        differs(VERIFY_EXIT.rejudged, `${REPORT_FILE}: check ${c.id}: explored request ${i + 1} of ${planned.length} (${JSON.stringify(want).slice(0, 160)}) is not in its evidence, though the run's seed and its valid request make the exploration send it: an exchange left out hides its answer`);
      }
    }
  }
}
