/**
 * Observations on the seed's gaps (FSAPI-GAP-001..016, INFO): where the seed says "not shown", these checks
 * make the requests that show what the target chose and record it in one sentence for the gap report.
 * They never fail: only a transport problem (or a prerequisite that cannot be built) makes one error.
 */
import type { SuiteSlug } from '../../catalogue/groups.js';
import { isGroupSlug } from '../../catalogue/groups.js';
import type { CheckDef } from '../../harness/check.js';
import type { CheckFamily } from '../plan.js';
import { isSetupProblem, seedOp, type Obs } from './shared.js';
import { customerObservations } from './customers.js';
import { accountObservations } from './accounts.js';
import { webhookObservations } from './webhooks.js';
import { groupObservations, versionObservation } from './api.js';

/** Observations never fail, and a prerequisite that cannot be built is itself what they record. */
const asChecks = (group: SuiteSlug, obs: Obs[]): CheckDef[] =>
  obs.map((o) => ({
    ...o,
    family: 'observation' as const,
    group,
    async run(ctx) {
      try {
        await o.run(ctx);
      } catch (e) {
        if (!isSetupProblem(e)) throw e;
        ctx.observe(`not observed: a prerequisite could not be built (${(e as Error).message})`);
      }
    },
  }));

export const observationFamily: CheckFamily = {
  name: 'gap observations',
  forSuite(suite, plan) {
    const { spec } = plan;
    const out: CheckDef[] = [];
    if (suite === 'customers') {
      const create = seedOp(spec, 'POST', '/customers');
      if (create) out.push(...asChecks(suite, customerObservations(create)));
    }
    if (suite === 'accounts') {
      const list = seedOp(spec, 'GET', '/accounts');
      if (list) out.push(...asChecks(suite, accountObservations(list, seedOp(spec, 'POST', '/customers'))));
    }
    if (suite === 'webhooks') out.push(...asChecks(suite, webhookObservations(spec)));
    if (suite === 'versioning') out.push(...asChecks(suite, versionObservation(spec)));
    if (isGroupSlug(suite)) out.push(...asChecks(suite, groupObservations(suite, spec)));
    return out;
  },
};
