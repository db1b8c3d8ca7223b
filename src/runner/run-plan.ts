import { join, relative } from 'node:path';
import type { SuiteSlug } from '../catalogue/groups.js';
import { harnessWorkers, type RunConfig } from '../config/run-config.js';
import { genericChecks } from '../checks/index.js';
import { runSuites } from '../checks/planner.js';
import type { CheckDef } from '../harness/check.js';
import { loadCatalogue, type Catalogue } from '../binding/catalogue-in-use.js';
import { exploreAllocation, type ExploreAllocation } from '../results/exploration.js';
import { partsOf } from './suite-parts.js';

/** The first phase's hand-off: what the run will check, with what, and where its report goes. */
export interface RunPlan {
  runId: string;
  /** The run as given: a shard's command names the shard, not the suites it drew. */
  given: RunConfig;
  /** The run as it goes: its groups narrowed to the suites the document has and to this shard's. */
  cfg: RunConfig;
  catalogue: Catalogue;
  /** A suite's generic checks, planned once: they weigh the suites and tell coverage where each requirement's checks are. */
  checksOf: (suite: SuiteSlug) => CheckDef[];
  /** A suite's weight is its number of checks: it balances shards and orders the files of a run. */
  weight: (suite: SuiteSlug) => number;
  /**
   * Whether the waiting file runs: only when a planned check waits in a run of two suites or more, or the run has no
   * suite (a worker loads the whole harness to run it, which a run of suites without such checks, such as transport or
   * webhooks alone, would pay for nothing; a run of one suite runs them in its own file, `waitsInSuite`).
   */
  waiting: boolean;
  /**
   * The suite whose file runs the checks that wait, of every suite, instead of the waiting file: the run's one suite,
   * or one that holds most of its checks (DOMINANT_SHARE; a vendor's document, whose operations are nearly all in
   * `unbound`). Such a run has one worker: a second would load the whole harness, the document and its validators
   * only to sit out the wait and run the few checks of the other suites (about a sixth of a one-suite run's CPU, a
   * quarter of a 50-operation vendor run's).
   */
  waitsHost: SuiteSlug | undefined;
  /** The checks that wait, when the host runs them: started first beside its other checks, in slots of their own (`maxConcurrency`). */
  waitsInSuite: number;
  /** Checks in flight per file: the run's concurrency, plus the slots of the checks that wait in their suite's file. */
  maxConcurrency: number;
  workers: number;
  /** The suites run in parts, with how many (src/runner/suite-parts.ts); every other suite is one file. */
  parts: ReadonlyMap<string, number>;
  /** This run's report directory. */
  dir: string;
  /** What the exploration's total budget leaves each operation of this plan: decided here, before any request. */
  exploration: ExploreAllocation;
}

/**
 * A suite holding this share of a run's checks hosts the others' checks that wait, on the run's one worker: a second
 * worker then costs more than it gains. Coinbase's document without a binding (`unbound` 86% of the checks) against
 * a Prism mock: one worker took 0.80x the CPU and 0.88x the wall time (3 alternated pairs). A reference run's
 * largest suite, customers, holds 11% of a full run's checks; a vendor's `unbound` 98% of Stripe's.
 */
export const DOMINANT_SHARE = 0.8;

/** Loads the document (and binding) in use, says what they warn of, and chooses the run's suites. */
export async function planRun(given: RunConfig, runId: string, log: (line: string) => void): Promise<RunPlan> {
  const catalogue = await loadCatalogue({ ...(given.specPath ? { specPath: given.specPath } : {}), ...(given.bindingPath ? { bindingPath: given.bindingPath } : {}) });
  if (given.bindingPath) log(catalogue.binding.summary(relative(process.cwd(), given.bindingPath) || given.bindingPath));
  for (const w of catalogue.spec.warnings) log(`warning: ${catalogue.spec.path}#${w.pointer}: ${w.message}`);
  const forPlanning = { spec: catalogue.spec, isReferenceProfile: catalogue.isReferenceProfile, binding: catalogue.binding };
  const planned = new Map<SuiteSlug, CheckDef[]>();
  const checksOf = (g: SuiteSlug) => planned.get(g) ?? planned.set(g, genericChecks(g, forPlanning)).get(g)!;
  const weight = (g: SuiteSlug) => checksOf(g).length;
  const groups = runSuites(given.groups, catalogue.spec, weight, given.shard);
  if (given.shard) {
    const { index, count } = given.shard;
    log(`shard ${index}/${count}: ${groups.length ? groups.join(', ') : `no suite (${runSuites(given.groups, catalogue.spec, weight).length} suites for ${count} shards)`}`);
  }
  const cfg = { ...given, groups };
  const waits = groups.flatMap((g) => checksOf(g).filter((d) => d.waits)).length;
  const waitsHost = hostOf(groups, weight);
  const waitsInSuite = waitsHost ? waits : 0;
  // A shard with no suite still runs the (empty) waiting file: vitest refuses a run of no file at all.
  const waiting = groups.length === 0 || (waits > 0 && !waitsHost);
  const exploration = exploreAllocation(cfg.explore, cfg.exploreTotal, groups.flatMap(checksOf));
  const files = groups.length + (waiting ? 1 : 0);
  const workers = waitsHost ? 1 : harnessWorkers(files);
  const parts = new Map(groups.map((g) => [g, partsOf(g, weight(g), cfg.partChecks, workers)] as const).filter(([, n]) => n > 1));
  return { runId, given, cfg, catalogue, checksOf, weight, waiting, waitsHost, waitsInSuite, maxConcurrency: cfg.concurrency + waitsInSuite, workers, parts, dir: join(cfg.reportDir, runId), exploration };
}

/** The suite that hosts the checks that wait: the one suite, or one holding DOMINANT_SHARE of the checks; else none. */
function hostOf(groups: readonly SuiteSlug[], weight: (g: SuiteSlug) => number): SuiteSlug | undefined {
  if (groups.length <= 1) return groups[0];
  const heaviest = groups.reduce((a, b) => (weight(b) > weight(a) ? b : a));
  return shareOf(heaviest, groups, weight) >= DOMINANT_SHARE ? heaviest : undefined;
}

/** The checks a run of `groups` plans: the sum of their weights. */
export function checksIn(groups: readonly SuiteSlug[], weight: (g: SuiteSlug) => number): number {
  return groups.reduce((n, g) => n + weight(g), 0);
}

/** A suite's share of the checks of a run of `groups`; 0 when they plan no generic check at all (nothing to share out). */
export function shareOf(suite: SuiteSlug, groups: readonly SuiteSlug[], weight: (g: SuiteSlug) => number): number {
  const total = checksIn(groups, weight);
  return total > 0 ? weight(suite) / total : 0;
}
