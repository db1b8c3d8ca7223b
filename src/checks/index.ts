import type { SuiteSlug } from '../catalogue/groups.js';
import type { CheckDef } from '../harness/check.js';
import type { CheckFamily, PlanContext } from './plan.js';
import { authFamily } from './auth.js';
import { authWritesFamily } from './auth-writes.js';
import { headersFamily } from './headers.js';
import { httpFamily } from './http.js';
import { idempotencyFamily } from './idempotency.js';
import { inputFamily } from './input.js';
import { lifecycleFamily } from './lifecycle.js';
import { exploreFamily } from './explore.js';
import { observationFamily } from './observations/index.js';
import { validRequestFamily } from './valid-requests.js';
import { tenancyFamily } from './tenancy.js';
import { trafficFamily } from './traffic.js';
import { transportFamily } from './transport.js';
import { versioningFamily } from './versioning.js';

/** The check library, one module per family. Order is the order checks appear in a suite. */
export const FAMILIES: CheckFamily[] = [
  // Cross-cutting suites first (they hold nothing else).
  transportFamily,
  versioningFamily,
  // Valid requests across each operation's input space, within the exploration budget: a long chain of requests
  // one after another, so it starts first and overlaps the suite's other checks instead of lengthening its tail.
  exploreFamily,
  // Who may ask, and with which headers.
  authFamily,
  authWritesFamily,
  headersFamily,
  tenancyFamily,
  // What a valid request gets, and what invalid or repeated ones must not do.
  validRequestFamily,
  idempotencyFamily,
  inputFamily,
  httpFamily,
  lifecycleFamily,
  observationFamily,
  // Judgements over everything observed (run last).
  trafficFamily,
];

/** Generic checks of a suite: each family's checks for each of the group's operations, then suite-level ones. */
export function genericChecks(suite: SuiteSlug, plan: PlanContext): CheckDef[] {
  const ops = plan.spec.operations.filter((o) => o.group === suite);
  const out: CheckDef[] = [];
  for (const f of FAMILIES) {
    if (f.forOperation) for (const op of ops) out.push(...f.forOperation(op, plan));
    if (f.forSuite) out.push(...f.forSuite(suite, plan));
  }
  return out;
}

export type { CheckFamily, PlanContext };
