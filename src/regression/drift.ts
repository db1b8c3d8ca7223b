/**
 * Behaviour drift against the baseline, from the exchanges both reports recorded: the statuses answered, the members
 * of success bodies and the headers of success answers (names only), and p50/p95 latency per operation. Reported as
 * findings even when every check still passes: a release that drops a member no check reads, or doubles a latency,
 * changed what clients see.
 *
 * Like is compared with like. Statuses, members and headers are compared per check (its stable id) and case (a
 * deliberately invalid probe, a case the check names), per operation and status, never pooled over an operation: a
 * 409 that only one probe draws is that probe's, and a check that ran in one report only is not compared. What a
 * conforming target may answer either way by timing is set aside: a duplicate in flight (the parallel bursts of
 * FSAPI-IDEM-003/103, or any identical requests with one Idempotency-Key sent before another was answered) may get
 * 409 or the replay, so its answer counts as one status whichever it was, and what its success carries (a replay
 * marker, or not) is not compared. A member or header counts when every answer of the unit carried it (every item,
 * for a list's items) in one run and none did in the other: what only some carry (an optional member on some items
 * of a page, a replay's marker on the second answer) comes and goes with the data. A body with a `type` (or
 * `object`, `kind`) member is one variant of its answer: its members are compared only with the same variant's (an
 * event of another type is not a member added), and a variant seen in one report only is not compared.
 *
 * What it reads is the evidence the reports keep (up to 20 exchanges a check, first and last), not every request
 * of the run: a change seen only in the dropped middle of a long check is not seen here.
 */
import { operationMatcher } from '../results/coverage.js';
import { PARALLEL_BURST_CASE } from '../http/exchange.js';
import type { RecordedExchange, RunReport } from '../results/model.js';
import type { BehaviourDrift, DriftFinding, DriftKind } from '../results/regression-model.js';

export type { BehaviourDrift, DriftFinding, DriftKind } from '../results/regression-model.js';

/** Below this growth a latency is noise, whatever the ratio: a 2 ms answer that takes 6 ms is no finding. */
export const LATENCY_FLOOR_MS = 50;
/** Fewer answers than this give no percentile worth comparing. */
const MIN_SAMPLES = 5;
/** Headers that say nothing about the API: transport, caching of the connection, the moment. */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'server', 'vary', 'etag', 'last-modified', 'age', 'via', 'x-request-id', 'request-id', 'x-correlation-id', 'traceparent', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'ratelimit-policy']);
/** Members that name which kind of object a body (or a part of it) is: its members are that kind's. */
const VARIANT_MEMBERS = ['type', 'object', 'kind'] as const;
/** A variant's value is a short name ("customer.created", "wallet"), not free text. */
const VARIANT_VALUE = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * The member paths of the answers of one unit, each with the number of times it was seen, and the number of times
 * each context was seen: the answer itself (""), an item of a list ("data[]"), an object of one variant
 * ("data[]{object=transfer}.destination{type=wallet}"). A member is always there when it was seen as often as its
 * context, and never when not at all; in between it is optional (on some items of a list, in some states), and no
 * finding.
 */
interface Shape {
  members: Map<string, number>;
  contexts: Map<string, number>;
}

/** What one check's answers of one case to one operation showed. */
interface Unit {
  statuses: Set<string>;
  /** By success status. */
  shapes: Map<string, Shape>;
  /** By success status: the header names, as members of the answer. */
  headers: Map<string, Shape>;
}

interface OperationFacts {
  endpoint: string;
  /** By check id and case. */
  units: Map<string, Unit>;
  durations: number[];
}

/** How an answer to a duplicate in flight is counted among its unit's statuses: 409 and a success alike. */
export const IN_FLIGHT_ANSWER = '2xx or 409 (in flight)';

const variantOf = (value: Record<string, unknown>): string => {
  for (const k of VARIANT_MEMBERS) {
    const v = value[k];
    if (typeof v === 'string' && VARIANT_VALUE.test(v)) return `{${k}=${v}}`;
  }
  return '';
};

const emptyShape = (): Shape => ({ members: new Map(), contexts: new Map() });
const bump = (m: Map<string, number>, k: string, by = 1) => m.set(k, (m.get(k) ?? 0) + by);

/** The context a member path is counted in: up to its last list item or variant mark ("data[]", "{type=x}"), or the answer. */
export function contextOf(path: string): string {
  const i = Math.max(path.lastIndexOf(']'), path.lastIndexOf('}'));
  return i === -1 ? '' : path.slice(0, i + 1);
}

/**
 * The member paths of a JSON value, three levels deep, an array's items as `[]` ("data[].id"), added to `out` with
 * their contexts. An object with a `type` (`object`, `kind`) member is marked with its value where its path goes on
 * ("data[].destination{type=wallet}.wallet_id", "{type=customer.created}.data"): its members are that variant's.
 */
export function memberPaths(value: unknown, out: Shape = emptyShape(), prefix = '', depth = 0): Shape {
  if (depth > 2 || value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) {
    for (const item of value.slice(0, 20)) memberPaths(item, out, `${prefix}[]`, depth);
    return out;
  }
  const obj = value as Record<string, unknown>;
  const base = `${prefix}${variantOf(obj)}`;
  if (contextOf(base) === base) bump(out.contexts, base);
  for (const [k, v] of Object.entries(obj)) {
    const p = base ? `${base}.${k}` : k;
    bump(out.members, p);
    memberPaths(v, out, p, depth + 1);
  }
  return out;
}

/** Adds one shape's counts to another's (the answers of one unit). */
function mergeShape(into: Shape, from: Shape): void {
  for (const [k, n] of from.members) bump(into.members, k, n);
  for (const [k, n] of from.contexts) bump(into.contexts, k, n);
}

/** The members `a` always had and `b` never had, where `b` saw their context (a variant seen in one run only is no change). */
function alwaysNotNever(a: Shape, b: Shape): string[] {
  return [...a.members].filter(([m, n]) => n === a.contexts.get(contextOf(m)) && !b.members.has(m) && (b.contexts.get(contextOf(m)) ?? 0) > 0).map(([m]) => m);
}

/** Which case of its check an exchange was: a probe, a case the check named, or its plain requests. */
const caseOf = (x: RecordedExchange): string => (x.probe ? `probe:${x.probe}` : x.case ? `case:${x.case}` : '');

const header = (x: RecordedExchange, name: string) => Object.entries(x.request.headers).find(([k]) => k.toLowerCase() === name)?.[1];
const startOf = (x: RecordedExchange) => Date.parse(x.started_at);
const is2xx = (status: number) => status >= 200 && status <= 299;
/** Timestamps are kept to the millisecond: two requests overlap only by more than that. */
const CLOCK_MS = 1;

/**
 * The exchanges of a check that were duplicates in flight: those its check sent as a parallel burst, and any other
 * identical requests (one case, method, URL, body and Idempotency-Key) each sent before another of them was
 * answered. Which of them the target processes first, and which it answers 409 or as a replay, is the timing's.
 */
function inFlight(exchanges: readonly RecordedExchange[]): Set<RecordedExchange> {
  const out = new Set(exchanges.filter((x) => x.case === PARALLEL_BURST_CASE));
  const byKey = new Map<string, RecordedExchange[]>();
  for (const x of exchanges) {
    const key = header(x, 'idempotency-key');
    if (!key || !x.response || out.has(x)) continue;
    const k = JSON.stringify([caseOf(x), x.request.method, x.request.url, key, x.request.body ?? null]);
    (byKey.get(k) ?? byKey.set(k, []).get(k)!).push(x);
  }
  const before = (y: RecordedExchange, x: RecordedExchange) => startOf(y) + CLOCK_MS < startOf(x) + x.duration_ms;
  for (const list of byKey.values()) for (const x of list) if (list.some((y) => y !== x && before(y, x) && before(x, y))) out.add(x);
  return out;
}

/** An answer's header names as a shape: the answer is their one context. */
function headersOf(x: RecordedExchange): Shape {
  const names = new Set(Object.keys(x.response!.headers).map((h) => h.toLowerCase()).filter((h) => !TRANSPORT_HEADERS.has(h)));
  return { members: new Map([...names].map((h) => [h, 1])), contexts: new Map([['', 1]]) };
}

function shapeOf(x: RecordedExchange): Shape | undefined {
  if (x.response!.body === undefined || x.response!.body_truncated) return undefined;
  try {
    return memberPaths(JSON.parse(x.response!.body) as unknown);
  } catch {
    return undefined;
  }
}

function factsOf(report: RunReport): Map<string, OperationFacts> {
  const ops = report.coverage?.operations.list ?? [];
  const match = operationMatcher(
    ops.map((o) => ({ operationId: o.operation, method: o.method, path: o.path })),
    new URL(report.target.base_url).pathname,
  );
  const endpoint = new Map(ops.map((o) => [o.operation, `${o.method} ${o.path}`]));
  const operations = new Map<string, OperationFacts>();
  for (const c of report.checks) {
    const racing = inFlight(c.exchanges);
    for (const x of c.exchanges) {
      if (!x.response) continue;
      const id = x.operation ?? match(x.request.method, x.request.url);
      if (!id) continue;
      const f = operations.get(id) ?? operations.set(id, { endpoint: endpoint.get(id) ?? id, units: new Map(), durations: [] }).get(id)!;
      f.durations.push(x.duration_ms);
      const duplicate = racing.has(x);
      const key = `${c.id}\n${caseOf(x)}${duplicate ? '\nin flight' : ''}`;
      const u = f.units.get(key) ?? f.units.set(key, { statuses: new Set(), shapes: new Map(), headers: new Map() }).get(key)!;
      const { status } = x.response;
      // A duplicate in flight may be answered 409 or as the success, as the timing falls: either is the one answer.
      // What its success carries (a replay's marker, or not) is the timing's too; other checks read the operation's.
      if (duplicate) {
        u.statuses.add(status === 409 || is2xx(status) ? IN_FLIGHT_ANSWER : String(status));
        continue;
      }
      u.statuses.add(String(status));
      if (!is2xx(status)) continue;
      mergeShape(u.headers.get(String(status)) ?? u.headers.set(String(status), emptyShape()).get(String(status))!, headersOf(x));
      const shape = shapeOf(x);
      if (!shape) continue;
      mergeShape(u.shapes.get(String(status)) ?? u.shapes.set(String(status), emptyShape()).get(String(status))!, shape);
    }
  }
  return operations;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const minus = (a: Set<string>, b: Set<string>) => [...a].filter((x) => !b.has(x));

/** A change and the checks (by id) whose answers show it. */
type Seen = Map<string, Set<string>>;

export function behaviourDrift(baseline: RunReport, current: RunReport, latencyRatio = 2): BehaviourDrift {
  const before = factsOf(baseline);
  const after = factsOf(current);
  const findings: DriftFinding[] = [];
  let compared = 0;
  let cases = 0;
  for (const [id, now] of after) {
    const was = before.get(id);
    if (!was) continue;
    let shared = 0;
    // Per kind and status: each item changed, with the checks that show it.
    const changes = new Map<string, Seen>();
    const note = (kind: DriftKind, status: string, items: string[], check: string) => {
      const k = `${kind}\n${status}`;
      const seen = changes.get(k) ?? changes.set(k, new Map()).get(k)!;
      for (const item of items) (seen.get(item) ?? seen.set(item, new Set()).get(item)!).add(check);
    };
    for (const [key, u] of now.units) {
      const old = was.units.get(key);
      if (!old) continue;
      shared++;
      const check = key.slice(0, key.indexOf('\n'));
      note('status-added', '', minus(u.statuses, old.statuses), check);
      note('status-gone', '', minus(old.statuses, u.statuses), check);
      // Members and headers only of statuses both runs saw: a status that came or went is its own finding.
      for (const [status, shape] of u.shapes) {
        const o = old.shapes.get(status);
        if (!o) continue;
        // Always there in one run, never in the other, where both saw its context (an event of another type is none).
        note('member-added', status, alwaysNotNever(shape, o), check);
        note('member-gone', status, alwaysNotNever(o, shape), check);
      }
      for (const [status, headers] of u.headers) {
        const o = old.headers.get(status);
        if (!o) continue;
        note('header-added', status, alwaysNotNever(headers, o), check);
        note('header-gone', status, alwaysNotNever(o, headers), check);
      }
    }
    compared++;
    cases += shared;
    for (const [k, seen] of changes) {
      if (!seen.size) continue;
      const [kind, status] = k.split('\n') as [DriftKind, string];
      const items = [...seen.keys()].sort();
      const checks = [...new Set(items.flatMap((i) => [...seen.get(i)!]))].sort();
      findings.push({ operation: id, endpoint: now.endpoint, kind, ...(status ? { status } : {}), items, checks });
    }
    // Latency is the operation's, over every answer: a slower target is slower whichever check asked.
    if (now.durations.length >= MIN_SAMPLES && was.durations.length >= MIN_SAMPLES) {
      const [a, b] = [[...was.durations].sort((x, y) => x - y), [...now.durations].sort((x, y) => x - y)];
      const slower = ([50, 95] as const)
        .map((p) => ({ p, was: percentile(a, p), now: percentile(b, p) }))
        .filter((q) => q.now > q.was * latencyRatio && q.now - q.was >= LATENCY_FLOOR_MS)
        .map((q) => `p${q.p} ${Math.round(q.was)} ms -> ${Math.round(q.now)} ms`);
      if (slower.length) findings.push({ operation: id, endpoint: now.endpoint, kind: 'latency', items: slower });
    }
  }
  const order = (f: DriftFinding) => `${f.endpoint}\n${f.kind}\n${f.status ?? ''}`;
  findings.sort((x, y) => (order(x) < order(y) ? -1 : order(x) > order(y) ? 1 : 0));
  return {
    latency_ratio: latencyRatio,
    latency_floor_ms: LATENCY_FLOOR_MS,
    operations_compared: compared,
    cases_compared: cases,
    findings,
  };
}
