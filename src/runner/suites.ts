import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { TestSpecification, Vitest } from 'vitest/node';
import { privateCacheDir } from '../cache-dir.js';
import { PACKAGE_ROOT, RUNNING_COMPILED, SUITES_DIR, SUITE_EXT, WAITING_FILE } from '../paths.js';
import { plural } from '../reports/text.js';
import { declaredConflicts } from '../results/document-conflicts.js';
import { ALLURE_RESULTS_DIR, prepareReportValidator } from '../reports/index.js';
import type { CheckResult } from '../results/model.js';
import type { WorkerConfig } from '../harness/worker-config.js';
import { allureReporter, type AllureResultsReporter } from './allure-writer.js';
import { ResultCollector, type SuiteStats } from './collector.js';
import type { LiveProgress, ProgressCounts } from './progress.js';
import { progressCounts, type ProgressSources } from './progress-counts.js';
import { listenForCheckActivity } from '../harness/checks-in-progress.js';
import { shareOf, type RunPlan } from './run-plan.js';
import { partFiles } from './suite-parts.js';

/** The execute phase's hand-off: what the checks found, and what kept some of them from running. */
export interface SuitesOutcome {
  results: CheckResult[];
  suiteErrors: string[];
  /** Suite files (by name: a group, or the waiting file) that ended with an error of their own or never ran. */
  failedSuites: string[];
  interrupted: boolean;
  stats: SuiteStats;
}

/** An interrupt before the checks started: none ran, and the report says so (a fresh outcome each time: callers own it). */
export function noChecksRun(): SuitesOutcome {
  return { results: [], suiteErrors: [], failedSuites: [], interrupted: true, stats: { requests: 0, created: {} } };
}

interface PreparedSuites {
  vitest: Vitest;
  collector: ResultCollector;
  allure: AllureResultsReporter;
  /** The suites that run in parts, with how many: those of the plan whose part files could be made. */
  parted: ReadonlyMap<string, number>;
}

/**
 * The run's suites in vitest: started up ahead when nothing else can fail first (`startUp`), run once with the
 * workers' configuration, their Allure results written once (`flushAllure`). `close` closes a vitest that started
 * up for a run that never began, and writes the Allure results of the checks a failed run did finish.
 */
export class SuiteRunner {
  private starting: Promise<PreparedSuites> | undefined;
  private prepared: PreparedSuites | undefined;
  private ran = false;

  /** `print` writes each suite's result lines (stdout); `log` the rest of what the run says (stderr). */
  constructor(
    private readonly plan: RunPlan,
    private readonly print: (line: string) => void,
    private readonly log: (line: string) => void,
  ) {}

  /** Starts vitest, its reporters and the suite files in their order; `run` awaits it. */
  startUp(): void {
    if (this.starting) return;
    this.starting = prepareSuites(this.plan, this.print, this.log);
    // Handled where it is awaited; this marks it handled should it fail before then.
    this.starting.catch(() => undefined);
  }

  /** Runs every check of the plan's suites; an abort of `interrupt` stops them, keeping the results they gave. */
  async run(worker: WorkerConfig, interrupt: AbortSignal, progress: { display: LiveProgress; sources: ProgressSources } | undefined): Promise<SuitesOutcome> {
    this.startUp();
    this.ran = true;
    const prepared = (this.prepared = await this.starting!);
    const shown = progress && { display: progress.display, ...progressCounts({ ...progress.sources, collector: prepared.collector }) };
    try {
      return await runSuites(prepared, this.plan, worker, this.log, interrupt, shown);
    } finally {
      shown?.close();
    }
  }

  /**
   * Writes the Allure results the run has made; once (a second call finds nothing left to write). Returns the
   * SHA-256 of each file written, by its path in the report directory. What could not be written is logged, and
   * the other reports are written all the same.
   */
  flushAllure(): ReadonlyMap<string, string> {
    const written = new Map<string, string>();
    const unwritten = this.prepared?.allure.flush(written);
    if (unwritten) this.log(`  allure-results: ${unwritten}; the other reports are complete`);
    return written;
  }

  async close(): Promise<void> {
    // A run that failed after its checks began keeps the Allure results of those it finished.
    this.flushAllure();
    if (this.starting && !this.ran) await this.starting.then((p) => p.vitest.close()).catch(() => undefined);
  }
}

/** vitest, its reporters and the suite files in their order, ready to run once the run's config is provided. */
async function prepareSuites({ cfg, weight, dir, workers, catalogue, waiting, maxConcurrency, parts }: RunPlan, print: (line: string) => void, log: (line: string) => void): Promise<PreparedSuites> {
  const [{ createVitest, BaseSequencer }, allure] = await Promise.all([import('vitest/node'), allureReporter(join(dir, ALLURE_RESULTS_DIR), catalogue.requirements, declaredConflicts(catalogue.spec.raw))]);
  // Files start in this order: the checks that wait first (their wait overlaps everything else), then the suites
  // with the most checks, so the small ones fill in at the end (longest first packs the workers best). A suite run
  // in parts is its parts' files, in order (outside the package: given by their absolute paths).
  const parted = new Map<string, number>();
  const suiteFiles = (f: string): string[] => {
    const n = parts.get(f);
    const made = n ? partFiles(f, n) : undefined;
    if (n && !made) log(`  ${f}: in one file (no private folder to keep its ${n} parts in)`);
    if (made) parted.set(f, made.length);
    return made ?? [join(SUITES_DIR, `${f}${SUITE_EXT}`)];
  };
  const absolute = [...(waiting ? [WAITING_FILE] : []), ...[...cfg.groups].sort((a, b) => weight(b) - weight(a))].flatMap(suiteFiles);
  const files = absolute.map((f) => relative(PACKAGE_ROOT, f));
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
      include: absolute.map((f, i) => (files[i]!.startsWith('..') ? f.split(sep).join('/') : files[i]!)),
      sequence: { sequencer: InOrder },
      exclude: [],
      watch: false,
      pool: 'threads',
      isolate: false,
      fileParallelism: true,
      maxWorkers: workers,
      maxConcurrency,
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
  return { vitest, collector, allure, parted };
}

/** How long an interrupted run waits for its workers to end their current checks before it ends their threads. */
const INTERRUPT_GRACE_MS = 1_000;
/** How long a worker on a check has to answer on an interrupt: one that does not is spinning, and is not waited for. */
const ANSWER_MS = 200;
/**
 * The watchdog for a run nobody interrupts: how often it looks, how far past its own time limit a check must be
 * (vitest ends a check at its limit, but only if the worker's event loop turns), and how long that worker then has
 * to answer. Generous: by then the check is its limit and more past its start, and a busy machine answers slowly.
 */
const SPIN_POLL_MS = 5_000;
const SPIN_GRACE_MS = 10_000;
const SPIN_ANSWER_MS = 5_000;

/** Why a run of several suites has one worker: the suite that holds most of its checks (run-plan.ts, DOMINANT_SHARE). */
function whyOneWorker(groups: RunPlan['cfg']['groups'], host: RunPlan['waitsHost'], weight: RunPlan['weight']): string {
  if (!host || groups.length < 2) return '';
  return `: ${host} holds ${Math.floor(100 * shareOf(host, groups, weight))}% of the checks`;
}

/** Where the checks that wait run when no waiting file runs them: first, beside the host suite's own. */
function hostedWaits(groups: RunPlan['cfg']['groups'], host: RunPlan['waitsHost'], n: number): string {
  if (!host || !n) return '';
  const verb = n === 1 ? 'waits for an event starts' : 'wait for an event start';
  return groups.length < 2 ? `; its ${plural(n, 'check')} that ${verb} first, beside them` : `; the ${plural(n, 'check')} that ${verb} first, in the ${host} file beside its own`;
}

/** The suites that run in parts, as the run's opening line names them. */
function inParts(parted: ReadonlyMap<string, number>, partChecks: number): string {
  return [...parted].map(([suite, n]) => `; ${suite} in ${n} parts of at most about ${partChecks} checks, one after another (FSAPI_PART_CHECKS)`).join('');
}

async function runSuites(
  { vitest, collector, parted }: PreparedSuites,
  { cfg, workers, runId, waiting, waitsHost, waitsInSuite, weight }: RunPlan,
  worker: WorkerConfig,
  log: (line: string) => void,
  interrupt: AbortSignal,
  progress: { display: LiveProgress; counts: () => ProgressCounts } | undefined,
): Promise<SuitesOutcome> {
  vitest.provide('fsapi', worker);
  let interrupted = false;
  const cancel = () => void vitest.cancelCurrentRun('keyboard-input');
  let stopWorkers: NodeJS.Timeout | undefined;
  let forced = false;
  // A second cancel is a forced one: vitest ends each worker's thread.
  const force = (why: string) => {
    if (forced) return;
    forced = true;
    clearTimeout(stopWorkers);
    log(`  ${why}: stopping it; the report holds the checks that finished`);
    cancel();
  };
  const activity = listenForCheckActivity(runId);
  const onInterrupt = () => {
    interrupted = true;
    collector.interrupted = true;
    cancel();
    // A worker ends its current checks when told to cancel, but one busy in a synchronous loop never hears it: one
    // that does not answer at once is stopped then, and any other past the grace period.
    void activity.unresponsive(ANSWER_MS).then((silent) => {
      if (silent.length) force(`${silent.length === 1 ? `worker ${silent[0]} is` : `workers ${silent.join(', ')} are`} busy in synchronous code and cannot hear the interrupt`);
    });
    stopWorkers = setTimeout(() => force(`a worker did not stop within ${INTERRUPT_GRACE_MS / 1000} s of the interrupt`), INTERRUPT_GRACE_MS);
    stopWorkers.unref();
  };
  // vitest forgets a cancel that comes while its run starts up (it clears it before queueing the first file): once
  // files are queued, an interrupt that came before is given again.
  collector.onFirstQueued = () => {
    if (interrupted) cancel();
  };
  interrupt.addEventListener('abort', onInterrupt, { once: true });
  // A worker in synchronous code past its check's limit, that does not answer, is spinning: nothing else would ever
  // end the run. It is stopped as an interrupt would stop it, and the report says which check held it (the suite's
  // defect, never the target's failure).
  let spun: string | undefined;
  let looking = false;
  const watchdog = setInterval(() => {
    if (forced || interrupted || looking) return;
    const late = activity.overdue(SPIN_GRACE_MS);
    if (!late.length) return;
    looking = true;
    void activity.unresponsive(SPIN_ANSWER_MS).then((silent) => {
      looking = false;
      const stuck = late.find((c) => silent.includes(c.worker));
      if (!stuck || forced || interrupted) return;
      const others = stuck.others.length ? ` (${plural(stuck.others.length, 'other check')} in flight there: ${stuck.others.slice(0, 3).join('; ')}${stuck.others.length > 3 ? '; ...' : ''})` : '';
      spun = `worker ${stuck.worker} is stuck in synchronous code and does not answer, ${Math.round(stuck.forMs / 1000)} s into a check whose limit is ${Math.round(stuck.limitMs / 1000)} s; it last started ${stuck.lastStarted}${others}. A defect of the suite, not of the target: please report it with this run's repeat command`;
      collector.interrupted = true;
      cancel();
      force(spun);
    });
  }, SPIN_POLL_MS);
  watchdog.unref();
  try {
    // An interrupt that came while vitest started up (a listener added now would never hear it): no check starts.
    if (interrupt.aborted) interrupted = collector.interrupted = true;
    else {
      // One line per suite below, and one more for the waiting file: named here, so the count and the lines agree.
      const also = waiting ? ` + ${WAITING_FILE} (their checks that wait for an event, side by side; ` : ' (';
      log(`running ${plural(cfg.groups.length, 'suite')}${also}${plural(workers, 'worker')}${whyOneWorker(cfg.groups, waitsHost, weight)}, ${plural(cfg.concurrency, 'check')} in flight per suite${hostedWaits(cfg.groups, waitsHost, waitsInSuite)}${inParts(parted, cfg.partChecks)})`);
      const started = vitest.start();
      progress?.display.track(progress.counts);
      // The report's schema validator loads (or, from the sources, compiles) while the workers start up, not after
      // the last check.
      setImmediate(prepareReportValidator);
      await started;
    }
  } finally {
    clearInterval(watchdog);
    clearTimeout(stopWorkers);
    forced = true;
    activity.close();
    progress?.display.stop();
    interrupt.removeEventListener('abort', onInterrupt);
    await vitest.close();
  }
  // A file vitest never ran (its worker could not start, say) ends with no result and no error of its own: said here,
  // so that its checks read as not run, not as absent from the document.
  const stopped = interrupted || interrupt.aborted;
  const suiteErrors = spun ? [`the run was stopped: ${spun}`, ...collector.suiteErrors] : [...collector.suiteErrors];
  const failedSuites = new Set(collector.suitesFailed);
  if (!stopped) {
    for (const name of [...(waiting ? [WAITING_FILE] : []), ...cfg.groups]) {
      if (collector.suitesEnded.has(name)) continue;
      // Stopped by the watchdog, a suite that had not ended was cut short with the run: said once, above.
      if (!spun) suiteErrors.push(`suite ${name}: it never ran (the test runner could not start it: see its messages above)`);
      failedSuites.add(name);
    }
  }
  return { results: collector.results, suiteErrors, failedSuites: [...failedSuites], interrupted: stopped, stats: collector.stats };
}
