import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { SUITE_VERSION, WAITING_FILE } from '../paths.js';
import { REFERENCE_SPEC_PATH } from '../catalogue/index.js';
import { isGroupSlug, type SuiteSlug } from '../catalogue/groups.js';
import { LABEL_EMAIL_DOMAIN } from '../../fixtures/factories.js';
import type { ThrottleFigures } from '../http/rate-limiter.js';
import type { Redactor } from '../http/redact.js';
import { describeSources, valueSources } from '../values/producers.js';
import { planChecks } from '../checks/planner.js';
import type { CheckDef } from '../harness/check.js';
import { writeReports, type WrittenReports } from '../reports/index.js';
import { assembleRunReport } from '../reports/run-report.js';
import type { CheckResult, RunReport, RunSettings } from '../results/model.js';
import { absentFromRun, absentWhenCut, assessRun } from '../results/assess.js';
import { definitionOf } from '../results/definition.js';
import { securitySchemeNote, silentReceiverNote } from '../results/diagnostics.js';
import { declaredGroups, leftOutBy, referenceChecksOf, referencePlan } from '../checks/coverage-plan.js';
import { declaredConflicts } from '../results/document-conflicts.js';
import { repeatOf } from './repeat-command.js';
import type { RunPlan } from './run-plan.js';
import type { SuitesOutcome } from './suites.js';
import type { Target } from './target.js';

export interface RunOutcome {
  report: RunReport;
  written: WrittenReports;
  /** Time spent writing the reports (not in conformance.json, which is written during it). */
  reportsMs: number;
}

/** How long each phase before the report took (ms). */
export interface PhaseTimes {
  startup_ms: number;
  preflight_ms: number;
  suites_ms: number;
}

/** What the report phase is handed besides the plan, the target and the checks' outcome. */
export interface RunRecord {
  startedAt: Date;
  phases: PhaseTimes;
  /** Requests sent outside the suites (the preflight's). */
  mainThreadRequests: number;
  throttling: ThrottleFigures;
  /**
   * Writes the checks' Allure results, returning each file's SHA-256 by its path in the report directory. That is
   * report writing: called after the run's duration is taken, before the reports that checksum them.
   */
  writeAllure: () => ReadonlyMap<string, string>;
  redactor: Redactor;
}

/** The last phase: judges what the checks found, against what the run planned, and writes every report. */
export async function reportRun(plan: RunPlan, target: Target, outcome: SuitesOutcome, record: RunRecord, log: (line: string) => void): Promise<RunOutcome> {
  const { cfg, catalogue } = plan;
  const tr = performance.now();
  const { results, suiteErrors, failedSuites, interrupted } = outcome;
  const incompleteReason = interrupted
    ? `the run was interrupted (SIGINT/SIGTERM) before ${results.length ? 'every check finished' : 'its checks began'}`
    : suiteErrors.length
      ? `a suite could not run: ${suiteErrors[0]}`
      : undefined;
  const referenceChecks = catalogue.isReferenceProfile ? plan.checksOf : await referenceChecksOf();
  // A run cut short did not reach some of its checks: the requirements they verify were planned, not absent. (The
  // waiting file holds checks of every group: when it failed, every suite was cut short.)
  const cutSuites = interrupted || failedSuites.includes(WAITING_FILE) ? declaredGroups(cfg.groups, cfg.capabilities) : declaredGroups(cfg.groups, cfg.capabilities).filter((g) => failedSuites.includes(g));
  const why = interrupted
    ? { cause: 'interrupted' as const, reason: 'the run was interrupted before any of its checks ran' }
    : cutSuites.length
      ? { cause: 'suite-error' as const, reason: `its suite could not run (${suiteErrors[0]})` }
      : undefined;
  const cut = why && { ...why, planned: new Set((await planChecks(catalogue, cutSuites)).map((p) => p.def.requirement)) };
  const { receiver } = target;
  const report = buildReport({
    plan,
    target,
    referenceChecks,
    record,
    results,
    incompleteReason,
    ...(cut ? { cut } : {}),
    silentReceiver: cfg.webhookListen && receiver?.count === 0 && results.some((c) => c.group === 'webhooks' && c.status !== 'skipped') ? `${cfg.webhookListen.host}:${cfg.webhookListen.port}` : undefined,
    requests: outcome.stats.requests + record.mainThreadRequests,
    created: outcome.stats.created,
  });
  for (const e of suiteErrors.slice(0, 5)) log(`  suite error: ${record.redactor.text(e)}`);
  const knownHashes = record.writeAllure();
  const written = await writeReports(report, {
    dir: plan.dir,
    reportRoot: cfg.reportDir,
    html: cfg.html,
    knownHashes,
    documentPath: catalogue.spec.path,
    latencyRatio: cfg.latencyDrift,
    trend: cfg.trend,
    progress: log,
    ...(cfg.baseline ? { baselinePath: cfg.baseline } : {}),
  });
  return { report: written.report, written, reportsMs: Math.round(performance.now() - tr) };
}

/** What decided which checks could run (the same as preconditionSettingsOf the workers' configuration), for verify. */
function runSettings({ given, cfg }: RunPlan, target: Target): RunSettings {
  const c = target.credentials;
  const caps = cfg.capabilities;
  return {
    requested_groups: given.groups,
    allow_live_writes: cfg.allowLiveWrites,
    explore: cfg.explore,
    explore_total: cfg.exploreTotal,
    credentials: { second_tenant: !!c.second, public_key: !!c.publicKey, revoked_key: !!c.revokedApiKey, live_key: !!c.liveApiKey, webhooks: !!target.receiver && !!c.webhookSecret },
    ...(caps ? { capabilities: { path: relative(process.cwd(), caps.path) || caps.path, sha256: createHash('sha256').update(readFileSync(caps.path)).digest('hex') } } : {}),
  };
}

function buildReport(a: {
  plan: RunPlan;
  target: Target;
  /** The reference profile's generic checks of a suite: where each requirement's checks are planned. */
  referenceChecks: (suite: SuiteSlug) => CheckDef[];
  record: RunRecord;
  results: CheckResult[];
  incompleteReason: string | undefined;
  /** FSAPI_WEBHOOK_LISTEN, when the receiver there got no delivery in a run whose webhook checks waited for some. */
  silentReceiver: string | undefined;
  /** A run cut short (interrupted, a suite that could not run): why, and the requirements its suites cut short planned checks for. */
  cut?: { cause: 'interrupted' | 'suite-error'; reason: string; planned: ReadonlySet<string> };
  requests: number;
  created: Record<string, number>;
}): RunReport {
  const { plan, target, record } = a;
  const { cfg, catalogue, runId } = plan;
  const finished = new Date();
  const checks = a.results
    .map((c) => {
      const at = definitionOf(c, catalogue.requirements.byId.get(c.requirement)?.checks ?? []);
      return at ? { ...c, defined_at: at } : c;
    })
    .sort((x, y) => x.id.localeCompare(y.id));
  const statements = new Map(catalogue.requirements.all.map((r) => [r.id, r.statement]));
  const groups = [...new Set(checks.map((c) => c.group))];
  const durationMs = finished.getTime() - record.startedAt.getTime();
  const waivers = cfg.capabilities?.waive ?? [];
  const securityNote = securitySchemeNote(catalogue.spec.raw);
  const { phases } = record;
  const run: RunReport['run'] = {
    id: runId,
    seed: cfg.seed,
    started_at: record.startedAt.toISOString(),
    finished_at: finished.toISOString(),
    duration_ms: durationMs,
    phases: { startup_ms: Math.round(phases.startup_ms), preflight_ms: Math.round(phases.preflight_ms), suites_ms: Math.round(phases.suites_ms) },
    strict: cfg.strict,
    groups: cfg.groups.filter((g) => groups.includes(g) || isGroupSlug(g) || g === 'transport' || g === 'versioning'),
    ...(cfg.shard ? { shard: cfg.shard } : {}),
    concurrency: cfg.concurrency,
    requests_sent: a.requests,
    resources_created: {
      count: Object.values(a.created).reduce((n, x) => n + x, 0),
      by_type: a.created,
      label: `customers' e-mail domain @${LABEL_EMAIL_DOMAIN}; metadata fsapi_run=${runId} on everything that takes metadata`,
    },
    node: process.version,
    throttling: record.throttling,
    platform: `${process.platform}-${process.arch}`,
    ...(a.incompleteReason ? { incomplete_reason: a.incompleteReason } : {}),
    ...(waivers.length ? { waivers } : {}),
    settings: runSettings(plan, target),
    // The run as given: a shard's command names the shard, not the suites it drew.
    repeat: repeatOf(plan.given),
  };
  const absent = absentFromRun(referencePlan(a.referenceChecks), declaredGroups(cfg.groups, cfg.capabilities));
  const assessed = assessRun({
    checks,
    requirements: catalogue.requirements.all,
    waivers,
    absent: a.cut ? absentWhenCut(absent, a.cut.planned, a.cut) : absent,
    operations: catalogue.spec.operations,
    baseUrl: target.baseUrl,
    leftOut: leftOutBy(cfg.groups, cfg.capabilities),
    incompleteReason: a.incompleteReason,
    throttling: run.throttling,
    durationMs,
    notes: [...(securityNote ? [securityNote] : []), ...(a.silentReceiver ? [silentReceiverNote(a.silentReceiver)] : [])],
  });
  return assembleRunReport({
    suite: { name: 'fsapi-conformance', version: SUITE_VERSION },
    spec: {
      path: catalogue.spec.path === REFERENCE_SPEC_PATH ? 'spec/openapi.yaml' : catalogue.spec.path,
      title: catalogue.spec.title,
      openapi: catalogue.spec.version,
      sha256: catalogue.spec.sha256,
      reference_profile: catalogue.isReferenceProfile,
      ...(cfg.bindingPath ? { binding: relative(process.cwd(), cfg.bindingPath) || cfg.bindingPath } : {}),
      operations: catalogue.binding.accounting(),
      // Where a vendor document's parameter values come from: shown whether acted on (active) or only suggested.
      ...(catalogue.isReferenceProfile ? {} : { value_sources: describeSources(valueSources(catalogue.spec)) }),
    },
    requirements: { path: 'spec/requirements.yaml', sha256: catalogue.requirements.sha256, count: catalogue.requirements.all.length },
    target: {
      base_url: target.baseUrl,
      environment: cfg.environment,
      embedded: !!target.sandbox,
      tenant_id: target.credentials.tenantId,
      ...(target.sandbox ? { sandbox_faults: target.sandbox.faults } : {}),
      plain_http_url: target.plainHttpUrl,
      ...(target.inspectUrl ? { webhook_receiver: new URL(target.inspectUrl).origin } : {}),
    },
    run,
    assessed,
    checks,
    statements,
    conflicts: declaredConflicts(catalogue.spec.raw),
  });
}
