import type { SuiteSlug } from '../catalogue/groups.js';
import type { CheckDef } from '../harness/check.js';
import type { CheckFamily, PlanContext } from './plan.js';
import { authFamily } from './auth.js';
import { trafficFamily } from './traffic.js';

/** The check library, one module per family. Order is the order checks appear in a suite. */
export const FAMILIES: CheckFamily[] = [authFamily, trafficFamily];

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
