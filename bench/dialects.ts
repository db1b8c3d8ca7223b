/**
 * The suite on targets spelled otherwise. For each dialect of test/dialects/ (names, paths, shapes, conventions): the sandbox
 * behind the dialect's translating proxy, `bind --spec <dialect document> --out <file>` (or, when this build has no
 * `bind` command, the dialect's truth binding, said so), then `run --binding <file>` against the proxy (without a
 * binding when `run` has no --binding flag yet, said so); and a reference run against the same sandbox without a
 * proxy. Printed per dialect: executed checks (not skipped) as a share of the reference run's, per level; the
 * verdict against the reference's; `error` checks; how many of bind's entries were right without a hand edit (each
 * compared with the truth binding); then one or two fault switches per check family, each run through the
 * dialect, and whether every requirement the fault breaks (sandbox/faults.ts) failed.
 *
 *   npx tsx bench/dialects.ts [--dialects names,paths,shapes,conventions] [--faults F1,F2 | --no-faults] [--groups G1,G2] [--seed N] [--keep]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { FAULTS } from '../sandbox/index.js';
import type { Level } from '../src/catalogue/index.js';
import { DIALECT_NAMES, isDialectName, type DialectName } from '../test/dialects/definitions.js';
import { dialect } from '../test/dialects/dialect.js';
import { freePort, startDialectTarget, targetEnv, type DialectTarget } from '../test/dialects/target.js';
import { scoreBinding, type Binding, type EntryScore } from '../test/dialects/truth.js';
import { assertRan, benchArgs, ensureBuild, int, printTable, readLatestReport, round, runCli, type RunReport, tail, usage, writeResult } from './lib.js';

const USAGE = 'npx tsx bench/dialects.ts [--dialects names,paths,shapes,conventions] [--faults F1,F2 | --no-faults] [--groups G1,G2] [--seed N] [--keep]';
const DEFAULT_SEED = 20261120;
const LEVELS: Level[] = ['MUST', 'CONTRACT', 'SHOULD', 'PROFILE', 'INFO'];
const EXECUTED_GOAL = 0.95;
const BIND_GOAL = 0.9;

/** One or two fault switches per check family, each breaking requirements that family's checks judge. */
const FAMILY_FAULTS: { family: string; fault: string }[] = [
  { family: 'auth', fault: 'auth-accept-bearer' },
  { family: 'idempotency', fault: 'idem-ignored' },
  { family: 'headers', fault: 'tenant-header-optional' },
  { family: 'schema', fault: 'schema-drop-field' },
  { family: 'input', fault: 'validation-skip-required' },
  { family: 'tenancy', fault: 'tenant-isolation-broken' },
  { family: 'transport', fault: 'plain-http-processed' },
  { family: 'versioning', fault: 'version-ignored' },
  { family: 'http', fault: 'no-405' },
  { family: 'http', fault: 'pagination-repeats' },
  { family: 'flows', fault: 'card-transition-unchecked' },
  { family: 'flows', fault: 'transfer-overdraft' },
  { family: 'webhooks', fault: 'webhooks-unsigned' },
];

const { values: args } = benchArgs(USAGE, {
  options: {
    dialects: { type: 'string', default: DIALECT_NAMES.join(',') },
    faults: { type: 'string' },
    'no-faults': { type: 'boolean', default: false },
    // Keep the runs' reports (and the bindings bind wrote) to read why a figure is what it is.
    keep: { type: 'boolean', default: false },
    groups: { type: 'string' },
    seed: { type: 'string', default: String(DEFAULT_SEED) },
  },
});
const dialects = args.dialects.split(',').map((s) => s.trim());
if (!dialects.every(isDialectName)) usage(USAGE);
const seed = int(args.seed, 0) ?? usage(USAGE);
const faultPicks = args['no-faults'] ? [] : args.faults ? args.faults.split(',').map((fault) => ({ family: FAMILY_FAULTS.find((f) => f.fault === fault)?.family ?? '-', fault: fault.trim() })) : FAMILY_FAULTS;
for (const f of faultPicks) if (!FAULTS.some((d) => d.name === f.fault)) usage(`${USAGE}\n(no fault switch ${f.fault}: docs/sandbox.md lists them)`);

const work = mkdtempSync(join(tmpdir(), 'fsapi-bench-dialects-'));

/** What this build's CLI offers: `bind`, and `run --binding`. */
async function capabilities(): Promise<{ bind: boolean; binding: boolean }> {
  const [bind, run] = await Promise.all([runCli(['bind', '--help'], { cwd: work }), runCli(['run', '--help'], { cwd: work })]);
  return { bind: bind.code === 0, binding: run.code === 0 && /--binding\b/.test(run.stdout + run.stderr) };
}

interface RunFigures {
  code: number | null;
  verdict: string;
  executed: Record<Level, number>;
  errors: number;
  report: RunReport;
}

async function runAgainst(t: DialectTarget, label: string, extra: string[], webhookPort: number): Promise<RunFigures> {
  const reportDir = join(work, `r-${label}`);
  const r = await runCli(['run', '--seed', String(seed), '--report-dir', reportDir, ...(args.groups ? ['--groups', args.groups] : []), ...extra], {
    cwd: work,
    env: targetEnv(t, { webhookPort }),
  });
  assertRan(r, `the ${label} run`);
  const report = readLatestReport(reportDir);
  const executed = Object.fromEntries(LEVELS.map((l) => [l, report.checks.filter((c) => c.level === l && c.status !== 'skipped').length])) as Record<Level, number>;
  return { code: r.code, verdict: report.verdict, executed, errors: report.checks.filter((c) => c.status === 'error').length, report };
}

/** The sandbox (with faults), the dialect's proxy in front (none for the reference), a run, and everything closed. */
async function withTarget<T>(name: DialectName | 'reference', faults: string[], f: (t: DialectTarget, webhookPort: number) => Promise<T>): Promise<T> {
  const webhookPort = await freePort();
  const t = await startDialectTarget(name, { faults, plainHttp: true, webhookPort });
  try {
    return await f(t, webhookPort);
  } finally {
    await t.close();
  }
}

interface BindOutcome {
  source: 'bind' | 'truth binding (this build has no `bind` command)';
  path: string;
  scores?: EntryScore[];
}

async function bindFor(name: DialectName, t: DialectTarget, canBind: boolean): Promise<BindOutcome> {
  if (!canBind) return { source: 'truth binding (this build has no `bind` command)', path: t.truthBindingPath };
  const out = join(work, `${name}.bound.yaml`);
  const r = await runCli(['bind', '--spec', t.specPath, '--out', out], { cwd: work, env: targetEnv(t) });
  if (r.code !== 0 || !existsSync(out)) throw new Error(`bind for ${name} exited ${r.code}:\n${tail(r.stderr)}`);
  const truth = parse(readFileSync(t.truthBindingPath, 'utf8')) as Binding;
  const got = parse(readFileSync(out, 'utf8')) as Partial<Binding>;
  return { source: 'bind', path: out, scores: scoreBinding(dialect(name), truth, got) };
}

/** Right / total over the entries of some kinds. */
function share(scores: EntryScore[] | undefined, kinds: EntryScore['kind'][]): { right: number; total: number; share: number } | undefined {
  if (!scores) return undefined;
  const s = scores.filter((x) => kinds.includes(x.kind));
  const right = s.filter((x) => x.right).length;
  return { right, total: s.length, share: s.length ? round(right / s.length, 3) : 1 };
}

const fraction = (s: unknown): string => {
  const x = s as ReturnType<typeof share>;
  return x && x.total > 0 ? `${x.right}/${x.total}` : '-';
};

/** Every requirement the fault breaks has a check that failed, warned or errored. */
function caught(report: RunReport, fault: string): { caught: boolean; missed: string[] } {
  const breaks = FAULTS.find((f) => f.name === fault)!.breaks;
  const failing = new Set(report.checks.filter((c) => c.status === 'failed' || c.status === 'warning' || c.status === 'error').map((c) => c.requirement));
  const missed = breaks.filter((r) => !failing.has(r));
  return { caught: missed.length === 0, missed };
}

interface DialectResult {
  dialect: DialectName;
  binding: { source: BindOutcome['source']; used_by_run: boolean };
  verdict: string;
  same_verdict: boolean;
  errors: number;
  executed: Record<string, { executed: number; reference: number; share: number }>;
  executed_goal_met: boolean;
  bind_accuracy: Record<string, unknown> | null;
  faults: { family: string; fault: string; verdict: string; caught: boolean; missed: string[] }[];
}

async function main(): Promise<void> {
  await ensureBuild();
  const can = await capabilities();
  console.error(`bind: ${can.bind ? 'this build has `bind`; its output is scored against each truth binding' : 'this build has no `bind` command: each run uses the dialect’s truth binding'}`);
  console.error(`run --binding: ${can.binding ? 'supported' : 'not in this build: the dialect runs go without a binding (low figures expected)'}`);

  console.error('reference run ...');
  const reference = await withTarget('reference', [], (t, port) => runAgainst(t, 'reference', [], port));
  console.error(`reference: ${reference.verdict}, executed ${LEVELS.map((l) => `${l} ${reference.executed[l]}`).join(', ')}`);

  const results: DialectResult[] = [];
  for (const name of dialects as DialectName[]) {
    console.error(`${name}: bind and run ...`);
    const { bound, run } = await withTarget(name, [], async (t, port) => {
      const b = await bindFor(name, t, can.bind);
      return { bound: b, run: await runAgainst(t, name, can.binding ? ['--spec', t.specPath, '--binding', b.path] : ['--spec', t.specPath], port) };
    });
    const faults = [];
    for (const { family, fault } of faultPicks) {
      console.error(`${name}: fault ${fault} ...`);
      const r = await withTarget(name, [fault], (t, port) => runAgainst(t, `${name}-${fault}`, can.binding ? ['--spec', t.specPath, '--binding', bound.path] : ['--spec', t.specPath], port));
      faults.push({ family, fault, verdict: r.verdict, ...caught(r.report, fault) });
    }
    const perLevel = Object.fromEntries(LEVELS.map((l) => [l, { executed: run.executed[l], reference: reference.executed[l], share: reference.executed[l] ? round(run.executed[l] / reference.executed[l], 3) : 1 }]));
    results.push({
      dialect: name,
      binding: { source: bound.source, used_by_run: can.binding },
      verdict: run.verdict,
      same_verdict: run.verdict === reference.verdict,
      errors: run.errors,
      executed: perLevel,
      executed_goal_met: LEVELS.every((l) => perLevel[l]!.share >= EXECUTED_GOAL),
      bind_accuracy: bound.scores
        ? {
            operations_and_path_params: share(bound.scores, ['operation', 'path_params']),
            list_and_envelope: share(bound.scores, ['list', 'envelope']),
            query: share(bound.scores, ['query']),
            fields_and_states: share(bound.scores, ['fields', 'states']),
            values_events_errors: share(bound.scores, ['values', 'events', 'errors']),
            wrong: bound.scores.filter((s) => !s.right),
          }
        : null,
      faults,
    });
  }

  console.log(`\nreference run: ${reference.verdict}; executed (not skipped) ${LEVELS.map((l) => `${l} ${reference.executed[l]}`).join(', ')}`);
  console.log(`binding: ${can.bind ? 'bind output' : 'truth binding (no `bind` in this build)'}; run --binding ${can.binding ? 'used' : 'NOT available (runs without a binding)'}\n`);
  printTable(
    ['dialect', ...LEVELS.map((l) => `${l} exec`), 'verdict', 'same', 'errors', 'bind ops+params', 'bind list+env', 'bind query', 'bind fields+states', 'bind values+events+errors'],
    results.map((r) => [
      r.dialect,
      ...LEVELS.map((l) => `${(r.executed[l]!.share * 100).toFixed(1)}%`),
      r.verdict,
      r.same_verdict ? 'yes' : 'NO',
      String(r.errors),
      fraction(r.bind_accuracy?.['operations_and_path_params']),
      fraction(r.bind_accuracy?.['list_and_envelope']),
      fraction(r.bind_accuracy?.['query']),
      fraction(r.bind_accuracy?.['fields_and_states']),
      fraction(r.bind_accuracy?.['values_events_errors']),
    ]),
  );
  if (faultPicks.length > 0) {
    console.log('');
    printTable(
      ['fault (family)', ...results.map((r) => r.dialect)],
      faultPicks.map(({ family, fault }) => [`${fault} (${family})`, ...results.map((r) => {
        const f = r.faults.find((x) => x.fault === fault)!;
        return f.caught ? 'caught' : `MISSED ${f.missed.join(' ')}`;
      })]),
    );
  }
  console.log(`\ngoals: executed share >= ${EXECUTED_GOAL * 100}% per level, same verdict, 0 errors, every fault caught; bind right >= ${BIND_GOAL * 100}% on names and paths`);
  const file = writeResult('dialects', {
    seed,
    groups: args.groups ?? 'all',
    cli: can,
    reference: { verdict: reference.verdict, executed: reference.executed, errors: reference.errors },
    dialects: results,
  });
  console.log(`written: ${file}`);
  if (args.keep) console.log(`reports kept in ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

await main();
