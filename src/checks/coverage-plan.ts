import { loadCatalogue } from '../binding/catalogue-in-use.js';
import type { Capabilities } from '../config/capabilities.js';
import { isGroupSlug, type SuiteSlug } from '../catalogue/groups.js';
import type { CheckDef } from '../harness/check.js';
import type { DocumentOperation, RequirementPlan } from '../results/coverage.js';
import { genericChecks } from './index.js';
import { ALL_SUITE_SLUGS } from './planner.js';

/**
 * Where each requirement's generic checks are planned over the reference profile, by suite and operation: a
 * requirement with no check in a run whose suite was in it lacks its operations in the document in use.
 */
export function referencePlan(checksOf: (suite: SuiteSlug) => readonly CheckDef[]): RequirementPlan {
  const out = new Map<string, { suite: string; operation?: string }[]>();
  for (const suite of ALL_SUITE_SLUGS) {
    for (const def of checksOf(suite)) {
      (out.get(def.requirement) ?? out.set(def.requirement, []).get(def.requirement)!).push({ suite, ...(def.operation ? { operation: def.operation } : {}) });
    }
  }
  return out;
}

/** Why an operation of the document is out of this run on purpose (not in its groups, or excluded by the capabilities file). */
export function leftOutBy(groups: readonly string[], caps: Capabilities | undefined): (op: DocumentOperation) => string | undefined {
  return (op) => {
    if (!op.group) return undefined;
    if (caps?.excludeOperations.includes(op.operationId)) return 'excluded by the capabilities file';
    if (caps?.groups && !caps.groups.some((g) => g === op.group)) return `group ${op.group} is not declared in the capabilities file`;
    if (!groups.includes(op.group)) return `group ${op.group} is not in this run`;
    return undefined;
  };
}

/** The generic checks of a suite over the reference profile (where a vendor document's run plans each requirement). */
export async function referenceChecksOf(): Promise<(suite: SuiteSlug) => CheckDef[]> {
  const { spec } = await loadCatalogue();
  return (suite) => genericChecks(suite, { spec, isReferenceProfile: true });
}

/** The run's suites that are its to verify: a group the capabilities file does not declare is not, whatever its document lacks. */
export function declaredGroups(groups: readonly SuiteSlug[], caps: Pick<Capabilities, 'groups'> | undefined): SuiteSlug[] {
  return groups.filter((g) => !caps?.groups || !isGroupSlug(g) || caps.groups.includes(g));
}
