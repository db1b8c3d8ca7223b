import { pathToFileURL } from 'node:url';
import { SUITES_DIR, SUITE_EXT } from '../paths.js';
import { join } from 'node:path';
import { CROSS_CUTTING, GROUPS, UNBOUND_SUITE, type SuiteSlug } from '../catalogue/groups.js';
import type { SpecDocument } from '../catalogue/openapi.js';
import { checkId, type CheckDef } from '../harness/check.js';
import { genericChecks } from './index.js';
import { shardSuites } from './shards.js';
import type { Catalogue } from '../binding/catalogue-in-use.js';


export const ALL_SUITE_SLUGS: SuiteSlug[] = [...GROUPS.map((g) => g.slug), ...CROSS_CUTTING];

/**
 * The suites a run of the `requested` ones goes through: the suite of unbound operations only when the document has
 * some (never for the reference profile), then a shard's share of them (whole suites, balanced by `weight`, their
 * number of generic checks). The run plans with it, and verify derives a certified run's suites with it.
 */
export function runSuites(requested: readonly SuiteSlug[], spec: SpecDocument, weight: (suite: SuiteSlug) => number, shard?: { index: number; count: number }): SuiteSlug[] {
  const suites = requested.filter((g) => g !== UNBOUND_SUITE || spec.operations.some((o) => o.group === UNBOUND_SUITE));
  return shard ? shardSuites(suites, weight, shard.count)[shard.index - 1]! : suites;
}

export interface PlannedCheck {
  id: string;
  suite: SuiteSlug;
  def: CheckDef;
}

/**
 * Every check a run of `suites` (default: a full run) would register, without running anything: the generic
 * families over the spec in use, plus each suite file's flows (suite files only register tests inside a
 * conformance run).
 */
export async function planChecks(catalogue: Catalogue, suites: readonly SuiteSlug[] = ALL_SUITE_SLUGS): Promise<PlannedCheck[]> {
  const plan = { spec: catalogue.spec, isReferenceProfile: catalogue.isReferenceProfile, binding: catalogue.binding };
  const out: PlannedCheck[] = [];
  for (const suite of suites) {
    const mod = (await import(pathToFileURL(join(SUITES_DIR, `${suite}${SUITE_EXT}`)).href)) as { flows?: CheckDef[] };
    for (const def of [...genericChecks(suite, plan), ...(mod.flows ?? [])]) out.push({ id: checkId(def), suite, def });
  }
  return out;
}
