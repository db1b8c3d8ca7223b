import { writeFileSync } from 'node:fs';
import { ALL_SUITES } from '../../config/run-config.js';
import type { SuiteSlug } from '../../catalogue/groups.js';
import type { Level } from '../../catalogue/levels.js';
import type { Catalogue } from '../../binding/catalogue-in-use.js';
import { UsageError } from '../../errors.js';
import { INSTALLED } from '../../paths.js';
import { DEFAULT_PARALLEL, judge, pool, runOnce, type FaultInfo, type FaultResult, type RunOutcome } from '../../selfcheck/matrix.js';
import { batchFaults, coveringSuites, DOC_PATH, readRecord, RECORD_PATH, recordOf, renderDoc } from '../../selfcheck/record.js';
import { type CommandSpec } from '../command.js';
import { nearest } from '../../nearest.js';
import { plural } from '../../plural.js';

/** The catalogue and the planner, loaded when a command runs (not when the CLI loads, for --help's sake). */
async function planning() {
  const [{ loadCatalogue }, { planChecks }, { creatorOf, isList }] = await Promise.all([import('../../binding/catalogue-in-use.js'), import('../../checks/planner.js'), import('../../checks/support.js')]);
  return { loadCatalogue, planChecks, creatorOf, isList };
}

export interface SelfcheckSummary {
  clean: RunOutcome;
  cleanOk: boolean;
  results: FaultResult[];
  ok: boolean;
}

type SelfcheckOptions = { full: boolean; faults?: string[]; parallel: number; seed: number; log: (s: string) => void; result?: (s: string) => void };
type Job = { faults: FaultInfo[]; suites: SuiteSlug[] };

/**
 * Runs the matrix: the clean sandbox over the suites the faults run over, and each fault (over every suite with
 * `full`). `result` gets the verdict of each run (stdout, as `run` prints its suite lines), `log` the progress
 * between them (stderr).
 */
export async function selfcheck(opts: SelfcheckOptions): Promise<SelfcheckSummary> {
  const { FAULTS } = await import('../../../sandbox/faults.js');
  const catalogue = await (await planning()).loadCatalogue();
  const faults = chosenFaults(
    FAULTS.map((f) => ({ name: f.name, breaks: [...f.breaks], description: f.description, ...(f.area ? { area: f.area } : {}) })),
    opts.faults,
  );
  // Jobs: one per fault over every suite (--full), or batches of non-interfering faults over the fewest suites
  // that cover each fault's recorded catching checks.
  const cover = new Map<string, SuiteSlug[]>();
  const jobs = opts.full ? faults.map((f) => ({ faults: [f], suites: ALL_SUITES })) : await batchedJobs(faults, catalogue, cover);
  opts.log(
    `self-verification: the clean sandbox and ${plural(faults.length, 'fault')} in ${plural(jobs.length, 'run')} (${opts.full ? 'each fault alone over every suite' : 'non-interfering faults together, over the suites that cover each'}; ${opts.parallel} at a time)`,
  );
  const tally = new Tally(opts, new Map(catalogue.requirements.all.map((r) => [r.id, r.level])));
  const { clean, retry, wide } = await runJobs(jobs, tally);
  // Alone over its covering suites; a fault still missed there is run over every suite, as it was recorded, since
  // a catching check may need data that another suite made.
  const missedAlone = await tally.alone(retry, (f) => cover.get(f.name) ?? ALL_SUITES, 'alone');
  await tally.alone([...wide, ...missedAlone], () => ALL_SUITES, 'alone over all suites');
  const order = new Map(faults.map((f, i) => [f.name, i]));
  const results = [...tally.results].sort((a, b) => order.get(a.fault.name)! - order.get(b.fault.name)!);
  const cleanOk = !clean.problem && clean.verdict === 'conformant' && Object.keys(clean.failing).length === 0 && clean.preconditions.length === 0;
  return { clean, cleanOk, results, ok: cleanOk && results.every((r) => r.ok) };
}

/** The faults asked for (every fault when none is named); an unknown name is refused with its nearest spelling. */
function chosenFaults(all: FaultInfo[], names: string[] | undefined): FaultInfo[] {
  if (!names?.length) return all;
  for (const name of names) {
    if (!all.some((f) => f.name === name)) {
      const near = nearest(name, all.map((f) => f.name));
      throw new UsageError(`unknown fault ${name}${near ? ` (did you mean ${near}?)` : ''}`, { fix: 'see docs/sandbox.md for the fault switches' });
    }
  }
  return all.filter((f) => names.includes(f.name));
}

/** Batches of non-interfering faults, each over the fewest suites that cover its recorded catching checks (set in `cover`). */
async function batchedJobs(faults: FaultInfo[], catalogue: Catalogue, cover: Map<string, SuiteSlug[]>): Promise<Job[]> {
  const { planChecks, creatorOf, isList } = await planning();
  const record = readRecord();
  const sizes = new Map<string, number>();
  // A check that says it judges what the run's other checks made, or one on a list its own suite cannot fill (no
  // create on its path: webhook deliveries, transactions), caught a fault in the full run, but need not alone.
  const leansOnOthers = new Set<string>();
  for (const p of await planChecks(catalogue)) {
    sizes.set(p.suite, (sizes.get(p.suite) ?? 0) + 1);
    const op = catalogue.spec.operations.find((o) => o.operationId === p.def.operation);
    if (p.def.leansOnRun || (op && isList(op) && !creatorOf(catalogue.spec, op))) leansOnOthers.add(p.id);
  }
  for (const f of faults) {
    const rec = record.faults.find((r) => r.name === f.name);
    if (!rec || [...rec.breaks].sort().join() !== [...f.breaks].sort().join()) {
      throw new UsageError(`the recorded fault matrix is stale for ${f.name}`, { file: RECORD_PATH, fix: 'record it again with `fsapi-conformance selfcheck --full --write`' });
    }
    const c = coveringSuites(rec, (x) => sizes.get(x) ?? 0, (id) => !leansOnOthers.has(id));
    cover.set(f.name, c.length ? c : ALL_SUITES);
  }
  return batchFaults(faults, (f) => cover.get(f.name)!, (x) => sizes.get(x) ?? 0).map((batch) => ({ faults: batch, suites: [...new Set(batch.flatMap((f) => cover.get(f.name)!))].sort() }));
}

/** The results so far, and how each run's outcome is judged and told. */
class Tally {
  readonly results: FaultResult[] = [];
  readonly result: (s: string) => void;

  constructor(
    readonly opts: SelfcheckOptions,
    readonly levels: Map<string, Level>,
  ) {
    this.result = opts.result ?? opts.log;
  }

  /** Only missed (nothing unexpected, nothing wrong with the run), over fewer than every suite. */
  widens(r: FaultResult): boolean {
    return !r.ok && r.unexpected.length === 0 && !r.outcome.problem && r.suites.length < ALL_SUITES.length;
  }

  show(suites: SuiteSlug[]): string {
    return suites.length === ALL_SUITES.length ? 'all suites' : suites.join(',');
  }

  /** A fault's result, kept and told; or, missed over fewer than every suite, set `aside` to run over every suite. */
  settle(r: FaultResult, secs: string, aside: FaultInfo[]): void {
    if (this.widens(r)) {
      this.opts.log(`  ..   ${r.fault.name} missed ${r.missed.join(', ')} over ${this.show(r.suites)} alone; running it over all suites`);
      aside.push(r.fault);
      return;
    }
    this.keep(r, secs);
  }

  keep(r: FaultResult, secs: string): void {
    this.results.push(r);
    const detail = [r.missed.length ? `missed ${r.missed.join(', ')}` : '', r.unexpected.length ? `unexpected ${r.unexpected.join(', ')}` : '', r.outcome.verdict !== r.expectedVerdict ? `verdict ${r.outcome.verdict}, expected ${r.expectedVerdict}` : '', r.outcome.problem ?? '']
      .filter(Boolean)
      .join('; ');
    this.result(`  ${r.ok ? 'ok  ' : 'FAIL'} ${r.fault.name.padEnd(34)} ${r.fault.breaks.join(', ')}${detail ? ` -- ${detail}` : ''} [${this.show(r.suites)}] (${secs})`);
  }

  /** Runs each fault alone over `suitesOf` it; answers those still missed there, to run over every suite. */
  async alone(list: FaultInfo[], suitesOf: (f: FaultInfo) => SuiteSlug[], note: string): Promise<FaultInfo[]> {
    const widen: FaultInfo[] = [];
    await pool(
      list,
      this.opts.parallel,
      (f) => runOnce({ faults: [f.name], suites: suitesOf(f), seed: this.opts.seed }),
      (outcome, i) => {
        const f = list[i]!;
        this.settle(judge(f, suitesOf(f), outcome, this.levels), `${(outcome.durationMs / 1000).toFixed(1)} s, ${note}`, widen);
      },
    );
    return widen;
  }
}

/**
 * The clean run and every job, judged as they finish: the faults of a batch that failed together are answered in
 * `retry` (each to be proven alone), a fault missed over its covering suites in `wide` (to run over every suite).
 */
async function runJobs(jobs: Job[], tally: Tally): Promise<{ clean: RunOutcome; retry: FaultInfo[]; wide: FaultInfo[] }> {
  const { opts, levels } = tally;
  let clean: RunOutcome | undefined;
  const retry: FaultInfo[] = [];
  const wide: FaultInfo[] = [];
  // The clean control runs over the suites the faults run over (every suite for the whole matrix): `--faults F`
  // proves F without a run of every suite beside it.
  const covered = new Set(jobs.flatMap((j) => j.suites));
  const all: Job[] = [{ faults: [], suites: ALL_SUITES.filter((s) => covered.has(s)) }, ...jobs];
  await pool(
    all,
    opts.parallel,
    (job) => runOnce({ faults: job.faults.map((f) => f.name), suites: job.suites, seed: opts.seed }),
    async (outcome, i) => {
      const job = all[i]!;
      const secs = `${(outcome.durationMs / 1000).toFixed(1)} s`;
      if (job.faults.length === 0) {
        clean = outcome;
        const bad = [...Object.keys(outcome.failing), ...outcome.preconditions.slice(0, 3)];
        tally.result(`  ${bad.length || outcome.problem ? 'FAIL' : 'ok  '} clean sandbox: ${outcome.checks} checks, ${outcome.verdict}${bad.length ? `; failing: ${bad.join(', ')}` : ''}${outcome.problem ? `; ${outcome.problem}` : ''} [${tally.show(job.suites)}] (${secs})`);
        return;
      }
      // Missed alone over its covering suites: run over every suite before it is judged, as a batch's fault is.
      if (job.faults.length === 1) return tally.settle(judge(job.faults[0]!, job.suites, outcome, levels), secs, wide);
      // A batch: each fault must fail all of its requirements; nothing outside their union may fail.
      const union: FaultInfo = { name: job.faults.map((f) => f.name).join('+'), breaks: job.faults.flatMap((f) => f.breaks), description: 'batch' };
      const whole = judge(union, job.suites, outcome, levels);
      if (!whole.ok) {
        // One fault's symptom may hide another's in a shared run: each is proven alone before anything is concluded.
        opts.log(`  ..   batch ${union.name} failed together (${[whole.missed.length ? `missed ${whole.missed.join(', ')}` : '', whole.unexpected.length ? `unexpected ${whole.unexpected.join(', ')}` : '', outcome.problem ?? ''].filter(Boolean).join('; ') || `verdict ${outcome.verdict}`}); running each alone`);
        retry.push(...job.faults);
        return;
      }
      for (const f of job.faults) {
        const r = judge(f, job.suites, { ...outcome, failing: Object.fromEntries(Object.entries(outcome.failing).filter(([req]) => f.breaks.includes(req))) }, levels);
        // Within a batch the verdict and the unexpected failures belong to the batch as a whole.
        tally.keep({ ...r, unexpected: whole.unexpected, expectedVerdict: whole.expectedVerdict, ok: r.missed.length === 0 && whole.ok }, secs);
      }
    },
  );
  return { clean: clean!, retry, wide };
}

export const selfcheckCommand: CommandSpec = {
  name: 'selfcheck',
  summary: 'prove the suite: run it against the sandbox with each fault switch and check exactly the documented requirements fail',
  usage: 'fsapi-conformance selfcheck [--full] [--faults LIST] [--parallel N] [--seed N] [--write]',
  description: `
Runs the suite against the clean embedded sandbox (nothing may fail, warn or error, and no prerequisite may be
refused) and against the sandbox with each fault switch: exactly the requirements the fault documents must fail,
and the verdict must be non-conformant exactly when one of them is MUST or CONTRACT.
--full runs each fault alone over every suite (slow: about 20 minutes on 2 cores) and, with --write, records which
checks caught each fault in docs/self-verification.json and docs/self-verification.md. By default the faults run
in batches (faults of different areas breaking disjoint requirements share a run, so every failure is attributable)
over the fewest suites that cover each fault's recorded catching checks: a few minutes.`,
  options: [
    { name: 'full', type: 'boolean', description: 'Run every fault over every suite.' },
    { name: 'faults', type: 'string', value: 'LIST', description: 'Only these faults (comma-separated).', default: 'every fault' },
    { name: 'parallel', type: 'string', value: 'N', default: String(DEFAULT_PARALLEL), description: 'Runs at once.' },
    { name: 'seed', type: 'string', value: 'N', default: '1', description: 'Seed of every run.' },
    { name: 'write', type: 'boolean', description: 'With --full: write docs/self-verification.json and .md.' },
  ],
  exitCodes: [
    { code: 0, meaning: 'every verdict proven: the clean run is clean and every fault fails exactly its documented requirements' },
    { code: 1, meaning: 'a fault was missed or caught something undocumented, or the clean run failed something' },
    { code: 2, meaning: 'bad option, unknown fault, or a stale recorded matrix' },
    { code: 3, meaning: 'internal error of the suite' },
  ],
  async run(args) {
    const full = args.values['full'] === true;
    if (args.values['write'] && !full) throw new UsageError('--write needs --full', { fix: 'the record holds every fault over every suite: run with --full --write' });
    if (args.values['write'] && INSTALLED) throw new UsageError('--write records the matrix in the repository, not in an installed copy', { fix: 'run it from a clone of fsapi-conformance' });
    const parallel = Number(args.values['parallel'] ?? DEFAULT_PARALLEL);
    const seed = Number(args.values['seed'] ?? 1);
    if (!Number.isInteger(parallel) || parallel < 1 || parallel > 16) throw new UsageError('--parallel must be 1..16', { fix: 'e.g. --parallel 2' });
    if (!Number.isInteger(seed) || seed < 0) throw new UsageError('--seed must be a whole number', { fix: 'e.g. --seed 1' });
    const faults = typeof args.values['faults'] === 'string' ? args.values['faults'].split(',').map((s) => s.trim()).filter(Boolean) : undefined;
    // Results on stdout (`selfcheck > out.txt` keeps them), progress on stderr, as `run` does.
    const log = (s: string) => process.stderr.write(`${s}\n`);
    const result = (s: string) => process.stdout.write(`${s}\n`);
    const t0 = performance.now();
    const summary = await selfcheck({ full, ...(faults ? { faults } : {}), parallel, seed, log, result });
    const failed = summary.results.filter((r) => !r.ok);
    result(`\n${summary.ok ? 'PROVEN' : 'NOT PROVEN'}: ${summary.results.length - failed.length}/${plural(summary.results.length, 'fault')} caught exactly; clean run ${summary.cleanOk ? 'clean' : 'NOT clean'} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    if (args.values['write']) {
      if (!summary.ok) throw new UsageError('not writing the record: the matrix is not proven', { fix: 'fix the faults or their documented `breaks` first' });
      const { loadCatalogue } = await planning();
      const catalogue = await loadCatalogue();
      const fresh = recordOf(summary.results, { checks: summary.clean.checks, verdict: summary.clean.verdict === 'did-not-run' ? 'incomplete' : summary.clean.verdict }, {
        generated_by: 'fsapi-conformance selfcheck --full --write',
        seed,
        spec_sha256: catalogue.spec.sha256,
        requirements_sha256: catalogue.requirements.sha256,
      });
      // With --faults, only those faults are re-recorded; the others keep their entries, in the registry's order.
      let record = fresh;
      if (faults) {
        const { FAULTS } = await import('../../../sandbox/faults.js');
        const old = readRecord();
        if (old.seed !== seed) throw new UsageError(`the record was made with seed ${old.seed}`, { fix: `re-record with --seed ${old.seed}, or record every fault` });
        const byName = new Map([...old.faults, ...fresh.faults].map((f) => [f.name, f]));
        const missing = FAULTS.filter((f) => !byName.has(f.name)).map((f) => f.name);
        if (missing.length) throw new UsageError(`the record has no entry for ${missing.join(', ')}`, { fix: 'record those faults too (--faults), or every fault' });
        record = { ...fresh, faults: FAULTS.map((f) => byName.get(f.name)!) };
      }
      writeFileSync(RECORD_PATH, `${JSON.stringify(record, null, 2)}\n`);
      writeFileSync(DOC_PATH, renderDoc(record, catalogue.requirements));
      result(`wrote ${RECORD_PATH} and ${DOC_PATH}`);
    }
    return summary.ok ? 0 : 1;
  },
};
