/**
 * bench/floor.ts's replay: the requests of a run's trace (FSAPI_TRACE_FILE) made ready to send again to a sandbox
 * started apart (its secrets filled in, idempotency keys remapped), and sent with a bare undici Agent.
 */
import { createHash, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, request, type Dispatcher } from 'undici';
import type { SandboxJsonLine } from '../src/cli/commands/sandbox.js';

/** One line of FSAPI_TRACE_FILE. */
export interface TraceLine {
  at: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  status: number | null;
}

export interface Replayable {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** What the run got. */
  status: number | null;
  /**
   * A repeat the run sent on purpose after a wait: the index of the request whose Idempotency-Key it repeats,
   * and the wait. The timed replay sends it no sooner than that long after that request was sent.
   */
  after?: { index: number; ms: number };
}

/** The secrets the trace names, and the sandbox's values for them. */
function secretValues(info: SandboxJsonLine): Record<string, string> {
  const [alpha, beta] = info.tenants;
  return {
    FSAPI_API_KEY: alpha!.secret_key,
    FSAPI_PUBLIC_KEY: alpha!.public_key,
    FSAPI_LIVE_API_KEY: info.live_key,
    FSAPI_REVOKED_API_KEY: info.revoked_key,
    FSAPI_SECOND_API_KEY: beta!.secret_key,
  };
}

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A fresh key for a UUID-shaped one, the same for the same key (so a replay in the trace is still a replay, a
 * reuse with another body still a reuse, and a key used by both businesses still shared): every hex digit comes
 * from a hash of the key, except the version and variant digits, and each letter keeps its case (keys that
 * differ only in case still differ only in case). Keys of any other shape (empty, too long, odd characters:
 * the checks' deliberate bad keys) are sent as they were.
 */
function remapKey(key: string, salt: string): string {
  if (!UUID_SHAPE.test(key)) return key;
  const h = createHash('sha256').update(`${salt}|${key.toLowerCase()}`).digest('hex');
  let j = 0;
  return [...key]
    .map((c, i) => {
      if (c === '-' || i === 14 || i === 19) return c;
      const d = h[j++ % h.length]!;
      return c >= 'A' && c <= 'F' ? d.toUpperCase() : d;
    })
    .join('');
}

export interface Prepared {
  requests: Replayable[];
  /** Requests that repeat an earlier request's key at least the replay delay later (`after` is set on them). */
  delayed: number;
  skipped_plain_http: number;
  skipped_other_origin: number;
  unresolved_secrets: Record<string, number>;
  keys_remapped: number;
}

/**
 * The requests of the trace, ready to send again. `delayMs` is the run's replay delay: a request that repeats an
 * earlier request's Idempotency-Key at least that long after it (the delayed replay and the retention
 * observation, which wait on purpose; every other reuse of a key follows at once) gets `after`.
 */
export function prepare(lines: TraceLine[], info: SandboxJsonLine, keys: 'fresh' | 'verbatim', delayMs: number): Prepared {
  const secrets = secretValues(info);
  const unresolved: Record<string, number> = {};
  const fill = (s: string): string =>
    s.replace(/\[REDACTED:([A-Z_]+)\]/g, (all, name: string) => {
      const v = secrets[name];
      if (v !== undefined) return v;
      unresolved[name] = (unresolved[name] ?? 0) + 1;
      return all;
    });
  const origin = new URL(info.base_url).origin;
  const plainOrigin = info.plain_http_url ? new URL(info.plain_http_url).origin : undefined;
  const salt = randomUUID();
  const out: Prepared = { requests: [], delayed: 0, skipped_plain_http: 0, skipped_other_origin: 0, unresolved_secrets: unresolved, keys_remapped: 0 };
  // In the order the run sent them (the trace is appended as answers arrive).
  const ordered = [...lines].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  /** The first replayed request with each key (as the trace has it), and when the run sent it. */
  const firstWithKey = new Map<string, { index: number; at: number }>();
  for (const l of ordered) {
    const url = fill(l.url);
    let o: string;
    try {
      o = new URL(url).origin;
    } catch {
      out.skipped_other_origin++;
      continue;
    }
    if (o !== origin) {
      if (o === plainOrigin || url.startsWith('http:')) out.skipped_plain_http++;
      else out.skipped_other_origin++;
      continue;
    }
    const headers: Record<string, string> = {};
    let key: string | undefined;
    for (const [k, v] of Object.entries(l.headers)) {
      let value = fill(v);
      if (k.toLowerCase() === 'idempotency-key') key = value;
      if (keys === 'fresh' && k.toLowerCase() === 'idempotency-key') {
        const mapped = remapKey(value, salt);
        if (mapped !== value) out.keys_remapped++;
        value = mapped;
      }
      headers[k] = value;
    }
    let after: Replayable['after'];
    if (key) {
      // Keys are per business: the same key from the other one is not a repeat.
      const scoped = `${headers['x-tenant-id'] ?? ''}|${key}`;
      const at = Date.parse(l.at);
      const first = firstWithKey.get(scoped);
      if (!first) firstWithKey.set(scoped, { index: out.requests.length, at });
      else if (at - first.at >= delayMs) after = { index: first.index, ms: delayMs };
    }
    if (after) out.delayed++;
    out.requests.push({ method: l.method, url, headers, ...(l.body !== undefined ? { body: fill(l.body) } : {}), status: l.status, ...(after ? { after } : {}) });
  }
  return out;
}

export interface ReplayResult {
  duration_ms: number;
  statuses: Record<string, number>;
  same_status_as_run: number;
  errors: Record<string, number>;
}

/**
 * Sends the requests with a bare undici Agent, at most `concurrency` in flight, in their order. Timed, a request
 * with `after` is not sent sooner than `after.ms` after the request it repeats was sent (its own task waits for
 * that; it does not hold a slot meanwhile); untimed, every request goes as soon as a slot is free.
 */
export async function replay(requests: Replayable[], ca: string, concurrency: number, timed: boolean): Promise<ReplayResult> {
  const agent = new Agent({ connect: { ca }, connections: concurrency, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const statuses: Record<string, number> = {};
  const errors: Record<string, number> = {};
  let same = 0;
  const send = async (r: Replayable): Promise<void> => {
    let status: string;
    try {
      const res = await request(r.url, { method: r.method as Dispatcher.HttpMethod, headers: r.headers, ...(r.body !== undefined ? { body: r.body } : {}), dispatcher: agent });
      await res.body.dump();
      status = String(res.statusCode);
      if (res.statusCode === r.status) same++;
    } catch (e) {
      status = 'error';
      const name = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      errors[name] = (errors[name] ?? 0) + 1;
    }
    statuses[status] = (statuses[status] ?? 0) + 1;
  };
  // When each request that a held one repeats was sent (the first with its key: never held itself).
  const sent = new Map<number, { resolve: (at: number) => void; promise: Promise<number> }>();
  const held = timed ? requests.filter((r) => r.after) : [];
  for (const r of held) {
    if (sent.has(r.after!.index)) continue;
    let resolve!: (at: number) => void;
    const promise = new Promise<number>((res) => (resolve = res));
    sent.set(r.after!.index, { resolve, promise });
  }
  const queue = requests.map((_, i) => i).filter((i) => !(timed && requests[i]!.after));
  let next = 0;
  try {
    const t0 = performance.now();
    await Promise.all([
      ...Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
        for (let q = next++; q < queue.length; q = next++) {
          const i = queue[q]!;
          sent.get(i)?.resolve(performance.now());
          await send(requests[i]!);
        }
      }),
      ...held.map(async (r) => {
        const at = await sent.get(r.after!.index)!.promise;
        await delay(Math.max(0, at + r.after!.ms - performance.now()));
        await send(r);
      }),
    ]);
    return { duration_ms: performance.now() - t0, statuses, same_status_as_run: same, errors };
  } finally {
    await agent.close();
  }
}

/** Status counts by class: 2xx, 3xx, 4xx, 5xx, error. */
export function byClass(statuses: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, error: 0 };
  for (const [s, n] of Object.entries(statuses)) {
    const k = s === 'error' || s === 'null' ? 'error' : `${s[0]}xx`;
    out[k] = (out[k] ?? 0) + n;
  }
  return out;
}
