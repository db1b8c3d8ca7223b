/**
 * verify plans the run itself: from the suite version's own check library, the packaged document and binding, and
 * the suites the run was asked for (and its shard), it derives which suites ran and every check they register, and
 * requires the package's checks to be exactly that plan: the same ids, each with the requirement, level, group,
 * family, operation, title and clause the plan gives it, none missing, none added, none twice. A failing check
 * dropped, a check moved to another requirement or demoted to INFO, a group left out while still listed: each is
 * a difference. A narrower run (fewer groups, a shard) is a plan too, and is shown for what it is.
 */
import type { Catalogue } from '../binding/catalogue-in-use.js';
import { citeSource } from '../catalogue/requirements.js';
import { isGroupSlug, UNBOUND_SUITE, type SuiteSlug } from '../catalogue/groups.js';
import type { Capabilities } from '../config/capabilities.js';
import { genericChecks } from '../checks/index.js';
import { ALL_SUITE_SLUGS, planChecks, runSuites } from '../checks/planner.js';
import { testName, type CheckDef } from '../harness/check.js';
import type { CheckResult, RunReport, RunSettings } from '../results/model.js';
import { differs } from './difference.js';
import { VERIFY_EXIT } from './exit-codes.js';
import { REPORT_FILE } from './layout.js';

export interface PlannedRun {
  /** Every planned check by id, with the suite that registers it. */
  checks: Map<string, { def: CheckDef; suite: SuiteSlug }>;
  scope: {
    groups: SuiteSlug[];
    requested: SuiteSlug[];
    /** Suites a full run has that this one did not run (not asked for, or another shard's). */
    not_run: SuiteSlug[];
    shard?: { index: number; count: number };
    excluded_operations: string[];
  };
  settings: RunSettings;
}

function fail(message: string): never {
  return differs(VERIFY_EXIT.plan, message);
}

export async function plannedRun(report: RunReport, catalogue: Catalogue, capabilities: Capabilities | undefined): Promise<PlannedRun> {
  const run = report.run;
  if (run.incomplete_reason !== undefined) fail(`${REPORT_FILE}: the run is incomplete (${run.incomplete_reason}): certify a run that finished`);
  if (run.merged_from) fail(`${REPORT_FILE}: a merged report (of ${run.merged_from.length} shards) is several runs: certify one run, unsharded or a single shard`);
  const settings = run.settings;
  if (!settings) return fail(`${REPORT_FILE}: run.settings is missing: the report does not say what decided which checks could run`);
  const requested = settings.requested_groups;
  const unknown = requested.find((g) => !ALL_SUITE_SLUGS.includes(g));
  if (unknown) fail(`${REPORT_FILE}: run.settings.requested_groups names ${JSON.stringify(unknown)}, which is no suite of this version`);
  if (new Set(requested).size !== requested.length) fail(`${REPORT_FILE}: run.settings.requested_groups names a suite twice`);
  // Optional in a report (a baseline written before the exploration phase has none), required here: without it a
  // signer could call the phase off and skip its failed checks.
  if (!Number.isInteger(settings.explore) || settings.explore! < 0) fail(`${REPORT_FILE}: run.settings.explore is missing or not a budget: the report does not say whether the exploration phase ran`);
  // The same for the total: from it and the plan, verify derives what each operation could explore.
  if (!Number.isInteger(settings.explore_total) || settings.explore_total! < 0) fail(`${REPORT_FILE}: run.settings.explore_total is missing or not a budget: the report does not say how the exploration's total was shared`);
  const forPlanning = { spec: catalogue.spec, isReferenceProfile: catalogue.isReferenceProfile, binding: catalogue.binding };
  const shard = run.shard;
  if (shard && !(Number.isInteger(shard.index) && Number.isInteger(shard.count) && shard.index >= 1 && shard.index <= shard.count)) fail(`${REPORT_FILE}: run.shard ${shard.index}/${shard.count} is no shard`);
  const groups = runSuites(requested, catalogue.spec, (g) => genericChecks(g, forPlanning).length, shard);
  // The report lists the run's suites, the suite of unbound operations only when a check of it ran.
  const listed = (gs: readonly SuiteSlug[]) => [...new Set(gs.filter((g) => g !== UNBOUND_SUITE || report.checks.some((c) => c.group === UNBOUND_SUITE)))].sort().join(', ');
  if (listed(run.groups) !== listed(groups)) {
    fail(`${REPORT_FILE}: run.groups is [${listed(run.groups)}], but a run of [${requested.join(', ')}]${shard ? ` as shard ${shard.index}/${shard.count}` : ''} runs [${listed(groups)}]`);
  }
  const checks = new Map<string, { def: CheckDef; suite: SuiteSlug }>();
  for (const p of await planChecks(catalogue, groups)) checks.set(p.id, { def: p.def, suite: p.suite });
  matchPlan(report.checks, checks, catalogue);
  const full = runSuites(ALL_SUITE_SLUGS, catalogue.spec, () => 1);
  return {
    checks,
    scope: {
      groups,
      requested: [...requested],
      not_run: full.filter((g) => !groups.includes(g)),
      ...(shard ? { shard: { index: shard.index, count: shard.count } } : {}),
      excluded_operations: [...(capabilities?.excludeOperations ?? [])].sort(),
    },
    settings,
  };
}

/** The report's checks are the plan, each as planned; the first difference names the check, the field, both values. */
function matchPlan(recorded: readonly CheckResult[], planned: ReadonlyMap<string, { def: CheckDef }>, catalogue: Catalogue): void {
  const seen = new Set<string>();
  for (const c of recorded) {
    if (seen.has(c.id)) fail(`${REPORT_FILE}: check ${c.id} is recorded twice`);
    seen.add(c.id);
    const p = planned.get(c.id);
    if (!p) fail(`${REPORT_FILE}: check ${c.id} is not in the plan of this run (no check of that id in its suites, for this document and binding)`);
    const def = p!.def;
    const req = catalogue.requirements.get(def.requirement);
    const expected: [string, unknown, unknown][] = [
      ['requirement', def.requirement, c.requirement],
      ['level', req.level, c.level],
      ['group', def.group, c.group],
      ['family', def.family, c.family],
      ['operation', def.operation, c.operation],
      ['title', def.title, c.title],
      ['name', testName(def, req), c.name],
      ['clause', citeSource(req.source), c.clause],
    ];
    for (const [field, want, got] of expected) {
      if (want !== got) fail(`${REPORT_FILE}: check ${c.id} has ${field} ${JSON.stringify(got)}; the plan gives ${JSON.stringify(want)}`);
    }
  }
  const missing = [...planned.keys()].filter((id) => !seen.has(id));
  if (missing.length) {
    fail(`${REPORT_FILE}: ${missing.length} planned check${missing.length === 1 ? ' is' : 's are'} missing, first ${missing[0]} (every check the run plans is recorded, skipped ones too)`);
  }
}

/** Groups of the run that a capabilities file does not declare: left out on purpose, shown as such. */
export function undeclaredGroups(groups: readonly SuiteSlug[], capabilities: Capabilities | undefined): SuiteSlug[] {
  return capabilities?.groups ? groups.filter((g) => isGroupSlug(g) && !capabilities.groups!.includes(g)) : [];
}
