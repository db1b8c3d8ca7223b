import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { privateCacheDir } from '../cache-dir.js';
import { plural } from '../reports/text.js';
import { PACKAGE_ROOT, RUNNING_COMPILED, SUITE_VERSION, SUITES_DIR, SUITE_EXT, WAITING_FILE } from '../paths.js';
import { REFERENCE_SPEC_PATH } from '../catalogue/index.js';
import { describeSources, valueSources } from '../values/producers.js';
import type { RequirementCatalogue } from '../catalogue/requirements.js';
import { isGroupSlug, UNBOUND_SUITE, type SuiteSlug } from '../catalogue/groups.js';
import { harnessWorkers, secretsOf, type Credentials, type RunConfig } from '../config/run-config.js';
import { UsageError } from '../errors.js';
import { LABEL_EMAIL_DOMAIN } from '../../fixtures/factories.js';
import type { TargetClient } from '../http/client.js';
import { RateLimiter, type ThrottleFigures } from '../http/rate-limiter.js';
import { Redactor } from '../http/redact.js';
import type { WorkerConfig } from '../harness/worker-config.js';
import { ALLURE_RESULTS_DIR, prepareReportValidator, writeReports, type WrittenReports } from '../reports/index.js';
import { assembleRunReport } from '../reports/run-report.js';
import type { CheckResult, RunReport } from '../results/model.js';
import type { TestSpecification, Vitest } from 'vitest/node';
import { absentFromRun, absentWhenCut, assessRun } from '../results/assess.js';
import { definitionOf } from '../results/definition.js';
import { securitySchemeNote, silentReceiverNote } from '../results/diagnostics.js';
import { leftOutBy, referencePlan } from './coverage-plan.js';
import type { RunningSandbox } from '../../sandbox/index.js';
import { allureReporter, type AllureResultsReporter } from './allure-writer.js';
import { ResultCollector, type SuiteStats } from './collector.js';
import type { LiveProgress, ProgressCounts } from './progress.js';
import { progressCounts } from './progress-counts.js';
import { shardSuites } from './shards.js';
import { repeatOf } from './repeat.js';
import { genericChecks } from '../checks/index.js';
import { planChecks } from '../checks/planner.js';
import type { CheckDef } from '../harness/check.js';
import { WebhookReceiver } from './receiver.js';
import { beginRun, endRun, type RunStart } from './begin.js';
import { announceInterrupts, type RunStage } from './interrupt.js';
import { rerunPlan } from './rerun-plan.js';
import { loadCatalogue, type Catalogue } from '../binding/catalogue.js';


export interface RunOutcome {
  report: RunReport;
  written: WrittenReports;
  /** Time spent writing the reports (not in conformance.json, which is written during it). */
  reportsMs: number;
}

interface Phases {
  startup_ms: number;
  preflight_ms: number;
  suites_ms: number;
}

/** A run id that sorts by time and never repeats: 20261120-231501-a1b2c3. */
export function newRunId(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}-${randomBytes(3).toString('hex')}`;
}

/**
 * One conformance run: start the embedded sandbox when no target is configured, preflight, run the suites
 * with vitest, write the reports. Interrupts (SIGINT/SIGTERM) stop the suites, and the report written then
 * holds what was learnt with verdict `incomplete`. `progress`, when given, shows the checks' progress while
 * they run (`log` should then write through it).
 */
export async function runConformance(given: RunConfig, log: (line: string) => void, interrupt: AbortSignal, start: RunStart = beginRun(given), progress?: LiveProgress, result: (line: string) => void = log): Promise<RunOutcome> {
  try {
    return await conduct(given, { log, result }, interrupt, start, progress);
  } finally {
    // Whatever happened before the run used it (a bad spec, say), the sandbox's thread does not outlive the run.
    await endRun(start);
  }
}

async function conduct(given: RunConfig, { log, result }: { log: (line: string) => void; result: (line: string) => void }, interrupt: AbortSignal, { t0, startedAt, sandbox: sandboxStarting }: RunStart, progress: LiveProgress | undefined): Promise<RunOutcome> {
  const runId = newRunId(startedAt);
  const phases: Phases = { startup_ms: 0, preflight_ms: 0, suites_ms: 0 };
  const catalogue = await loadCatalogue({ ...(given.specPath ? { specPath: given.specPath } : {}), ...(given.bindingPath ? { bindingPath: given.bindingPath } : {}) });
  if (given.bindingPath) log(catalogue.binding.summary(relative(process.cwd(), given.bindingPath) || given.bindingPath));
  for (const w of catalogue.spec.warnings) log(`warning: ${catalogue.spec.path}#${w.pointer}: ${w.message}`);
  // A suite's weight is its number of checks: it balances shards and orders the files of a run.
  const plan = { spec: catalogue.spec, isReferenceProfile: catalogue.isReferenceProfile, binding: catalogue.binding };
  // Each suite's generic checks, planned once: they weigh the suites and, for the reference profile, tell coverage
  // where each requirement's checks are.
  const planned = new Map<SuiteSlug, CheckDef[]>();
  const checksOf = (g: SuiteSlug) => planned.get(g) ?? planned.set(g, genericChecks(g, plan)).get(g)!;
  const weight = (g: SuiteSlug) => checksOf(g).length;
  // The suite of unbound operations runs only when the document has some (never for the reference profile).
  const suites = given.groups.filter((g) => g !== UNBOUND_SUITE || catalogue.spec.operations.some((o) => o.group === UNBOUND_SUITE));
  const cfg = given.shard ? { ...given, groups: shardOf({ ...given, groups: suites }, weight, log) } : { ...given, groups: suites };
  let sandbox: RunningSandbox | undefined;
  let receiver: WebhookReceiver | undefined;
  let client: TargetClient | undefined;
  // One pacing for the whole run, shared with every worker: a 429 any of them sees slows them all.
  const throttle = RateLimiter.shared(cfg.pacing);
  const limiter = new RateLimiter(throttle);
  const workers = harnessWorkers(cfg.groups.length);
  const dir = join(cfg.reportDir, runId);
  // The suites' lines are results (stdout); the rest of what the run says is diagnostics (stderr).
  const prepare = () => prepareSuites(cfg, weight, dir, workers, catalogue.requirements, result);
  // Against the embedded sandbox nothing outside can fail, so vitest starts up while the sandbox thread does (each
  // takes about half a second). A configured target is preflighted first, so a bad one fails before vitest loads.
  let preparing: Promise<PreparedSuites> | undefined = cfg.target ? undefined : prepare();
  // Handled where it is awaited; this marks it handled should it fail before then.
  preparing?.catch(() => undefined);
  let ran = false;
  let prepared: PreparedSuites | undefined;
  let stopCounting: (() => void) | undefined;
  let stage: RunStage = 'checks';
  let stopAnnouncing: (() => void) | undefined;
  try {
    // Target: the configured one, or the embedded reference sandbox with every optional credential.
    let baseUrl: string;
    let credentials: Credentials;
    let caPem: string | undefined;
    let plainHttpUrl = cfg.plainHttpUrl;
    if (cfg.target) {
      ({ baseUrl, credentials } = cfg.target);
      caPem = cfg.target.caPem;
    } else {
      if (!sandboxStarting) throw new Error('no embedded sandbox was started for a run without a target (beginRun was given another configuration)');
      sandbox = await sandboxStarting;
      const [alpha, beta] = sandbox.tenants;
      baseUrl = sandbox.base_url;
      caPem = sandbox.ca_pem;
      plainHttpUrl = sandbox.plain_http_url;
      credentials = {
        apiKey: alpha!.secret_key,
        tenantId: alpha!.tenant_id,
        publicKey: alpha!.public_key,
        liveApiKey: sandbox.live_key,
        revokedApiKey: sandbox.revoked_key,
        second: { apiKey: beta!.secret_key, tenantId: beta!.tenant_id },
        webhookSecret: sandbox.webhook_secret,
      };
    }
    plainHttpUrl ??= defaultPlainHttpUrl(baseUrl);

    // The webhook receiver: on the configured address, or on loopback wired to the embedded sandbox.
    let inspectUrl: string | undefined;
    if (sandbox || cfg.webhookListen) {
      receiver = new WebhookReceiver();
      const where = cfg.webhookListen ?? { host: '127.0.0.1', port: 0 };
      const r = await receiver.listen(where.host, where.port).catch((e: NodeJS.ErrnoException) => {
        throw new UsageError(`the webhook receiver cannot listen on ${where.host}:${where.port} (${e.code ?? e.message})`, {
          fix: 'choose a free port in FSAPI_WEBHOOK_LISTEN',
        });
      });
      inspectUrl = r.inspectUrl;
      // Both businesses deliver here, so checks on the second one's deliveries have some to read.
      if (sandbox) for (const t of sandbox.tenants) sandbox.setWebhook(t.tenant_id, { url: r.url, secret: credentials.webhookSecret! });
    }
    phases.startup_ms = performance.now() - t0;
    // From here a report can always be written: an interrupt (also one that came while the run started) is
    // announced, and the run goes straight to its report.
    stopAnnouncing = announceInterrupts(interrupt, () => stage, log);

    const redactor = new Redactor(secretsOf(credentials));
    // A configured target is preflighted. The embedded sandbox is not: the run started it, and it gave its own
    // address, certificate and keys once it listened, so there is nothing the one request could find wrong that
    // the checks would not (and the main thread then never loads an HTTP client: ~0.1 s less before the checks).
    if (cfg.target && !interrupt.aborted) {
      const tp = performance.now();
      const [{ TargetClient }, { preflight }] = await Promise.all([import('../http/client.js'), import('./preflight.js')]);
      client = new TargetClient({ baseUrl, ...(caPem ? { caPem } : {}), timeoutMs: cfg.timeoutMs, maxResponseBytes: cfg.maxResponseBytes, redactor, limiter, signal: interrupt });
      // An interrupt ends the preflight's request: what it then says of the target is no finding.
      await preflight(client, catalogue.spec, credentials, baseUrl).catch((e: unknown) => {
        if (!interrupt.aborted) throw e;
      });
      phases.preflight_ms = performance.now() - tp;
    }

    const worker: WorkerConfig = {
      runId,
      seed: cfg.seed,
      strict: cfg.strict,
      environment: cfg.environment,
      allowLiveWrites: cfg.allowLiveWrites,
      embedded: !!sandbox,
      baseUrl,
      ...(caPem ? { caPem } : {}),
      credentials,
      plainHttpUrl,
      ...(inspectUrl ? { receiver: { inspectUrl } } : {}),
      specPath: catalogue.spec.path,
      ...(given.bindingPath ? { bindingPath: given.bindingPath } : {}),
      isReferenceProfile: catalogue.isReferenceProfile,
      ...(cfg.capabilities ? { capabilities: cfg.capabilities } : {}),
      timeoutMs: cfg.timeoutMs,
      maxResponseBytes: cfg.maxResponseBytes,
      throttle,
      concurrency: cfg.concurrency,
      idempotencyParallel: cfg.idempotencyParallel,
      webhookWaitMs: cfg.webhookWaitMs,
      replayDelayMs: cfg.replayDelayMs,
      groups: cfg.groups,
      ...(cfg.traceFile ? { traceFile: cfg.traceFile } : {}),
      ...(cfg.baseline ? { rerun: rerunPlan(cfg.baseline, cfg.retries) } : {}),
      label: { emailDomain: LABEL_EMAIL_DOMAIN, metadataKey: 'fsapi_run', metadataValue: runId },
    };

    mkdirSync(dir, { recursive: true });
    const ts = performance.now();
    // An interrupt before the checks start leaves none run: the report says so.
    let outcome: SuitesOutcome = { results: [], suiteErrors: [], failedSuites: [], interrupted: true, stats: { requests: 0, created: {} } };
    if (!interrupt.aborted) {
      preparing ??= prepare();
      ran = true;
      prepared = await preparing;
      const shown = progress && { display: progress, ...progressCounts({ runId, catalogue, groups: cfg.groups, collector: prepared.collector, mainThreadRequests: () => client?.requestsSent ?? 0, pacing: () => limiter.current }) };
      stopCounting = shown?.close;
      outcome = await runSuites(prepared, cfg, worker, workers, log, interrupt, shown);
    }
    const { results, suiteErrors, failedSuites, interrupted, stats } = outcome;
    phases.suites_ms = performance.now() - ts;
    // Past the checks: an interrupt now only hurries the report of a finished run.
    stage = 'reporting';

    const tr = performance.now();
    const incompleteReason = interrupted
      ? `the run was interrupted (SIGINT/SIGTERM) before ${results.length ? 'every check finished' : 'its checks began'}`
      : suiteErrors.length
        ? `a suite could not run: ${suiteErrors[0]}`
        : undefined;
    const referenceChecks = catalogue.isReferenceProfile ? checksOf : await referenceChecksOf();
    // A run cut short did not reach some of its checks: the requirements they verify were planned, not absent. (The
    // waiting file holds checks of every group: when it failed, every suite was cut short.)
    const cutSuites = interrupted || failedSuites.includes(WAITING_FILE) ? declaredGroups(cfg) : declaredGroups(cfg).filter((g) => failedSuites.includes(g));
    const why = interrupted
      ? { cause: 'interrupted' as const, reason: 'the run was interrupted before any of its checks ran' }
      : cutSuites.length
        ? { cause: 'suite-error' as const, reason: `its suite could not run (${suiteErrors[0]})` }
        : undefined;
    const cut = why && { ...why, planned: new Set((await planChecks(catalogue, cutSuites)).map((p) => p.def.requirement)) };
    const report = buildReport({
      cfg,
      catalogue,
      referenceChecks,
      runId,
      startedAt,
      phases,
      results,
      baseUrl,
      credentials,
      sandbox,
      incompleteReason,
      ...(cut ? { cut } : {}),
      silentReceiver: cfg.webhookListen && receiver?.count === 0 && results.some((c) => c.group === 'webhooks' && c.status !== 'skipped') ? `${cfg.webhookListen.host}:${cfg.webhookListen.port}` : undefined,
      stats: { requests: stats.requests + (client?.requestsSent ?? 0), created: stats.created },
      throttling: limiter.figures,
      // The run as given: a shard's command names the shard, not the suites it drew.
      repeat: repeatOf(given),
    });
    for (const e of suiteErrors.slice(0, 5)) log(`  suite error: ${redactor.text(e)}`);
    // The Allure files (one per check, and its evidence) are report writing: after the run's duration is taken,
    // before the reports that checksum them.
    const knownHashes = prepared ? flushAllure(prepared, log) : new Map<string, string>();
    const written = await writeReports(report, {
      dir,
      reportRoot: cfg.reportDir,
      html: cfg.html,
      knownHashes,
      documentPath: catalogue.spec.path,
      latencyRatio: cfg.latencyDrift,
      trend: cfg.trend,
      ...(cfg.baseline ? { baselinePath: cfg.baseline } : {}),
    });
    return { report: written.report, written, reportsMs: Math.round(performance.now() - tr) };
  } finally {
    stopAnnouncing?.();
    stopCounting?.();
    // A run that failed after its checks began keeps the Allure results of those it finished.
    if (prepared) flushAllure(prepared, log);
    // A vitest that started up for a run that never began (the sandbox or the preflight failed) is closed unused.
    if (preparing && !ran) await preparing.then((p) => p.vitest.close()).catch(() => undefined);
    await client?.close();
    await receiver?.close();
    await sandbox?.close();
  }
}

interface SuitesOutcome {
  results: CheckResult[];
  suiteErrors: string[];
  /** Suite files (by name: a group, or the waiting file) that ended with an error of their own or never ran. */
  failedSuites: string[];
  interrupted: boolean;
  stats: SuiteStats;
}

interface PreparedSuites {
  vitest: Vitest;
  collector: ResultCollector;
  allure: AllureResultsReporter;
}

/** vitest, its reporters and the suite files in their order, ready to run once the run's config is provided. */
async function prepareSuites(cfg: RunConfig, weight: (g: SuiteSlug) => number, dir: string, workers: number, requirements: RequirementCatalogue, print: (line: string) => void): Promise<PreparedSuites> {
  const [{ createVitest, BaseSequencer }, allure] = await Promise.all([import('vitest/node'), allureReporter(join(dir, ALLURE_RESULTS_DIR), requirements)]);
  // Files start in this order: the checks that wait first (their wait overlaps everything else), then the suites
  // with the most checks, so the small ones fill in at the end (longest first packs the workers best).
  const files = [WAITING_FILE, ...[...cfg.groups].sort((a, b) => weight(b) - weight(a))].map((f) => relative(PACKAGE_ROOT, join(SUITES_DIR, `${f}${SUITE_EXT}`)));
  class InOrder extends BaseSequencer {
    override async sort(specs: TestSpecification[]): Promise<TestSpecification[]> {
      const rank = (t: TestSpecification) => files.indexOf(relative(PACKAGE_ROOT, t.moduleId));
      return [...specs].sort((a, b) => rank(a) - rank(b));
    }
  }
  const collector = new ResultCollector(print);
  const signalsBefore = new Map((['SIGINT', 'SIGTERM'] as const).map((sig) => [sig, new Set(process.listeners(sig))]));
  // vitest's logger exits the process on SIGINT/SIGTERM; the CLI's own handler must decide instead, so the report
  // of an interrupted run is still written. createVitest adds those listeners before it first awaits, so they come
  // off here, before any signal can reach them (and again once it resolves, should a later vitest add them later).
  const dropVitestSignalListeners = () => {
    for (const [sig, before] of signalsBefore) for (const l of process.listeners(sig)) if (!before.has(l)) process.off(sig, l);
  };
  const creating = createVitest(
    'test',
    {
      config: false,
      root: PACKAGE_ROOT,
      dir: PACKAGE_ROOT,
      include: files,
      sequence: { sequencer: InOrder },
      exclude: [],
      watch: false,
      pool: 'threads',
      isolate: false,
      fileParallelism: true,
      maxWorkers: workers,
      maxConcurrency: cfg.concurrency,
      testTimeout: Math.max(30_000, cfg.timeoutMs * 4),
      hookTimeout: Math.max(30_000, cfg.timeoutMs * 4),
      // The compiled harness loads natively in the workers, as it does from an installed package; only the suite
      // files go through vitest's module runner. (Nothing of allure-vitest runs in the workers: see allure-writer.)
      ...(RUNNING_COMPILED ? { server: { deps: { external: [/\/dist\/(src|sandbox|fixtures)\//] } } } : {}),
      reporters: [collector, allure],
      passWithNoTests: true,
      silent: true,
      printConsoleTrace: false,
    },
    // vite's cache (vitest's result cache) in this user's own folder; a fresh one when that cannot be had.
    { cacheDir: privateCacheDir('fsapi-conformance-vite') ?? mkdtempSync(join(tmpdir(), 'fsapi-conformance-vite-')), logLevel: 'silent', server: { watch: null } },
  );
  dropVitestSignalListeners();
  const vitest = await creating;
  dropVitestSignalListeners();
  return { vitest, collector, allure };
}

async function runSuites(
  { vitest, collector }: PreparedSuites,
  cfg: RunConfig,
  worker: WorkerConfig,
  workers: number,
  log: (line: string) => void,
  interrupt: AbortSignal,
  progress: { display: LiveProgress; counts: () => ProgressCounts } | undefined,
): Promise<SuitesOutcome> {
  vitest.provide('fsapi', worker);
  let interrupted = false;
  const cancel = () => void vitest.cancelCurrentRun('keyboard-input');
  const onInterrupt = () => {
    interrupted = true;
    collector.interrupted = true;
    cancel();
  };
  // vitest forgets a cancel that comes while its run starts up (it clears it before queueing the first file): once
  // files are queued, an interrupt that came before is given again.
  collector.onFirstQueued = () => {
    if (interrupted) cancel();
  };
  interrupt.addEventListener('abort', onInterrupt, { once: true });
  try {
    // An interrupt that came while vitest started up (a listener added now would never hear it): no check starts.
    if (interrupt.aborted) interrupted = collector.interrupted = true;
    else {
      log(`running ${plural(cfg.groups.length, 'suite')} (${plural(workers, 'worker')}, ${plural(cfg.concurrency, 'check')} in flight per suite)`);
      const started = vitest.start();
      progress?.display.track(progress.counts);
      // The report's schema validator loads (or, from the sources, compiles) while the workers start up, not after
      // the last check.
      setImmediate(prepareReportValidator);
      await started;
    }
  } finally {
    progress?.display.stop();
    interrupt.removeEventListener('abort', onInterrupt);
    await vitest.close();
  }
  // A file vitest never ran (its worker could not start, say) ends with no result and no error of its own: said here,
  // so that its checks read as not run, not as absent from the document.
  const stopped = interrupted || interrupt.aborted;
  const suiteErrors = [...collector.suiteErrors];
  const failedSuites = new Set(collector.suitesFailed);
  if (!stopped) {
    for (const name of [WAITING_FILE, ...cfg.groups]) {
      if (collector.suitesEnded.has(name)) continue;
      suiteErrors.push(`suite ${name}: it never ran (the test runner could not start it: see its messages above)`);
      failedSuites.add(name);
    }
  }
  return { results: collector.results, suiteErrors, failedSuites: [...failedSuites], interrupted: stopped, stats: collector.stats };
}

/**
 * Writes the Allure results the run has made; once (a second call finds nothing left to write). Returns the
 * SHA-256 of each file written, by its path in the report directory. What could not be written is logged, and
 * the other reports are written all the same.
 */
function flushAllure({ allure }: PreparedSuites, log: (line: string) => void): ReadonlyMap<string, string> {
  const written = new Map<string, string>();
  const unwritten = allure.flush(written);
  if (unwritten) log(`  allure-results: ${unwritten}; the other reports are complete`);
  return written;
}

/** The suites of this shard: whole suites, balanced by their number of checks (src/runner/shards.ts). */
function shardOf(cfg: RunConfig, weight: (g: SuiteSlug) => number, log: (line: string) => void): SuiteSlug[] {
  const { index, count } = cfg.shard!;
  const mine = shardSuites(cfg.groups, weight, count)[index - 1]!;
  log(`shard ${index}/${count}: ${mine.length ? mine.join(', ') : `no suite (${cfg.groups.length} suites for ${count} shards)`}`);
  return mine;
}

/** The generic checks of a suite over the reference profile (for a run with a vendor's document). */
async function referenceChecksOf(): Promise<(suite: SuiteSlug) => CheckDef[]> {
  const { spec } = await loadCatalogue();
  return (suite) => genericChecks(suite, { spec, isReferenceProfile: true });
}

/** The run's suites that are its to verify: a group the capabilities file does not declare is not, whatever its document lacks. */
function declaredGroups(cfg: RunConfig): SuiteSlug[] {
  return cfg.groups.filter((g) => !cfg.capabilities?.groups || !isGroupSlug(g) || cfg.capabilities.groups.includes(g));
}

function defaultPlainHttpUrl(baseUrl: string): string {
  const u = new URL(baseUrl);
  u.protocol = 'http:';
  return u.toString();
}

function buildReport(a: {
  cfg: RunConfig;
  catalogue: Catalogue;
  /** The reference profile's generic checks of a suite: where each requirement's checks are planned. */
  referenceChecks: (suite: SuiteSlug) => CheckDef[];
  runId: string;
  startedAt: Date;
  phases: Phases;
  results: CheckResult[];
  baseUrl: string;
  credentials: Credentials;
  sandbox: RunningSandbox | undefined;
  incompleteReason: string | undefined;
  /** FSAPI_WEBHOOK_LISTEN, when the receiver there got no delivery in a run whose webhook checks waited for some. */
  silentReceiver: string | undefined;
  /** A run cut short (interrupted, a suite that could not run): why, and the requirements its suites cut short planned checks for. */
  cut?: { cause: 'interrupted' | 'suite-error'; reason: string; planned: ReadonlySet<string> };
  stats: SuiteStats;
  throttling: ThrottleFigures;
  repeat: RunReport['run']['repeat'];
}): RunReport {
  const { cfg, catalogue } = a;
  const finished = new Date();
  const checks = a.results
    .map((c) => {
      const at = definitionOf(c, catalogue.requirements.byId.get(c.requirement)?.checks ?? []);
      return at ? { ...c, defined_at: at } : c;
    })
    .sort((x, y) => x.id.localeCompare(y.id));
  const statements = new Map(catalogue.requirements.all.map((r) => [r.id, r.statement]));
  const groups = [...new Set(checks.map((c) => c.group))];
  const durationMs = finished.getTime() - a.startedAt.getTime();
  const waivers = cfg.capabilities?.waive ?? [];
  const securityNote = securitySchemeNote(catalogue.spec.raw);
  const run: RunReport['run'] = {
    id: a.runId,
    seed: cfg.seed,
    started_at: a.startedAt.toISOString(),
    finished_at: finished.toISOString(),
    duration_ms: durationMs,
    phases: { startup_ms: Math.round(a.phases.startup_ms), preflight_ms: Math.round(a.phases.preflight_ms), suites_ms: Math.round(a.phases.suites_ms) },
    strict: cfg.strict,
    groups: cfg.groups.filter((g) => groups.includes(g) || isGroupSlug(g) || g === 'transport' || g === 'versioning'),
    ...(cfg.shard ? { shard: cfg.shard } : {}),
    concurrency: cfg.concurrency,
    requests_sent: a.stats.requests,
    resources_created: {
      count: Object.values(a.stats.created).reduce((n, x) => n + x, 0),
      by_type: a.stats.created,
      label: `customers' e-mail domain @${LABEL_EMAIL_DOMAIN}; metadata fsapi_run=${a.runId} on everything that takes metadata`,
    },
    node: process.version,
    throttling: a.throttling,
    platform: `${process.platform}-${process.arch}`,
    ...(a.incompleteReason ? { incomplete_reason: a.incompleteReason } : {}),
    ...(waivers.length ? { waivers } : {}),
    repeat: a.repeat,
  };
  const absent = absentFromRun(referencePlan(a.referenceChecks), declaredGroups(cfg));
  const assessed = assessRun({
    checks,
    requirements: catalogue.requirements.all,
    waivers,
    absent: a.cut ? absentWhenCut(absent, a.cut.planned, a.cut) : absent,
    operations: catalogue.spec.operations,
    baseUrl: a.baseUrl,
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
      base_url: a.baseUrl,
      environment: cfg.environment,
      embedded: !!a.sandbox,
      tenant_id: a.credentials.tenantId,
      ...(a.sandbox ? { sandbox_faults: a.sandbox.faults } : {}),
    },
    run,
    assessed,
    checks,
    statements,
  });
}
