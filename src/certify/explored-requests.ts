/**
 * The exploration's requests, derived (Derive, don't trust): an exploration sends the variants of the valid request
 * it started from in an order fixed by the run's seed and label, up to its budget, whatever the target answers
 * (src/explore). So the requests each exploring check sent are derived here from the package (the valid request in
 * its evidence, the recorded seed and run id, the budget derived from the plan) and each must be in the check's
 * evidence, in order. A package that leaves out an explored exchange (a 500 it would rather not show) differs.
 */
import { isDeepStrictEqual } from 'node:util';
import { LABEL_EMAIL_DOMAIN } from '../../fixtures/factories.js';
import type { Catalogue } from '../binding/catalogue-in-use.js';
import { plannedExploredRequests } from '../checks/explore.js';
import { recordedParts } from '../checks/recorded-effects.js';
import { MAX_EXCHANGES } from '../harness/check.js';
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

/**
 * Every exploring check that reached a verdict holds, in its evidence and in order, the requests its exploration
 * sends. Not derived: an operation bound through a translating binding (its query names are the vendor's), and a check whose evidence was cut at the
 * most a check keeps (MAX_EXCHANGES; fewer kept with some not kept cannot be a run's).
 */
export async function checkExploredRequests(report: RunReport, catalogue: Catalogue, perOperation: number): Promise<void> {
  const exploring = report.checks.filter((c) => c.id.endsWith(` ${EXPLORE_VARIANT}`) && (c.status === 'passed' || c.status === 'failed' || c.status === 'warning'));
  if (!exploring.length) return;
  await loadGenerator();
  const label = { emailDomain: LABEL_EMAIL_DOMAIN, metadataKey: 'fsapi_run', metadataValue: report.run.id };
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
    const start = mine.findIndex((x) => x.case === undefined);
    const base = start === -1 ? undefined : readParts(op, mine[start]!);
    if (!base) return differs(VERIFY_EXIT.rejudged, `${REPORT_FILE}: check ${c.id} holds no readable valid request of ${op.operationId} for its exploration to start from`);
    const planned = plannedExploredRequests(catalogue.spec, op, base, report.run.seed, label, perOperation);
    let at = start + 1;
    for (const [i, parts] of planned.entries()) {
      const want = sent(parts);
      // The next exchange of the operation that sent it: retries of one request, and refusals, are passed over.
      let found = false;
      while (!found && at < mine.length) {
        const got = readParts(op, mine[at++]!);
        found = got !== undefined && isDeepStrictEqual(sent(got), want);
      }
      if (!found) {
        differs(VERIFY_EXIT.rejudged, `${REPORT_FILE}: check ${c.id}: explored request ${i + 1} of ${planned.length} (${JSON.stringify(want).slice(0, 160)}) is not in its evidence, though the run's seed and its valid request make the exploration send it: an exchange left out hides its answer`);
      }
    }
  }
}
