/**
 * Coverage: for every requirement, whether the run exercised it (at least one executed check) and if not, why;
 * for every operation of the document in use, whether the run reached it. A MUST requirement that applies and was
 * not verified makes the verdict inconclusive (src/results/verdict.ts), never conformant.
 *
 * Pure functions over a run's checks, so that a shard merge recomputes them over the merged checks.
 */
import type { Level } from '../catalogue/levels.js';
import type { CheckResult, Coverage, OperationCoverage, RequirementCoverage, SkipCause, Waiver } from './model.js';
import { isRateLimited } from './verdict.js';

/** Skip causes that mean "left out on purpose by this run's configuration", not "not verified". */
const DELIBERATE: readonly SkipCause[] = ['capabilities', 'not-applicable'];
/** The skip reason shown for a requirement none of whose checks ran: the most actionable kind first. */
const CAUSE_ORDER: readonly (SkipCause | undefined)[] = ['credential', 'not-in-document', 'binding', 'live-environment', 'prerequisite', undefined];

export interface RequirementEntry {
  id: string;
  level: Level;
  scope: 'target' | 'client';
  testedBy?: string | undefined;
}

/** Why a requirement has no check at all in the run. */
export type Absent = Pick<RequirementCoverage, 'status' | 'cause' | 'reason'>;

const executed = (c: CheckResult) => c.status === 'passed' || c.status === 'failed' || c.status === 'warning';
const unmet = (c: CheckResult) => c.status === 'failed' || c.status === 'warning' || (c.status === 'error' && !isRateLimited(c));

export function requirementCoverage(
  checks: readonly CheckResult[],
  entries: readonly RequirementEntry[],
  opts: { waivers: readonly Waiver[]; absent: (id: string) => Absent },
): RequirementCoverage[] {
  const byReq = new Map<string, CheckResult[]>();
  for (const c of checks) (byReq.get(c.requirement) ?? byReq.set(c.requirement, []).get(c.requirement)!).push(c);
  return entries.map((e) => {
    const mine = byReq.get(e.id) ?? [];
    const base = { id: e.id, level: e.level, checks: { executed: mine.filter(executed).length, total: mine.length } };
    const waiver = opts.waivers.find((w) => w.requirement === e.id);
    if (waiver) return { ...base, status: 'waived', cause: 'waived', reason: waiver.reason };
    if (e.scope === 'client') {
      return { ...base, status: 'not-applicable', cause: 'suite-obligation', reason: `an obligation on the suite itself${e.testedBy ? `, proven by ${e.testedBy}` : ''}` };
    }
    if (mine.length === 0) return { ...base, ...opts.absent(e.id) };
    if (mine.some(unmet)) return { ...base, status: 'failed' };
    if (base.checks.executed > 0) return { ...base, status: 'verified' };
    const limited = mine.find(isRateLimited);
    if (limited) return { ...base, status: 'not-verified', cause: 'rate-limited', reason: 'the target kept answering 429/503: lower FSAPI_RATE_LIMIT' };
    // Every check was skipped: on purpose, or for a reason that leaves the requirement unverified.
    const skipped = mine.filter((c) => c.status === 'skipped');
    if (skipped.every((c) => c.skip_cause === 'waived')) return { ...base, status: 'waived', cause: 'waived', reason: skipped[0]?.message ?? 'waived' };
    if (skipped.every((c) => c.skip_cause !== undefined && DELIBERATE.includes(c.skip_cause))) {
      return { ...base, status: 'not-applicable', cause: skipped[0]!.skip_cause!, reason: skipped[0]!.message ?? 'left out by the configuration' };
    }
    const telling = [...skipped]
      .filter((c) => c.skip_cause === undefined || !DELIBERATE.includes(c.skip_cause))
      .sort((a, b) => CAUSE_ORDER.indexOf(a.skip_cause) - CAUSE_ORDER.indexOf(b.skip_cause))[0]!;
    return { ...base, status: 'not-verified', ...(telling.skip_cause ? { cause: telling.skip_cause } : {}), reason: telling.message ?? 'every check was skipped' };
  });
}

/** Where a requirement's checks are planned: the suites and operations of the reference profile's generic checks. */
export type RequirementPlan = ReadonlyMap<string, readonly { suite: string; operation?: string | undefined }[]>;

/**
 * Why a requirement has no check in a run: its checks are planned for operations of a suite the run had, which
 * the document in use lacks (not verified); otherwise its suites were not in the run (not applicable). Flows are
 * always registered when their suite runs, so a requirement with no check and no generic plan is not in the run.
 */
export function absentFromRun(plan: RequirementPlan, groups: readonly string[]): (id: string) => Absent {
  return (id) => {
    const where = plan.get(id) ?? [];
    const inRun = where.filter((p) => groups.includes(p.suite));
    if (inRun.length) {
      const ops = [...new Set(inRun.map((p) => p.operation).filter((o): o is string => !!o))];
      return {
        status: 'not-verified',
        cause: 'not-in-document',
        reason: `the document in use has none of the operations its checks apply to${ops.length ? ` (${ops.slice(0, 4).join(', ')}${ops.length > 4 ? ', …' : ''})` : ''}`,
      };
    }
    const suites = [...new Set(where.map((p) => p.suite))];
    return { status: 'not-applicable', cause: 'not-applicable', reason: suites.length ? `its suite${suites.length === 1 ? ' is' : 's are'} not in this run (${suites.join(', ')})` : "none of its checks is in this run's suites" };
  };
}

/**
 * Why a requirement has no check in a run cut short (interrupted, or a suite that could not run): when this run
 * planned checks of it (`planned`, in the suites cut short), they never ran, whatever the document holds;
 * otherwise what `absent` says.
 */
export function absentWhenCut(absent: (id: string) => Absent, planned: ReadonlySet<string>, cut: { cause: 'interrupted' | 'suite-error'; reason: string }): (id: string) => Absent {
  return (id) => (planned.has(id) ? { status: 'not-verified', cause: cut.cause, reason: cut.reason } : absent(id));
}

export interface DocumentOperation {
  operationId: string;
  method: string;
  /** Template relative to the base URL: "/customers/{customer_id}". */
  path: string;
  group?: string | undefined;
}

/** The operations whose path template reaches a node, below it the next segments: literal ones by name, templated ones by pattern. */
interface TemplateNode {
  literal: Map<string, TemplateNode>;
  templated: { source: string; re: RegExp; next: TemplateNode }[];
  ops: { index: number; id: string; method: string }[];
}
const templateNode = (): TemplateNode => ({ literal: new Map(), templated: [], ops: [] });

/**
 * "METHOD path" of an exchange to an operation of the document, by its path relative to the base URL's: the first
 * operation in document order whose template matches (a parameter matches one non-empty segment; one trailing
 * slash is allowed). The templates are walked segment by segment, so a lookup costs the depth of the path, not
 * the number of operations: checked against every template, the coverage of a run grew as operations times
 * distinct URLs.
 */
export function operationMatcher(ops: readonly DocumentOperation[], basePath: string): (method: string, url: string) => string | undefined {
  const all = operationsMatching(ops, basePath);
  return (method, url) => all(method, url)[0];
}

/** Every operation of the document whose template matches "METHOD url" (see operationMatcher), in document order. */
export function operationsMatching(ops: readonly DocumentOperation[], basePath: string): (method: string, url: string) => string[] {
  const root = templateNode();
  ops.forEach((o, index) => {
    let node = root;
    for (const segment of o.path.replace(/^\//, '').split('/')) {
      if (!segment.includes('{')) {
        node = node.literal.get(segment) ?? node.literal.set(segment, templateNode()).get(segment)!;
        continue;
      }
      const source = segment
        .split(/\{[^}]+\}/)
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]+');
      let edge = node.templated.find((t) => t.source === source);
      if (!edge) node.templated.push((edge = { source, re: new RegExp(`^${source}$`), next: templateNode() }));
      node = edge.next;
    }
    node.ops.push({ index, id: o.operationId, method: o.method.toUpperCase() });
  });
  const reach = (node: TemplateNode, segments: string[], i: number, out: TemplateNode['ops']): void => {
    if (i === segments.length) {
      out.push(...node.ops);
      return;
    }
    const lit = node.literal.get(segments[i]!);
    if (lit) reach(lit, segments, i + 1, out);
    for (const t of node.templated) if (t.re.test(segments[i]!)) reach(t.next, segments, i + 1, out);
  };
  const prefix = basePath.endsWith('/') ? basePath : `${basePath}/`;
  const seen = new Map<string, string[]>();
  return (method, url) => {
    let path: string;
    try {
      path = new URL(url).pathname;
    } catch {
      return [];
    }
    const key = `${method} ${path}`;
    const known = seen.get(key);
    if (known) return known;
    const rel = path.startsWith(prefix) ? path.slice(prefix.length) : undefined;
    let hits: string[] = [];
    if (rel !== undefined) {
      const candidates: TemplateNode['ops'] = [];
      reach(root, rel.split('/'), 0, candidates);
      if (rel.endsWith('/')) reach(root, rel.slice(0, -1).split('/'), 0, candidates);
      const m = method.toUpperCase();
      hits = [...new Set(candidates.filter((c) => c.method === m).sort((x, y) => x.index - y.index).map((c) => c.id))];
    }
    seen.set(key, hits);
    return hits;
  };
}

/**
 * Which operations of the document the run exercised: an executed check names it, or an exchange of the run got an
 * answer from it. `leftOut` says why an operation was not in the run on purpose (its group not selected, excluded
 * by the capabilities file); one with no endpoint group is never exercised and is not left out: it is a gap.
 */
export function operationCoverage(
  checks: readonly CheckResult[],
  ops: readonly DocumentOperation[],
  opts: { baseUrl: string; leftOut: (op: DocumentOperation) => string | undefined },
): Coverage['operations'] {
  let basePath = '/';
  try {
    basePath = new URL(opts.baseUrl).pathname;
  } catch {
    // An unparsable base URL matches no exchange: only the checks' operations count.
  }
  const match = operationMatcher(ops, basePath);
  const hit = new Set<string>();
  for (const c of checks) {
    if (c.operation && executed(c)) hit.add(c.operation);
    for (const x of c.exchanges) {
      if (!x.response) continue;
      const id = match(x.request.method, x.request.url);
      if (id) hit.add(id);
    }
  }
  const list: OperationCoverage[] = ops.map((o) => {
    const entry: OperationCoverage = { operation: o.operationId, method: o.method, path: o.path, ...(o.group ? { group: o.group } : {}), exercised: hit.has(o.operationId) };
    if (entry.exercised) return entry;
    const out = opts.leftOut(o);
    if (out) return { ...entry, reason: out, not_in_run: true };
    return { ...entry, reason: o.group ? 'no check of this run reached it' : 'in no endpoint group: its tags name none of the 12 groups' };
  });
  return { total: list.length, exercised: list.filter((o) => o.exercised).length, not_in_run: list.filter((o) => o.not_in_run).length, list };
}

/** The MUST figures of the headline: target requirements only (client-scope ones bind the suite). */
export function mustSummary(reqs: readonly RequirementCoverage[]): Coverage['must'] {
  const must = reqs.filter((r) => r.level === 'MUST' && r.cause !== 'suite-obligation');
  const n = (s: RequirementCoverage['status']) => must.filter((r) => r.status === s).length;
  return {
    total: must.length,
    applicable: must.length - n('not-applicable'),
    verified: n('verified'),
    failed: n('failed'),
    not_verified: n('not-verified'),
    waived: n('waived'),
    not_applicable: n('not-applicable'),
  };
}

export function buildCoverage(reqs: RequirementCoverage[], operations: Coverage['operations']): Coverage {
  return { must: mustSummary(reqs), requirements: reqs, operations };
}
