/**
 * What the checks add up to, recomputed by the same function a run uses (src/results/assess.ts) from the re-judged
 * checks, the planned levels, the packaged capabilities (waivers, what is left out) and the derived run scope: the
 * verdict, the headline, every requirement's row with its reason, MUST coverage, operations exercised and the
 * counts. Each must be the report's; a failed MUST check makes the verdict non-conformant wherever it is recorded.
 */
import type { Catalogue } from '../binding/catalogue-in-use.js';
import type { Capabilities } from '../config/capabilities.js';
import { declaredGroups, leftOutBy, referenceChecksOf, referencePlan } from '../checks/coverage-plan.js';
import { genericChecks } from '../checks/index.js';
import { absentFromRun, assessRun, type Assessment } from '../results/assess.js';
import type { CheckResult, RunReport } from '../results/model.js';
import { countStatuses } from '../results/verdict.js';
import { differs } from './difference.js';
import { VERIFY_EXIT } from './exit-codes.js';
import { REPORT_FILE } from './layout.js';
import type { PlannedRun } from './planned-run.js';

export interface Recomputed {
  assessment: Assessment;
  counts: RunReport['counts'];
}

function fail(message: string): never {
  return differs(VERIFY_EXIT.recomputed, message);
}

const json = (v: unknown): string => JSON.stringify(v);

export async function recompute(report: RunReport, judged: readonly CheckResult[], catalogue: Catalogue, planned: PlannedRun, capabilities: Capabilities | undefined): Promise<Recomputed> {
  const waivers = capabilities?.waive ?? [];
  if (json(report.run.waivers ?? []) !== json(waivers)) {
    differs(VERIFY_EXIT.inputs, `${REPORT_FILE}: run.waivers is ${json(report.run.waivers ?? [])}, but the packaged capabilities file waives ${json(waivers)}`);
  }
  const forPlanning = { spec: catalogue.spec, isReferenceProfile: catalogue.isReferenceProfile, binding: catalogue.binding };
  const referenceChecks = catalogue.isReferenceProfile ? (suite: Parameters<typeof genericChecks>[0]) => genericChecks(suite, forPlanning) : await referenceChecksOf();
  const groups = planned.scope.groups;
  const assessment = assessRun({
    checks: judged,
    requirements: catalogue.requirements.all,
    waivers,
    absent: absentFromRun(referencePlan(referenceChecks), declaredGroups(groups, capabilities)),
    operations: catalogue.spec.operations,
    baseUrl: report.target.base_url,
    leftOut: leftOutBy(groups, capabilities),
    incompleteReason: undefined,
    throttling: report.run.throttling,
    durationMs: report.run.duration_ms,
  });
  const counts = countStatuses(judged);
  const recorded = report.coverage;
  if (report.verdict !== assessment.verdict) fail(`${REPORT_FILE}: verdict is ${report.verdict}, the checks give ${assessment.verdict}`);
  for (const s of ['total', 'passed', 'failed', 'warning', 'skipped', 'error'] as const) {
    if (report.counts.by_status[s] !== counts.by_status[s]) fail(`${REPORT_FILE}: counts.by_status.${s} is ${report.counts.by_status[s]}, the checks add up to ${counts.by_status[s]}`);
  }
  if (json(report.counts) !== json(counts)) {
    const where = Object.keys(counts.by_level).find((l) => json(report.counts.by_level[l as keyof typeof counts.by_level]) !== json(counts.by_level[l as keyof typeof counts.by_level]));
    fail(`${REPORT_FILE}: counts.${where ? `by_level.${where}` : 'by_group'} is not what the checks add up to`);
  }
  if (!recorded) return fail(`${REPORT_FILE}: coverage is missing`);
  if (json(recorded.must) !== json(assessment.coverage.must)) fail(`${REPORT_FILE}: coverage.must is ${json(recorded.must)}, the checks give ${json(assessment.coverage.must)}`);
  const rows = new Map(recorded.requirements.map((r) => [r.id, r]));
  for (const r of assessment.coverage.requirements) {
    const got = rows.get(r.id);
    if (json(got) !== json(r)) fail(`${REPORT_FILE}: the coverage row of ${r.id} is ${json(got ?? null)}, the checks give ${json(r)}`);
  }
  if (recorded.requirements.length !== assessment.coverage.requirements.length) fail(`${REPORT_FILE}: coverage lists ${recorded.requirements.length} requirements, the catalogue has ${assessment.coverage.requirements.length}`);
  const ops = assessment.coverage.operations;
  if (recorded.operations.exercised !== ops.exercised || recorded.operations.total !== ops.total) {
    fail(`${REPORT_FILE}: coverage.operations says ${recorded.operations.exercised} of ${recorded.operations.total} exercised, the checks give ${ops.exercised} of ${ops.total}`);
  }
  if ((report.headline ?? '') !== assessment.headline) fail(`${REPORT_FILE}: headline is ${json(report.headline ?? '')}, the checks give ${json(assessment.headline)}`);
  return { assessment, counts };
}
