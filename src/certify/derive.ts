/**
 * Everything a package's evidence and inputs give, derived by the suite's own code, in the order a difference is
 * looked for: the report's shape and suite version, the inputs, the plan, the evidence's provenance, the
 * re-judgement, the recomputed verdict. certify derives it from the run before signing (and refuses a run whose
 * evidence contradicts it); verify derives it again from the package and compares the signed statement with it.
 * The first difference ends it (src/certify/difference.ts).
 */
import { SUITE_VERSION } from '../paths.js';
import { operationsMatching } from '../results/coverage.js';
import type { RunReport } from '../results/model.js';
import { validateReport } from '../reports/schema.js';
import type { PreconditionSettings } from '../harness/preconditions.js';
import type { Catalogue } from '../binding/catalogue-in-use.js';
import { differs } from './difference.js';
import { checkExploredRequests } from './explored-requests.js';
import { VERIFY_EXIT } from './exit-codes.js';
import { packageInputs, type PackageInputs } from './inputs.js';
import { REPORT_FILE, type CertificationPredicate } from './layout.js';
import { plannedRun, type PlannedRun } from './planned-run.js';
import { checkProvenance, type Provenance } from './provenance.js';
import { recompute, type Recomputed } from './recompute.js';
import { judgedChecks, rejudgeRun, type Rejudgement } from './rejudge.js';
import { EXPLORE_VARIANT, exploreAllocation, type ExploreAllocation } from '../results/exploration.js';

export interface Derived {
  report: RunReport;
  inputs: PackageInputs;
  planned: PlannedRun;
  provenance: Provenance;
  rejudgement: Rejudgement;
  recomputed: Recomputed;
}

/** The report in a package: JSON, of the report schema, made by this suite version. */
export function readReport(bytes: Buffer | undefined): RunReport {
  if (!bytes) return differs(VERIFY_EXIT.digest, `${REPORT_FILE}: missing from the package`);
  let data: unknown;
  try {
    data = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    return differs(VERIFY_EXIT.digest, `${REPORT_FILE}: not JSON (${(e as Error).message})`);
  }
  const version = (data as { suite?: { version?: unknown } } | null)?.suite?.version;
  if (version !== SUITE_VERSION) {
    differs(VERIFY_EXIT.version, `the run was made by fsapi-conformance ${String(version)}; this is ${SUITE_VERSION}: re-judging needs the judgement code of the version that ran (install that version from your lockfile, README "Installing")`);
  }
  const problems = validateReport(data);
  if (problems.length) differs(VERIFY_EXIT.digest, `${REPORT_FILE}: not a conformance report of this version: ${problems[0]!.pointer || '(root)'} ${problems[0]!.message}`);
  return data as RunReport;
}

/** What the run's total left each operation, derived from the plan and the recorded budgets, as the run decided it. */
const plannedExploration = (planned: PlannedRun): ExploreAllocation =>
  exploreAllocation(planned.settings.explore!, planned.settings.explore_total!, [...planned.checks.values()].map((p) => p.def));

/**
 * No exploration sent more than its derived budget: a run whose explorations sent more than the plan allowed did not
 * run as its settings say.
 */
function checkExplorationBudget(report: RunReport, planned: PlannedRun): void {
  const { perOperation } = plannedExploration(planned);
  for (const c of report.checks) {
    const sent = c.facts?.['explore_requests'];
    if (c.id.endsWith(` ${EXPLORE_VARIANT}`) && typeof sent === 'number' && sent > perOperation) {
      differs(VERIFY_EXIT.plan, `${REPORT_FILE}: check ${c.id} explored ${sent} requests, more than the ${perOperation} per operation that run.settings.explore (${planned.settings.explore}) and explore_total (${planned.settings.explore_total}) give its plan`);
    }
  }
}

/** The settings that decide skips before a request, as the run recorded them (held against its checks by re-judging). */
function recordedSettings(report: RunReport, planned: PlannedRun, catalogue: Catalogue, inputs: PackageInputs): PreconditionSettings {
  return {
    capabilities: inputs.capabilities,
    isReferenceProfile: catalogue.isReferenceProfile,
    environment: report.target.environment,
    allowLiveWrites: planned.settings.allow_live_writes,
    explore: planned.settings.explore!,
    exploreLeftOut: plannedExploration(planned).leftOut,
    has: { ...planned.settings.credentials, plainHttp: report.target.plain_http_url !== undefined },
  };
}

export async function derivePackage(files: ReadonlyMap<string, Buffer>, inputs: CertificationPredicate['inputs']): Promise<Derived> {
  const report = readReport(files.get(REPORT_FILE));
  const packaged = await packageInputs(inputs, files, report);
  const { catalogue } = packaged;
  const planned = await plannedRun(report, catalogue, packaged.capabilities);
  checkExplorationBudget(report, planned);
  await checkExploredRequests(report, catalogue, plannedExploration(planned).perOperation);
  let basePath = '/';
  try {
    basePath = new URL(report.target.base_url).pathname;
  } catch {
    // checkProvenance names an unparsable base URL.
  }
  const provenance = checkProvenance({
    report,
    suiteOf: (id) => planned.checks.get(id)!.suite,
    evidence: (name) => files.get(name),
    operationsAt: operationsMatching(catalogue.spec.operations, basePath),
  });
  const rejudgement = rejudgeRun({ report, catalogue, planned, settings: recordedSettings(report, planned, catalogue, packaged), partial: provenance.partial });
  if (rejudgement.firstDifference) {
    const i = report.checks.findIndex((c) => c.id === rejudgement.firstDifference!.check);
    differs(VERIFY_EXIT.rejudged, `${REPORT_FILE}, check ${rejudgement.firstDifference.check} (evidence evidence/${String(i).padStart(4, '0')}.json): ${rejudgement.firstDifference.message}`);
  }
  const recomputed = await recompute(report, judgedChecks(report, rejudgement), catalogue, planned, packaged.capabilities);
  return { report, inputs: packaged, planned, provenance, rejudgement, recomputed };
}
