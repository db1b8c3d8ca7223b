/**
 * How the suite scales. (a) With the spec: OpenAPI documents that repeat every operation 2× and 4× (each path
 * cloned under a suffixed first segment, /customers → /customers-x2, operationIds suffixed, tags kept), run
 * with FSAPI_SPEC against the embedded sandbox. (b) With shards: the run split into 2 and 4 shards (same seed),
 * one after another (as separate CI machines) and then as parallel processes, each set merged with `merge` and
 * held to the single run: same check ids, same statuses, same verdict (exit 1 if not). Each sequential set is timed
 * against a single run made just before it (the machine drifts).
 *
 *   npx tsx bench/scaling.ts [--part all|spec|shards] [--factors 1,2,4] [--shards 2,4] [--groups G1,G2] [--seed N] [--keep]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parse, stringify } from 'yaml';
import { assertRan, benchArgs, type CliRun, ensureBuild, int, intList, printTable, readLatestReport, readReport, ROOT, round, runCli, type RunReport, sec, tail, usage, writeResult } from './lib.js';

const USAGE = 'npx tsx bench/scaling.ts [--part all|spec|shards] [--factors 1,2,4] [--shards 2,4] [--groups G1,G2] [--seed N] [--keep]';
const DEFAULT_SEED = 20261120;
/** The targets for a shard's suite phase, as a fraction of the single run's. */
const SHARD_TARGETS: Record<number, number> = { 2: 0.6, 4: 0.35 };
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type JsonObject = Record<string, unknown>;
const isObj = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * spec/openapi.yaml with every path repeated `factor` times: copy k (2..factor) of `/a/{id}/b` is `/a-xk/{id}/b`,
 * its operationIds get `_xk`; tags, parameters, bodies and responses are the original's. Even at factor 1 the
 * document is re-serialised and marked, so every row runs as a vendor's own document (not the reference profile,
 * which the suite recognises by its SHA-256 and treats differently).
 */
function scaledSpec(factor: number): { text: string; operations: number } {
  const doc = parse(readFileSync(join(ROOT, 'spec', 'openapi.yaml'), 'utf8')) as JsonObject;
  const paths = doc['paths'] as Record<string, JsonObject>;
  const out: Record<string, JsonObject> = {};
  let operations = 0;
  for (const [p, item] of Object.entries(paths)) {
    out[p] = item;
    for (const m of METHODS) if (isObj(item[m])) operations++;
  }
  for (let k = 2; k <= factor; k++) {
    for (const [p, item] of Object.entries(paths)) {
      const clone = structuredClone(item);
      for (const m of METHODS) {
        const op = clone[m];
        if (isObj(op) && typeof op['operationId'] === 'string') op['operationId'] = `${op['operationId']}_x${k}`;
        if (isObj(op)) operations++;
      }
      const path = p.replace(/^\/([^/]+)/, `/$1-x${k}`);
      if (path in out) throw new Error(`a cloned path collides: ${path}`);
      out[path] = clone;
    }
  }
  doc['paths'] = out;
  doc['info'] = { ...(doc['info'] as JsonObject), 'x-bench-scale': factor };
  return { text: stringify(doc, { lineWidth: 0 }), operations };
}

/** The embedded run with these arguments; throws unless it ran through (exit 0 or 1). */
async function runOnce(what: string, reportRoot: string, cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ run: CliRun; report: RunReport }> {
  console.error(`${what}: node bin/fsapi-conformance.js ${args.join(' ')}${Object.keys(env).length ? ` (${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')})` : ''}`);
  const run = await runCli([...args, '--report-dir', reportRoot], { cwd, env });
  assertRan(run, what);
  return { run, report: readLatestReport(reportRoot) };
}

interface SpecRow {
  spec: string;
  factor: number | null;
  operations: number;
  checks: number;
  requests_sent: number;
  suites_ms: number;
  ms_per_check: number;
  verdict: string;
  by_status: RunReport['counts']['by_status'];
}

interface Comparison {
  same: boolean;
  verdicts: { single: string; merged: string };
  missing: string[];
  extra: string[];
  status_differences: { id: string; single: string; merged: string }[];
}

/** The merged report against the single run: check ids, statuses, verdict. */
function compare(single: RunReport, merged: RunReport): Comparison {
  const a = new Map(single.checks.map((c) => [c.id, c.status]));
  const b = new Map(merged.checks.map((c) => [c.id, c.status]));
  const missing = [...a.keys()].filter((id) => !b.has(id));
  const extra = [...b.keys()].filter((id) => !a.has(id));
  const diffs = [...a].filter(([id, s]) => b.has(id) && b.get(id) !== s).map(([id, s]) => ({ id, single: s, merged: b.get(id)! }));
  return {
    same: missing.length === 0 && extra.length === 0 && diffs.length === 0 && single.verdict === merged.verdict,
    verdicts: { single: single.verdict, merged: merged.verdict },
    missing,
    extra,
    status_differences: diffs,
  };
}

interface ShardRow {
  shard: string;
  checks: number;
  suites_ms: number;
  wall_ms: number;
  verdict: string;
}

interface ShardSet {
  shards: number;
  mode: 'sequential' | 'parallel';
  runs: ShardRow[];
  /** Sequential: the sum of the shards' walls; parallel: from the first start to the last exit. */
  wall_ms: number;
  max_suites_ms: number;
  /** The single run's suite phase this set is held to: for a sequential set, a single run made just before it. */
  single_suites_ms: number;
  max_fraction_of_single: number;
  target_fraction: number | null;
  merged: Comparison;
}

async function shardSet(n: number, mode: 'sequential' | 'parallel', seed: number, groups: string[], dir: string, single: RunReport, singleMs: number): Promise<ShardSet> {
  const base = join(dir, `shards-${n}-${mode}`);
  const one = async (i: number) => {
    const root = join(base, `shard-${i}`);
    const { run, report } = await runOnce(`shard ${i}/${n} (${mode})`, root, dir, ['run', '--seed', String(seed), '--shard', `${i}/${n}`, ...groups]);
    return { run, report, dir: join(root, report.run.id) };
  };
  const t0 = performance.now();
  const shards: Awaited<ReturnType<typeof one>>[] = [];
  if (mode === 'sequential') for (let i = 1; i <= n; i++) shards.push(await one(i));
  else shards.push(...(await Promise.all(Array.from({ length: n }, (_, i) => one(i + 1)))));
  const wall = mode === 'sequential' ? shards.reduce((s, x) => s + x.run.wall_ms, 0) : performance.now() - t0;

  const out = join(base, 'merged');
  const merge = await runCli(['merge', ...shards.map((s) => s.dir), '--out', out], { cwd: dir });
  if (merge.code !== 0 && merge.code !== 1) throw new Error(`merge of ${n} ${mode} shards exited ${merge.code}:\n${tail(merge.stdout + merge.stderr)}`);
  const merged = readReport(join(out, 'conformance.json'));
  const maxSuites = Math.max(...shards.map((s) => s.report.run.phases.suites_ms));
  return {
    shards: n,
    mode,
    runs: shards.map((s) => ({ shard: `${s.report.run.shard?.index}/${s.report.run.shard?.count}`, checks: s.report.counts.by_status.total, suites_ms: s.report.run.phases.suites_ms, wall_ms: Math.round(s.run.wall_ms), verdict: s.report.verdict })),
    wall_ms: Math.round(wall),
    max_suites_ms: maxSuites,
    single_suites_ms: singleMs,
    max_fraction_of_single: round(maxSuites / singleMs, 3),
    target_fraction: SHARD_TARGETS[n] ?? null,
    merged: compare(single, merged),
  };
}

async function main(): Promise<void> {
  const { values } = benchArgs(USAGE, {
    options: {
      part: { type: 'string', default: 'all' },
      factors: { type: 'string', default: '1,2,4' },
      shards: { type: 'string', default: '2,4' },
      groups: { type: 'string' },
      seed: { type: 'string', default: String(DEFAULT_SEED) },
      keep: { type: 'boolean', default: false },
    },
  });
  const part = values.part === 'all' || values.part === 'spec' || values.part === 'shards' ? values.part : usage(USAGE);
  const factors = intList(values.factors) ?? usage(USAGE);
  const shardCounts = intList(values.shards, 2) ?? usage(USAGE);
  const seed = int(values.seed, 0) ?? usage(USAGE);
  const groups = values.groups ? ['--groups', values.groups] : [];

  const build = await ensureBuild();
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-bench-scaling-'));
  let failed = false;
  try {
    // The single run with the reference profile: the first row of (a) and what (b) is held to.
    const single = (await runOnce('single run (reference profile)', join(dir, 'single'), dir, ['run', '--seed', String(seed), ...groups])).report;
    const specRows: SpecRow[] = [];
    const row = (spec: string, factor: number | null, operations: number, r: RunReport): SpecRow => ({
      spec,
      factor,
      operations,
      checks: r.counts.by_status.total,
      requests_sent: r.run.requests_sent,
      suites_ms: r.run.phases.suites_ms,
      ms_per_check: round(r.run.phases.suites_ms / Math.max(1, r.counts.by_status.total), 2),
      verdict: r.verdict,
      by_status: r.counts.by_status,
    });

    if (part !== 'shards') {
      specRows.push(row('reference profile', null, scaledSpec(1).operations, single));
      for (const f of factors) {
        const { text, operations } = scaledSpec(f);
        const file = join(dir, `openapi-${f}x.yaml`);
        writeFileSync(file, text);
        const { report } = await runOnce(`spec ${f}×`, join(dir, `spec-${f}x`), dir, ['run', '--seed', String(seed), ...groups], { FSAPI_SPEC: file, FSAPI_EMBEDDED_SANDBOX: 'true' });
        specRows.push(row(`${f}× (generated)`, f, operations, report));
      }
      console.log(`\n(a) suite time as the spec grows; seed ${seed}, groups ${values.groups ?? 'all'}; cloned operations answer 404 on the sandbox`);
      printTable(
        ['spec', 'operations in spec', 'checks', 'requests', 'suites (s)', 'ms/check', 'passed', 'failed', 'warning', 'skipped', 'error'],
        specRows.map((r) => [r.spec, String(r.operations), String(r.checks), String(r.requests_sent), sec(r.suites_ms, 2), r.ms_per_check.toFixed(1), ...(['passed', 'failed', 'warning', 'skipped', 'error'] as const).map((s) => String(r.by_status[s]))]),
      );
    }

    const sets: ShardSet[] = [];
    if (part !== 'spec') {
      // This machine's speed drifts within minutes, so each sequential set is held to a single run made just
      // before it, not to the one made at the start (the first set of fractions moved by 0.1 between runs of one
      // build that way). The merged reports are still held to the first single run.
      for (const n of shardCounts) {
        const { report: before } = await runOnce(`single run before ${n} shards`, join(dir, `single-before-${n}`), dir, ['run', '--seed', String(seed), ...groups]);
        sets.push(await shardSet(n, 'sequential', seed, groups, dir, single, before.run.phases.suites_ms));
      }
      for (const n of shardCounts) sets.push(await shardSet(n, 'parallel', seed, groups, dir, single, single.run.phases.suites_ms));

      console.log(`\n(b) shards, seed ${seed}; the first single run's suite phase: ${sec(single.run.phases.suites_ms, 2)} s, ${single.counts.by_status.total} checks`);
      const rows: string[][] = [];
      for (const s of sets.filter((x) => x.mode === 'sequential')) {
        rows.push([`single run just before`, String(single.counts.by_status.total), sec(s.single_suites_ms, 2), '1.00', '', '']);
        for (const r of s.runs) rows.push([`${r.shard} (sequential)`, String(r.checks), sec(r.suites_ms, 2), (r.suites_ms / s.single_suites_ms).toFixed(2), '', '']);
        const within = s.target_fraction === null ? '' : s.max_fraction_of_single <= s.target_fraction ? 'yes' : 'NO';
        rows.push([`${s.shards} shards: slowest`, '', sec(s.max_suites_ms, 2), s.max_fraction_of_single.toFixed(2), s.target_fraction === null ? '-' : `≤ ${s.target_fraction}`, within]);
      }
      printTable(['shard', 'checks', 'suites (s)', '÷ single', 'target', 'within'], rows);
      console.log('');
      printTable(
        ['shards', 'mode', 'wall (s)', 'slowest suites (s)', '÷ single', 'merged = single'],
        sets.map((s) => [String(s.shards), s.mode, sec(s.wall_ms, 1), sec(s.max_suites_ms, 2), s.max_fraction_of_single.toFixed(2), s.merged.same ? 'yes' : 'NO']),
      );
      for (const s of sets.filter((x) => !x.merged.same)) {
        failed = true;
        const m = s.merged;
        console.log(`\n${s.shards} ${s.mode} shards merged differ from the single run: verdict ${m.verdicts.merged} vs ${m.verdicts.single}, ${m.missing.length} checks missing, ${m.extra.length} extra, ${m.status_differences.length} with another status`);
        for (const id of m.missing.slice(0, 5)) console.log(`  missing: ${id}`);
        for (const id of m.extra.slice(0, 5)) console.log(`  extra:   ${id}`);
        for (const d of m.status_differences.slice(0, 10)) console.log(`  ${d.id}: ${d.single} in the single run, ${d.merged} merged`);
      }
    }

    const written = writeResult('scaling', { seed, groups: values.groups ?? 'all', build, part, spec: specRows, shards: sets, ...(values.keep ? { kept: dir } : {}) });
    console.log(`\nwritten: ${written}${values.keep ? `\nkept: ${dir}` : ''}`);
  } finally {
    if (!values.keep) rmSync(dir, { recursive: true, force: true });
  }
  if (failed) process.exitCode = 1;
}

await main();
