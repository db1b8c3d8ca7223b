/**
 * Behaviour drift against the baseline, per operation, from the exchanges both reports recorded: the statuses
 * answered, the members of success bodies and the headers of success answers (names only), and p50/p95 latency.
 * Reported as findings even when every check still passes: a release that drops a member no check reads, or
 * doubles a latency, changed what clients see.
 *
 * What it reads is the evidence the reports keep (up to 20 exchanges a check, first and last), not every request
 * of the run: a change seen only in the dropped middle of a long check is not seen here.
 */
import { operationMatcher } from '../results/coverage.js';
import type { RecordedExchange, RunReport } from '../results/model.js';
import type { BehaviourDrift, DriftFinding, DriftKind } from '../results/regression-model.js';

export type { BehaviourDrift, DriftFinding, DriftKind } from '../results/regression-model.js';

/** Below this growth a latency is noise, whatever the ratio: a 2 ms answer that takes 6 ms is no finding. */
export const LATENCY_FLOOR_MS = 50;
/** Fewer answers than this give no percentile worth comparing. */
const MIN_SAMPLES = 5;
/** Headers that say nothing about the API: transport, caching of the connection, the moment. */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'server', 'vary', 'etag', 'last-modified', 'age', 'via', 'x-request-id', 'request-id', 'x-correlation-id', 'traceparent', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'ratelimit-policy']);

interface OperationFacts {
  endpoint: string;
  statuses: Set<string>;
  /** By success status: member paths of the JSON bodies ("id", "data[].id"). */
  members: Map<string, Set<string>>;
  headers: Map<string, Set<string>>;
  durations: number[];
}

/** The member paths of a JSON value, three levels deep, an array's items as `[]` ("data[].id"). */
export function memberPaths(value: unknown, prefix = '', depth = 0, out = new Set<string>()): Set<string> {
  if (depth > 2 || value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) {
    for (const item of value.slice(0, 20)) memberPaths(item, `${prefix}[]`, depth, out);
    return out;
  }
  for (const [k, v] of Object.entries(value)) {
    const p = prefix ? `${prefix}.${k}` : k;
    out.add(p);
    memberPaths(v, p, depth + 1, out);
  }
  return out;
}

function factsOf(report: RunReport): Map<string, OperationFacts> {
  const ops = report.coverage?.operations.list ?? [];
  const match = operationMatcher(
    ops.map((o) => ({ operationId: o.operation, method: o.method, path: o.path })),
    new URL(report.target.base_url).pathname,
  );
  const endpoint = new Map(ops.map((o) => [o.operation, `${o.method} ${o.path}`]));
  const facts = new Map<string, OperationFacts>();
  const add = (x: RecordedExchange) => {
    if (!x.response) return;
    const id = match(x.request.method, x.request.url);
    if (!id) return;
    const f = facts.get(id) ?? facts.set(id, { endpoint: endpoint.get(id) ?? id, statuses: new Set(), members: new Map(), headers: new Map(), durations: [] }).get(id)!;
    const status = String(x.response.status);
    f.statuses.add(status);
    f.durations.push(x.duration_ms);
    if (x.response.status < 200 || x.response.status > 299) return;
    const names = f.headers.get(status) ?? f.headers.set(status, new Set()).get(status)!;
    for (const h of Object.keys(x.response.headers)) if (!TRANSPORT_HEADERS.has(h.toLowerCase())) names.add(h.toLowerCase());
    if (x.response.body === undefined || x.response.body_truncated) return;
    let body: unknown;
    try {
      body = JSON.parse(x.response.body);
    } catch {
      return;
    }
    const members = f.members.get(status) ?? f.members.set(status, new Set()).get(status)!;
    memberPaths(body, '', 0, members);
  };
  for (const c of report.checks) for (const x of c.exchanges) add(x);
  return facts;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const minus = (a: Set<string>, b: Set<string>) => [...a].filter((x) => !b.has(x)).sort();

export function behaviourDrift(baseline: RunReport, current: RunReport, latencyRatio = 2): BehaviourDrift {
  const before = factsOf(baseline);
  const after = factsOf(current);
  const findings: DriftFinding[] = [];
  let compared = 0;
  for (const [id, now] of after) {
    const was = before.get(id);
    if (!was) continue;
    compared++;
    const push = (kind: DriftKind, items: string[], status?: string) => {
      if (items.length) findings.push({ operation: id, endpoint: now.endpoint, kind, ...(status ? { status } : {}), items });
    };
    push('status-added', minus(now.statuses, was.statuses));
    push('status-gone', minus(was.statuses, now.statuses));
    // Members and headers only of statuses both runs saw: a status that came or went is its own finding.
    for (const [status, members] of now.members) {
      const old = was.members.get(status);
      if (!old) continue;
      push('member-added', minus(members, old), status);
      push('member-gone', minus(old, members), status);
    }
    for (const [status, headers] of now.headers) {
      const old = was.headers.get(status);
      if (!old) continue;
      push('header-added', minus(headers, old), status);
      push('header-gone', minus(old, headers), status);
    }
    if (now.durations.length >= MIN_SAMPLES && was.durations.length >= MIN_SAMPLES) {
      const [a, b] = [[...was.durations].sort((x, y) => x - y), [...now.durations].sort((x, y) => x - y)];
      const slower = ([50, 95] as const)
        .map((p) => ({ p, was: percentile(a, p), now: percentile(b, p) }))
        .filter((q) => q.now > q.was * latencyRatio && q.now - q.was >= LATENCY_FLOOR_MS)
        .map((q) => `p${q.p} ${Math.round(q.was)} ms -> ${Math.round(q.now)} ms`);
      push('latency', slower);
    }
  }
  findings.sort((x, y) => (x.endpoint < y.endpoint ? -1 : x.endpoint > y.endpoint ? 1 : x.kind < y.kind ? -1 : 1));
  return { latency_ratio: latencyRatio, latency_floor_ms: LATENCY_FLOOR_MS, operations_compared: compared, findings };
}
