/**
 * Merging shard reports: `run --shard=i/n` on n machines gives n reports of one run; merged, they are the report
 * the run would have written unsharded: every check, counts, gaps and verdict recomputed, merged_from set.
 *
 * Refused (UsageError): a report without run.shard; reports of different suite versions, specs, requirement
 * catalogues, targets (for the embedded sandbox, which gets a new port in every process: its fault set), seeds,
 * strictness or shard counts; a shard index given twice or out of range; a missing
 * shard; a check id present in two shards (shards split whole suites, src/runner/shards.ts).
 *
 * How run fields combine: started_at is the earliest, finished_at the latest, duration_ms the wall time between
 * them; phases are the longest of each phase (shards run side by side); requests_sent and resources_created add
 * up; groups are the union; concurrency is the largest; node and platform list the distinct values. The merged
 * verdict is incomplete when any shard was. Coverage, verdict, headline and diagnostics are recomputed over the
 * merged checks (src/results/assess.ts): a requirement a shard could not run (not in its suites) is verified by
 * the shard that could; one with no check in any shard keeps what the shards said (not verified wins).
 */
import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';
import { assessRun, type Assessment } from '../results/assess.js';
import type { Absent, DocumentOperation } from '../results/coverage.js';
import type { RequirementCoverage, RunReport } from '../results/model.js';
import { computeVerdict } from '../results/verdict.js';
import { assembleRunReport } from './run-report.js';

const distinct = <T>(xs: T[]): T[] => [...new Set(xs)];

/**
 * The merged run's id: like a run's (it sorts by time: the earliest shard start), marked as a merge, and the
 * same for the same shards (a digest of their run ids): 20261120-231501-merged-a1b2c3.
 */
export function mergedRunId(startedAt: string, shardIds: readonly string[]): string {
  const d = new Date(startedAt);
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
  return `${stamp}-merged-${createHash('sha256').update(shardIds.join('\n')).digest('hex').slice(0, 6)}`;
}

export function mergeReports(reports: RunReport[], opts: { names?: string[] } = {}): RunReport {
  const name = (i: number) => opts.names?.[i] ?? `report ${i + 1} (run ${reports[i]!.run.id})`;
  const ordered = shardOrder(reports, name);
  const checks = mergedChecks(reports, ordered, name);
  const shards = ordered.map((i) => reports[i]!);
  const first = reports[0]!;
  const run = mergedRun(shards);
  const statements = new Map<string, string>();
  for (const r of shards) for (const g of r.gaps) if (!statements.has(g.requirement)) statements.set(g.requirement, g.statement);
  const assessed = reassess(shards, checks, run);
  return assembleRunReport({
    suite: { ...first.suite },
    spec: { ...first.spec },
    requirements: { ...first.requirements },
    target: { ...first.target },
    run,
    assessed: assessed ?? { verdict: computeVerdict(checks, { incomplete: shards.some((r) => r.verdict === 'incomplete') }) },
    checks,
    statements,
    // The document's side of each contradiction is the same in every shard; the checks under it are grouped again.
    conflicts: (first.document_conflicts ?? []).map(({ requirement, declaration, pointer, places, operations }) => ({ requirement, declaration, pointer, places, operations })),
  });
}

/** The reports' indexes in shard order, once each is known to be a shard of one run and none is missing or given twice. */
function shardOrder(reports: RunReport[], name: (i: number) => string): number[] {
  if (reports.length === 0) throw new UsageError('merge: no report given', { fix: 'give the conformance.json (or report directory) of every shard' });
  reports.forEach((r, i) => {
    if (!r.run.shard) {
      throw new UsageError(`${name(i)} is not a shard report (it has no run.shard)`, {
        fix: 'merge only the reports of `run --shard=i/n`; an unsharded report is already complete',
      });
    }
  });
  const first = reports[0]!;
  const same: [string, (r: RunReport) => unknown][] = [
    ['suite version', (r) => r.suite.version],
    ['spec (SHA-256)', (r) => r.spec.sha256],
    ['requirement catalogue (SHA-256)', (r) => r.requirements.sha256],
    // The embedded sandbox listens on a new port in every process: its shards share no base URL, only the faults.
    ['target', (r) => (r.target.embedded ? `the embedded reference sandbox${r.target.sandbox_faults?.length ? ` with faults ${[...r.target.sandbox_faults].sort().join(',')}` : ''}` : r.target.base_url)],
    ['seed', (r) => r.run.seed],
    ['--strict', (r) => r.run.strict],
    ['shard count', (r) => r.run.shard!.count],
  ];
  for (const [what, get] of same) {
    const i = reports.findIndex((r) => get(r) !== get(first));
    if (i > 0) {
      throw new UsageError(`${name(i)} and ${name(0)} are not shards of one run: the ${what} differs (${String(get(reports[i]!))} vs ${String(get(first))})`, {
        fix: 'merge the shards of a single run: same suite version, spec, requirements, target, seed and --strict, with --shard=i/n for one n',
      });
    }
  }
  const count = first.run.shard!.count;
  const byIndex = new Map<number, number>();
  reports.forEach((r, i) => {
    const { index } = r.run.shard!;
    if (!Number.isInteger(index) || index < 1 || index > count) {
      throw new UsageError(`${name(i)} says it is shard ${index}/${count}, which is out of range`, { fix: `shard indexes run from 1 to ${count}` });
    }
    const dup = byIndex.get(index);
    if (dup !== undefined) {
      throw new UsageError(`shard ${index}/${count} is given twice: ${name(dup)} and ${name(i)}`, { fix: 'give each shard once' });
    }
    byIndex.set(index, i);
  });
  const missing = Array.from({ length: count }, (_, k) => k + 1).filter((k) => !byIndex.has(k));
  if (missing.length) {
    throw new UsageError(`shard${missing.length > 1 ? 's' : ''} ${missing.map((k) => `${k}/${count}`).join(', ')} missing: got ${reports.length} of ${count}`, {
      fix: 'give the report of every shard; rerun a missing shard with the same seed and --shard',
    });
  }
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, i]) => i);
}

/** Every shard's checks, in shard order; a check in two shards is refused (shards split whole suites). */
function mergedChecks(reports: RunReport[], ordered: number[], name: (i: number) => string): RunReport['checks'] {
  const owner = new Map<string, number>();
  const checks: RunReport['checks'] = [];
  for (const i of ordered) {
    for (const c of reports[i]!.checks) {
      const prev = owner.get(c.id);
      if (prev !== undefined) {
        throw new UsageError(`check "${c.id}" is in two shards: ${name(prev)} and ${name(i)}`, {
          fix: 'shards must split the checks: rerun them with the same seed and --shard=i/n',
        });
      }
      owner.set(c.id, i);
      checks.push(c);
    }
  }
  return checks;
}

/** The merged run's fields, combined as the header of this file says. */
function mergedRun(shards: RunReport[]): RunReport['run'] {
  const first = shards[0]!;
  const count = first.run.shard!.count;
  const byTime = (xs: string[]) => [...xs].sort((a, b) => Date.parse(a) - Date.parse(b));
  const started = byTime(shards.map((r) => r.run.started_at))[0]!;
  const finished = byTime(shards.map((r) => r.run.finished_at)).at(-1)!;
  const byType: Record<string, number> = {};
  for (const r of shards) for (const [t, n] of Object.entries(r.run.resources_created.by_type)) byType[t] = (byType[t] ?? 0) + n;
  const max = (f: (r: RunReport) => number) => Math.max(...shards.map(f));
  const ids = shards.map((r) => r.run.id);
  const run: RunReport['run'] = {
    id: mergedRunId(started, ids),
    seed: first.run.seed,
    started_at: started,
    finished_at: finished,
    duration_ms: Math.max(0, Date.parse(finished) - Date.parse(started)),
    phases: {
      startup_ms: max((r) => r.run.phases.startup_ms),
      preflight_ms: max((r) => r.run.phases.preflight_ms),
      suites_ms: max((r) => r.run.phases.suites_ms),
    },
    strict: first.run.strict,
    groups: distinct(shards.flatMap((r) => r.run.groups)),
    merged_from: ids,
    concurrency: max((r) => r.run.concurrency),
    requests_sent: shards.reduce((n, r) => n + r.run.requests_sent, 0),
    resources_created: {
      count: shards.reduce((n, r) => n + r.run.resources_created.count, 0),
      by_type: byType,
      label: distinct(shards.map((r) => r.run.resources_created.label)).join(' | '),
    },
    // Shards run side by side, each with its own pacing: their pauses add up as their requests do.
    throttling: {
      responses: shards.reduce((n, r) => n + (r.run.throttling?.responses ?? 0), 0),
      waited_ms: shards.reduce((n, r) => n + (r.run.throttling?.waited_ms ?? 0), 0),
    },
    node: distinct(shards.map((r) => r.run.node)).join(', '),
    platform: distinct(shards.map((r) => r.run.platform)).join(', '),
  };
  const incomplete = shards.filter((r) => r.verdict === 'incomplete');
  if (incomplete.length) {
    run.incomplete_reason = incomplete.map((r) => `shard ${r.run.shard!.index}/${count}: ${r.run.incomplete_reason ?? 'interrupted'}`).join('; ');
  }
  const waivers = shards.flatMap((r) => r.run.waivers ?? []).filter((w, i, all) => all.findIndex((x) => x.requirement === w.requirement) === i);
  if (waivers.length) run.waivers = waivers;
  return run;
}

/** Coverage and verdict over the merged checks, from what the shards' own coverage says; undefined for shards written before coverage existed. */
function reassess(shards: RunReport[], checks: RunReport['checks'], run: RunReport['run']): Assessment | undefined {
  if (!shards.every((r) => r.coverage)) return undefined;
  const covs = shards.map((r) => r.coverage!);
  const entryOf = (id: string) => covs.map((c) => c.requirements.find((r) => r.id === id)).filter((r): r is RequirementCoverage => !!r);
  const absent = (id: string): Absent => {
    const said = entryOf(id);
    const pick = said.find((r) => r.status === 'not-verified') ?? said.find((r) => r.status === 'waived') ?? said[0];
    return pick ? { status: pick.status, ...(pick.cause ? { cause: pick.cause } : {}), ...(pick.reason ? { reason: pick.reason } : {}) } : { status: 'not-applicable', cause: 'not-applicable', reason: 'in no shard' };
  };
  const first = covs[0]!;
  const operations: DocumentOperation[] = first.operations.list.map((o) => ({ operationId: o.operation, method: o.method, path: o.path, group: o.group }));
  const leftOut = (op: DocumentOperation): string | undefined => {
    const said = shards.map((r) => ({ groups: r.run.groups as string[], entry: r.coverage!.operations.list.find((o) => o.operation === op.operationId) }));
    if (!said.every((s) => s.entry?.not_in_run)) return undefined;
    // The shard that had the operation's group knows why it was left out (the capabilities file); the others only that it was not theirs.
    return (said.find((s) => op.group && s.groups.includes(op.group)) ?? said[0])!.entry!.reason;
  };
  return assessRun({
    checks,
    // Client-scope requirements have no check in any shard: their entries come back through `absent`.
    requirements: first.requirements.map((r) => ({ id: r.id, level: r.level, scope: 'target' })),
    waivers: run.waivers ?? [],
    absent,
    operations,
    baseUrl: shards[0]!.target.base_url,
    leftOut,
    incompleteReason: run.incomplete_reason,
    throttling: run.throttling,
    durationMs: run.duration_ms,
    // What the checks cannot show: the document's scheme (the same in every shard), a receiver nothing reached (the shard that ran the webhook checks).
    notes: [...(shards[0]!.diagnostics ?? []).filter((d) => d.kind === 'security-scheme'), ...shards.flatMap((r) => (r.diagnostics ?? []).filter((d) => d.kind === 'no-webhook-delivery')).slice(0, 1)],
  });
}
