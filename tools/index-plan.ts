/**
 * The checks the requirement index lists: every check planned over the reference profile, and those that plan only
 * on a vendor's document (the lifecycle walk), planned over the document their own test uses.
 */
import { planChecks, type PlannedCheck } from '../src/checks/planner.js';
import { PACKAGE_ROOT } from '../src/paths.js';
import { loadCatalogue, type Catalogue } from '../src/binding/catalogue-in-use.js';

/** Documents on which the checks of vendor-only requirements plan (each requirement's `tested_by` test uses it). */
const VENDOR_ONLY_DOCUMENTS = ['test/fixtures/lifecycle/vendor.yaml'];

export async function plannedForIndex(catalogue: Catalogue): Promise<PlannedCheck[]> {
  const planned = await planChecks(catalogue);
  const onReference = new Set(planned.map((p) => p.def.requirement));
  for (const doc of VENDOR_ONLY_DOCUMENTS) {
    for (const p of await planChecks(await loadCatalogue({ specPath: `${PACKAGE_ROOT}/${doc}` }))) if (!onReference.has(p.def.requirement)) planned.push(p);
  }
  return planned;
}
