import { basename } from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { CheckResult } from '../results/model.js';
import { explorationTotals } from '../results/exploration.js';
import type { SuiteStats } from '../vitest-suite/suite.js';
import { suiteOfFile } from './suite-parts.js';
import { StringPool } from './string-pool.js';

// Defined by the suites that report it; named here too for the runner's modules.
export type { SuiteStats };

/** Checks finished so far, and how many of them failed or errored. */
export interface CheckCounts {
  done: number;
  failed: number;
  errors: number;
  /** The exploration phase so far, once one of its checks is done. */
  explored?: { requests: number; ms: number };
}

/**
 * Gathers the CheckResult each test leaves in its meta, prints a line per suite as each finishes, and counts
 * what is done for the live progress line. A test without a result (a crash before the check ran) becomes an
 * `error`.
 */
export class ResultCollector implements Reporter {
  /** By vitest test id: a cancelled run reports some test cases twice. */
  private readonly byTest = new Map<string, CheckResult>();
  readonly suiteErrors: string[] = [];
  private readonly suiteStats = new Map<string, SuiteStats>();
  /** Results by the file that ran them, for the line each file prints as it ends. */
  private readonly byModule = new Map<string, Map<string, CheckResult>>();
  /** Tests ended, by id (counted once, as results are). */
  private readonly ended = new Set<string>();
  /** The results are kept to the run's end: their repeated strings, once. */
  private readonly strings = new StringPool();

  /** Suite files that ended, by suite name; and those that ended with an error of their own. */
  readonly suitesEnded = new Set<string>();
  readonly suitesFailed = new Set<string>();
  /** Set once the run is interrupted: a suite that ends with checks it never ran then says so, not "ok". */
  interrupted = false;
  /** Called once, when the run queues its first file. */
  onFirstQueued: (() => void) | undefined;

  /** `print` writes one line of output (through the live progress, when it is shown). */
  constructor(private readonly print: (line: string) => void) {}

  onTestModuleQueued(): void {
    const first = this.onFirstQueued;
    this.onFirstQueued = undefined;
    first?.();
  }

  onTestCaseResult(test: TestCase): void {
    const meta = test.meta() as { fsapi?: CheckResult; fsapi_stats?: SuiteStats & { suite: string } };
    const st = meta.fsapi_stats;
    if (st) this.mergeStats(st.suite, st);
    const state = test.result().state;
    if (meta.fsapi) {
      this.strings.share(meta.fsapi);
      this.byTest.set(test.id, meta.fsapi);
      const inModule = this.byModule.get(test.module.moduleId) ?? new Map<string, CheckResult>();
      this.byModule.set(test.module.moduleId, inModule.set(test.id, meta.fsapi));
    } else if (state === 'failed') {
      // A test that failed without leaving a result crashed outside its check (a suite-level fault).
      // Tests without a result that were skipped are the ones an interrupted run never started.
      const err = test.result().errors?.[0];
      this.suiteErrors.push(`${test.name}: ${err?.message ?? 'the test ended without a result'}`);
    }
    this.ended.add(test.id);
  }

  /**
   * A suite's running totals, from one of its checks: the largest request count so far, and each changed creation
   * count (totals, which only grow: the largest wins, whatever order the checks' results arrive in).
   */
  private mergeStats(suite: string, st: SuiteStats): void {
    const into = this.suiteStats.get(suite) ?? { requests: 0, created: {} };
    into.requests = Math.max(into.requests, st.requests);
    for (const [op, n] of Object.entries(st.created)) into.created[op] = Math.max(into.created[op] ?? 0, n);
    this.suiteStats.set(suite, into);
  }

  get counts(): CheckCounts {
    const out: CheckCounts = { done: this.ended.size, failed: 0, errors: 0 };
    for (const r of this.byTest.values()) {
      if (r.status === 'failed') out.failed++;
      else if (r.status === 'error') out.errors++;
    }
    const explored = explorationTotals(this.byTest.values());
    if (explored) out.explored = { requests: explored.requests + explored.shrinkRequests, ms: explored.ms };
    return out;
  }

  get results(): CheckResult[] {
    return [...this.byTest.values()];
  }

  /** Parts ended so far of each suite run in parts: the suite has ended once all have. */
  private readonly partsEnded = new Map<string, number>();

  onTestModuleEnd(module: TestModule): void {
    const file = suiteOfFile(module.moduleId);
    const suite = file?.suite ?? basename(module.moduleId);
    const ended = (this.partsEnded.get(suite) ?? 0) + 1;
    this.partsEnded.set(suite, ended);
    if (!file?.part || ended === file.part.count) this.suitesEnded.add(suite);
    const label = file?.part ? `${suite} ${file.part.index}/${file.part.count}` : suite;
    for (const e of module.errors()) {
      this.suiteErrors.push(`suite ${suite}: ${e.message}`);
      this.suitesFailed.add(suite);
    }
    const mine = [...(this.byModule.get(module.moduleId)?.values() ?? [])];
    const counts = { passed: 0, failed: 0, warning: 0, skipped: 0, error: 0 };
    for (const r of mine) counts[r.status]++;
    const cut = this.interrupted ? [...module.children.allTests()].length - mine.length : 0;
    const marks = mine.some((r) => r.status === 'failed' || r.status === 'error') ? 'x' : mine.some((r) => r.status === 'warning') ? '!' : 'ok';
    const parts = Object.entries(counts).filter(([, n]) => n > 0).map(([s, n]) => `${n} ${s}`);
    const tally = cut > 0 ? `interrupted: ${[...parts, `${cut} not run`].join(', ')}` : parts.join(', ');
    const line = `  ${(cut > 0 ? '-' : marks).padEnd(3)} ${label.padEnd(18)} ${String(mine.length).padStart(4)} check${mine.length === 1 ? ' ' : 's'}  ${tally}  (${((module.diagnostic().duration ?? 0) / 1000).toFixed(1)} s)`;
    this.print(line);
  }

  /**
   * Requests sent so far, summed over suites: each suite's latest total from its results or, fresher while a
   * long check runs, from `live` (the totals its worker posts, src/harness/request-totals.ts).
   */
  requestsSoFar(live: ReadonlyMap<string, number>): number {
    let n = 0;
    for (const suite of new Set([...this.suiteStats.keys(), ...live.keys()])) n += Math.max(this.suiteStats.get(suite)?.requests ?? 0, live.get(suite) ?? 0);
    return n;
  }

  /** Requests sent and resources created, summed over suites (each suite's latest running totals). */
  get stats(): SuiteStats {
    const out: SuiteStats = { requests: 0, created: {} };
    for (const st of this.suiteStats.values()) {
      out.requests += st.requests;
      for (const [op, n] of Object.entries(st.created)) out.created[op] = (out.created[op] ?? 0) + n;
    }
    return out;
  }
}
