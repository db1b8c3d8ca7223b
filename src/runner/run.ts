import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { secretsOf, type RunConfig } from '../config/run-config.js';
import { runLabel } from '../../fixtures/factories.js';
import type { TargetClient } from '../http/client.js';
import { RateLimiter } from '../http/rate-limiter.js';
import { Redactor } from '../http/redact.js';
import type { WorkerConfig } from '../harness/worker-config.js';
import { beginRun, endRun, type RunStart } from './begin.js';
import { Closers } from './closers.js';
import { announceInterrupts, type RunStage } from './interrupt.js';
import type { LiveProgress } from './progress.js';
import { reportRun, type PhaseTimes, type RunOutcome } from './report-run.js';
import { rerunPlan } from './rerun-plan.js';
import { boundHeapGrowth } from './heap-growth.js';
import { checksIn, planRun, type RunPlan } from './run-plan.js';
import { noChecksRun, SuiteRunner } from './suites.js';
import { openTarget, type Target } from './target.js';

export type { RunOutcome } from './report-run.js';

/** A run id that sorts by time and never repeats: 20261120-231501-a1b2c3. */
export function newRunId(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}-${randomBytes(3).toString('hex')}`;
}

/**
 * One conformance run: start the embedded sandbox when no target is configured, preflight, run the suites
 * with vitest, write the reports. Interrupts (SIGINT/SIGTERM) stop the suites, and the report written then
 * holds what was learnt with verdict `incomplete`. `progress`, when given, shows the checks' progress while
 * they run (`log` should then write through it). `begun` is called once the target is up and preflighted: from
 * then on the run is no longer refused, only interrupted.
 */
export async function runConformance(given: RunConfig, log: (line: string) => void, interrupt: AbortSignal, start: RunStart = beginRun(given), progress?: LiveProgress, result: (line: string) => void = log, begun?: () => void): Promise<RunOutcome> {
  try {
    return await conduct(given, { log, result, begun }, interrupt, start, progress);
  } finally {
    // Whatever happened before the run used it (a bad spec, say), the sandbox's thread does not outlive the run.
    await endRun(start);
  }
}

/** The run's phases, each handing the next what it needs: plan → target → preflight → execute → report. */
async function conduct(given: RunConfig, { log, result, begun }: { log: (line: string) => void; result: (line: string) => void; begun: (() => void) | undefined }, interrupt: AbortSignal, start: RunStart, progress: LiveProgress | undefined): Promise<RunOutcome> {
  const plan = await planRun(given, newRunId(start.startedAt), log);
  boundHeapGrowth(checksIn(plan.cfg.groups, plan.weight));
  const phases: PhaseTimes = { startup_ms: 0, preflight_ms: 0, suites_ms: 0 };
  // One pacing for the whole run, shared with every worker: a 429 any of them sees slows them all.
  const throttle = RateLimiter.shared(plan.cfg.pacing);
  const limiter = new RateLimiter(throttle);
  const closers = new Closers();
  // The suites' lines are results (stdout); the rest of what the run says is diagnostics (stderr).
  const suites = new SuiteRunner(plan, result, log);
  closers.add(() => suites.close());
  let stage: RunStage = 'checks';
  try {
    // Against the embedded sandbox nothing outside can fail, so vitest starts up while the sandbox thread does (each
    // takes about half a second). A configured target is preflighted first, so a bad one fails before vitest loads.
    if (!plan.cfg.target) suites.startUp();
    const target = await openTarget(plan.cfg, start.sandbox, closers);
    phases.startup_ms = performance.now() - start.t0;
    // From here a report can always be written: an interrupt (also one that came while the run started) is
    // announced, and the run goes straight to its report.
    closers.add(announceInterrupts(interrupt, () => stage, log));
    const redactor = new Redactor(secretsOf(target.credentials));

    const tp = performance.now();
    const client = await preflightPhase(plan, target, { redactor, limiter, interrupt }, closers);
    if (client) phases.preflight_ms = performance.now() - tp;
    begun?.();

    mkdirSync(plan.dir, { recursive: true });
    const ts = performance.now();
    // An interrupt before the checks start leaves none run: the report says so.
    const outcome = interrupt.aborted
      ? noChecksRun()
      : await suites.run(workerConfig(plan, target, throttle), interrupt, progress && {
          display: progress,
          sources: { runId: plan.runId, catalogue: plan.catalogue, groups: plan.cfg.groups, mainThreadRequests: () => client?.requestsSent ?? 0, pacing: () => limiter.current },
        });
    phases.suites_ms = performance.now() - ts;
    // Past the checks: an interrupt now only hurries the report of a finished run.
    stage = 'reporting';

    return await reportRun(plan, target, outcome, {
      startedAt: start.startedAt,
      phases,
      mainThreadRequests: client?.requestsSent ?? 0,
      throttling: limiter.figures,
      writeAllure: () => suites.flushAllure(),
      redactor,
    }, log);
  } finally {
    await closers.closeAll();
  }
}

/**
 * A configured target is preflighted: one request, so a dead or misconfigured target fails before any check. The
 * embedded sandbox is not: the run started it, and it gave its own address, certificate and keys once it listened,
 * so there is nothing the one request could find wrong that the checks would not (and the main thread then never
 * loads an HTTP client: ~0.1 s less before the checks). Returns the client it used, if any.
 */
async function preflightPhase({ cfg, catalogue }: RunPlan, target: Target, { redactor, limiter, interrupt }: { redactor: Redactor; limiter: RateLimiter; interrupt: AbortSignal }, closers: Closers): Promise<TargetClient | undefined> {
  if (!cfg.target || interrupt.aborted) return undefined;
  const [{ TargetClient }, { preflight }] = await Promise.all([import('../http/client.js'), import('./preflight.js')]);
  const { baseUrl, caPem, credentials } = target;
  const client = new TargetClient({ baseUrl, ...(caPem ? { caPem } : {}), timeoutMs: cfg.timeoutMs, maxResponseBytes: cfg.maxResponseBytes, redactor, limiter, signal: interrupt });
  closers.add(() => client.close());
  // An interrupt ends the preflight's request: what it then says of the target is no finding.
  await preflight(client, catalogue.spec, credentials, baseUrl).catch((e: unknown) => {
    if (!interrupt.aborted) throw e;
  });
  return client;
}

/** What every worker is given: the target, the run's settings and the pacing they share. */
function workerConfig({ runId, cfg, given, catalogue, exploration, waitsHost, maxConcurrency }: RunPlan, target: Target, throttle: SharedArrayBuffer): WorkerConfig {
  return {
    runId,
    seed: cfg.seed,
    strict: cfg.strict,
    environment: cfg.environment,
    allowLiveWrites: cfg.allowLiveWrites,
    embedded: !!target.sandbox,
    baseUrl: target.baseUrl,
    ...(target.caPem ? { caPem: target.caPem } : {}),
    credentials: target.credentials,
    plainHttpUrl: target.plainHttpUrl,
    ...(target.inspectUrl ? { receiver: { inspectUrl: target.inspectUrl } } : {}),
    specPath: catalogue.spec.path,
    ...(given.bindingPath ? { bindingPath: given.bindingPath } : {}),
    isReferenceProfile: catalogue.isReferenceProfile,
    ...(cfg.capabilities ? { capabilities: cfg.capabilities } : {}),
    timeoutMs: cfg.timeoutMs,
    maxResponseBytes: cfg.maxResponseBytes,
    throttle,
    checksInFlight: maxConcurrency,
    idempotencyParallel: cfg.idempotencyParallel,
    webhookWaitMs: cfg.webhookWaitMs,
    replayDelayMs: cfg.replayDelayMs,
    explore: cfg.explore,
    exploreAllocation: exploration,
    groups: cfg.groups,
    ...(waitsHost ? { waitsHost } : {}),
    ...(cfg.traceFile ? { traceFile: cfg.traceFile } : {}),
    ...(cfg.baseline ? { rerun: rerunPlan(cfg.baseline, cfg.retries) } : {}),
    label: runLabel(runId),
  };
}
