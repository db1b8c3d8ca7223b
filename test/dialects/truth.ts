/**
 * The truth binding of a dialect (/work BINDING-FORMAT, version 1): what a perfect `bind` would write for the
 * dialect's document. The bench scores `bind`'s own output against it entry by entry.
 */
import type { Dialect, JsonObject } from './dialect.js';

export interface BindingOperation {
  operation: string;
  path_params?: Record<string, string>;
  query?: Record<string, string>;
  envelope?: string;
  list?: Record<string, string>;
}

export interface Binding {
  binding: 1;
  spec: string;
  fields?: Record<string, string>;
  states?: Record<string, string>;
  values?: Record<string, Record<string, string>>;
  events?: Record<string, string>;
  errors?: { code: string; message: string };
  operations: Record<string, BindingOperation>;
}

/** A member holding a state (status, state, kyc_status): its values go under `states`, the others under `values`. */
const isStateMember = (name: string): boolean => /(^|_)(status|state)$/.test(name);

export function truthBinding(d: Dialect, specFile: string): Binding {
  const operations: Record<string, BindingOperation> = {};
  for (const op of d.operations) {
    const route = d.routes.find((r) => r.refPath === op.refPath)!;
    const entry: BindingOperation = { operation: d.vendorOperationId(op.id) };
    const pathParams = Object.fromEntries([...route.params].filter(([ref, vendor]) => ref !== vendor));
    if (Object.keys(pathParams).length > 0) entry.path_params = pathParams;
    const query = Object.fromEntries(op.query.filter((q) => d.fields.has(q)).map((q) => [q, d.fields.get(q)!]));
    if (Object.keys(query).length > 0) entry.query = query;
    if (op.kind === 'resource' && d.def.envelope) entry.envelope = d.def.envelope;
    if (op.kind === 'list' && d.def.list) {
      const list = { ...d.def.list } as Record<string, string>;
      // A list without paging parameters (listFeatures) has only the members.
      if (!op.paged) for (const k of ['cursor_param', 'offset_param', 'limit_param']) delete list[k];
      entry.list = list;
    }
    operations[op.id] = entry;
  }
  const states: Record<string, string> = {};
  const values: Record<string, Record<string, string>> = {};
  for (const [member, m] of d.values) {
    if (isStateMember(member)) Object.assign(states, Object.fromEntries(m));
    else values[member] = Object.fromEntries(m);
  }
  return {
    binding: 1,
    spec: specFile,
    ...(d.fields.size > 0 ? { fields: Object.fromEntries(d.fields) } : {}),
    ...(Object.keys(states).length > 0 ? { states } : {}),
    ...(Object.keys(values).length > 0 ? { values } : {}),
    ...(d.events.size > 0 ? { events: Object.fromEntries(d.events) } : {}),
    ...(d.def.errors ? { errors: { ...d.def.errors } } : {}),
    operations,
  };
}

/** One scored entry: a reference operation's mapping, path parameters, query, envelope or list shape, or a global map. */
export interface EntryScore {
  kind: 'operation' | 'path_params' | 'query' | 'envelope' | 'list' | 'fields' | 'states' | 'values' | 'events' | 'errors';
  key: string;
  right: boolean;
  expected: unknown;
  got: unknown;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.entries(v as JsonObject).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, sortKeys(x)]));
}

/** The vendor operation named by an entry: an operationId, or "METHOD /path" resolved through the truth's routes. */
function sameOperation(d: Dialect, refId: string, expected: string, got: string | undefined): boolean {
  if (got === undefined) return false;
  if (got === expected) return true;
  const op = d.operations.find((o) => o.id === refId)!;
  const route = d.routes.find((r) => r.refPath === op.refPath)!;
  return got.replace(/\s+/g, ' ').trim() === `${op.method} ${route.vendorPath}`;
}

/**
 * Scores a binding against the truth: every reference operation's mapping and path_params (identity when absent),
 * query, envelope and list (each where the truth or the binding has one), and each global field and state entry.
 */
export function scoreBinding(d: Dialect, truth: Binding, got: Partial<Binding>): EntryScore[] {
  const scores: EntryScore[] = [];
  const ops = (got.operations ?? {}) as Record<string, Partial<BindingOperation>>;
  for (const [refId, want] of Object.entries(truth.operations)) {
    const have = ops[refId] ?? {};
    scores.push({ kind: 'operation', key: refId, right: sameOperation(d, refId, want.operation, have.operation), expected: want.operation, got: have.operation });
    // An identity entry (customer_id: customer_id) says what absence says.
    const haveParams = Object.fromEntries(Object.entries(have.path_params ?? {}).filter(([ref, vendor]) => ref !== vendor));
    scores.push({ kind: 'path_params', key: refId, right: same(want.path_params ?? {}, haveParams), expected: want.path_params ?? {}, got: have.path_params ?? {} });
    for (const k of ['query', 'envelope', 'list'] as const) {
      if (want[k] === undefined && have[k] === undefined) continue;
      scores.push({ kind: k, key: refId, right: same(want[k] ?? null, have[k] ?? null), expected: want[k] ?? null, got: have[k] ?? null });
    }
  }
  for (const k of ['fields', 'states', 'events'] as const) {
    const want = truth[k] ?? {};
    const have = got[k] ?? {};
    for (const key of new Set([...Object.keys(want), ...Object.keys(have)])) {
      scores.push({ kind: k, key, right: want[key] === have[key], expected: want[key] ?? null, got: have[key] ?? null });
    }
  }
  const flat = (v: Binding['values']) => Object.fromEntries(Object.entries(v ?? {}).flatMap(([member, m]) => Object.entries(m).map(([from, to]) => [`${member}: ${from}`, to])));
  const want = flat(truth.values);
  const have = flat(got.values);
  for (const key of new Set([...Object.keys(want), ...Object.keys(have)])) {
    scores.push({ kind: 'values', key, right: want[key] === have[key], expected: want[key] ?? null, got: have[key] ?? null });
  }
  if (truth.errors || got.errors) scores.push({ kind: 'errors', key: 'errors', right: same(truth.errors ?? null, got.errors ?? null), expected: truth.errors ?? null, got: got.errors ?? null });
  return scores;
}
