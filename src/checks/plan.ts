import type { Binding } from '../binding/binding.js';
import type { SuiteSlug } from '../catalogue/groups.js';
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import type { CheckDef } from '../harness/check.js';

/** What generating checks may depend on: the spec in use, never the target or its answers. */
export interface PlanContext {
  spec: SpecDocument;
  /** True when the spec in use is the reference profile (its business rules and drivers apply). */
  isReferenceProfile: boolean;
  /** How the spec in use plays the reference operations (absent: every operation as it is spelled). */
  binding?: Binding;
}

/** A family of the check library: generic checks per operation, and/or per suite. */
export interface CheckFamily {
  name: string;
  /** Checks for one operation of a group. */
  forOperation?(op: Operation, plan: PlanContext): CheckDef[];
  /** Checks for a suite as a whole (cross-cutting suites, group-level checks). */
  forSuite?(suite: SuiteSlug, plan: PlanContext): CheckDef[];
}
