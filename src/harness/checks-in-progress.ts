import { BroadcastChannel, threadId } from 'node:worker_threads';

/**
 * Which checks each worker is on, from the workers to the main thread, so the progress line can say what a worker
 * is doing when one check has held it for seconds (a target that answers slowly, a schema that costs the suite
 * much), and the watchdog can tell a worker that spins. Each worker writes its checks in flight into a table in
 * memory it shares with the main thread (a SharedArrayBuffer, announced once on a channel of the run): a start or
 * an end is a few writes, visible to the main thread at once, however the worker fares after (a worker that spins
 * in synchronous code never yields again, and what it wrote last is the only word of where it is). A message per
 * start and end cost the workers 3% of an embedded run's CPU, each one waking every other thread of the run.
 */

/** Checks in flight a worker's table holds at once (the run's concurrency is 16 a worker by default); more are not shown. */
const SLOTS = 256;
/** The bytes of a check's id and operation a slot holds (UTF-8; what is longer is cut). */
const TEXT_BYTES = 384;
/** A slot's Int32 fields: its state (0: free, else the sequence number of its start), the limit, the two lengths. */
const STATE = 0;
const LIMIT = 1;
const CHECK_LENGTH = 2;
const OPERATION_LENGTH = 3;
const INTS = 4;
/** The table's layout: each slot's start time (Float64), its Int32 fields, the last start's sequence, the texts. */
const TIMES_AT = 0;
const INTS_AT = TIMES_AT + SLOTS * 8;
const LAST_AT = INTS_AT + SLOTS * INTS * 4;
const TEXT_AT = LAST_AT + 8;
const TABLE_BYTES = TEXT_AT + SLOTS * TEXT_BYTES;

/** This thread's time on the clock every thread shares (milliseconds since the epoch, not subject to clock changes). */
const sharedNow = (): number => performance.timeOrigin + performance.now();

interface TableViews {
  times: Float64Array;
  ints: Int32Array;
  last: Int32Array;
  text: Uint8Array;
}

const viewsOf = (table: SharedArrayBuffer): TableViews => ({
  times: new Float64Array(table, TIMES_AT, SLOTS),
  ints: new Int32Array(table, INTS_AT, SLOTS * INTS),
  last: new Int32Array(table, LAST_AT, 1),
  text: new Uint8Array(table, TEXT_AT, SLOTS * TEXT_BYTES),
});

/** The announcement of a worker's table, on the run's channel. */
interface TableAnnouncement {
  worker: string;
  table: SharedArrayBuffer;
}

const channelName = (runId: string) => `fsapi-conformance:${runId}:checks`;
/** Asks and answers whether a worker's event loop turns, apart from the checks' traffic (rare: on an interrupt). */
const controlName = (runId: string) => `fsapi-conformance:${runId}:control`;

interface Control {
  event: 'ping' | 'pong' | 'announce';
  nonce?: number;
  worker?: string;
}

type ActivityReporter = { started: (check: string, operation: string | undefined, limitMs: number) => void; ended: (check: string) => void };

/** One reporter a thread for each run: the suite files a worker runs one after another share its table. */
const reporters = new Map<string, ActivityReporter>();

/** In a worker: `started` when a check begins, `ended` when its result is made. `clock` is for tests. */
export function checkActivityReporter(runId: string, clock: () => number = sharedNow): ActivityReporter {
  const known = reporters.get(runId);
  if (known) return known;
  // vitest's worker number where there is one (what its own output calls the worker), else the thread's.
  const worker = process.env['VITEST_POOL_ID'] ?? String(threadId);
  const table = new SharedArrayBuffer(TABLE_BYTES);
  const { times, ints, last, text } = viewsOf(table);
  const channel = new BroadcastChannel(channelName(runId));
  channel.unref();
  const announce = () => channel.postMessage({ worker, table } satisfies TableAnnouncement);
  announce();
  // Answered by the event loop: a worker stuck in synchronous code never answers, which is how it is told apart.
  // A main thread that began to listen after this worker announced its table asks for it again.
  const control = new BroadcastChannel(controlName(runId));
  control.unref();
  control.onmessage = (e) => {
    const c = (e as { data: Control }).data;
    if (c.event === 'ping') control.postMessage({ event: 'pong', nonce: c.nonce, worker } satisfies Control);
    else if (c.event === 'announce') announce();
  };
  const free = Array.from({ length: SLOTS }, (_, i) => SLOTS - 1 - i);
  const slotOf = new Map<string, number>();
  const encoder = new TextEncoder();
  let seq = 0;
  const ended = (check: string) => {
    const slot = slotOf.get(check);
    if (slot === undefined) return;
    slotOf.delete(check);
    Atomics.store(ints, slot * INTS + STATE, 0);
    free.push(slot);
  };
  const reporter: ActivityReporter = {
    started: (check, operation, limitMs) => {
      ended(check);
      const slot = free.pop();
      if (slot === undefined) return;
      const bytes = text.subarray(slot * TEXT_BYTES, (slot + 1) * TEXT_BYTES);
      const checkLength = encoder.encodeInto(check, bytes).written;
      const operationLength = operation ? encoder.encodeInto(operation, bytes.subarray(checkLength)).written : 0;
      const at = slot * INTS;
      ints[at + LIMIT] = Number.isFinite(limitMs) ? Math.min(Math.max(0, Math.round(limitMs)), 0x7fffffff) : -1;
      ints[at + CHECK_LENGTH] = checkLength;
      ints[at + OPERATION_LENGTH] = operation ? operationLength : -1;
      times[slot] = clock();
      // Published last: the main thread reads a slot only while its state is this start's.
      seq = seq === 0x7fffffff ? 1 : seq + 1;
      Atomics.store(ints, at + STATE, seq);
      Atomics.store(last, 0, seq);
      slotOf.set(check, slot);
    },
    ended,
  };
  reporters.set(runId, reporter);
  return reporter;
}

interface Running {
  check: string;
  operation?: string;
  worker: string;
  since: number;
  limitMs?: number;
}

/** The checks a worker's table holds now; a slot that changes while it is read is left out (it just started or ended). */
function runningIn(worker: string, { times, ints, last, text }: TableViews): { running: Running[]; lastStarted: string | undefined } {
  const running: Running[] = [];
  const lastSeq = Atomics.load(last, 0);
  let lastStarted: string | undefined;
  for (let slot = 0; slot < SLOTS; slot++) {
    const at = slot * INTS;
    const state = Atomics.load(ints, at + STATE);
    if (state === 0) continue;
    const limitMs = ints[at + LIMIT]!;
    const checkLength = ints[at + CHECK_LENGTH]!;
    const operationLength = ints[at + OPERATION_LENGTH]!;
    const since = times[slot]!;
    const base = slot * TEXT_BYTES;
    // Copied out of the shared memory: a decoder reads no shared view.
    const check = Buffer.from(text.subarray(base, base + checkLength)).toString('utf8');
    const operation = operationLength >= 0 ? Buffer.from(text.subarray(base + checkLength, base + checkLength + operationLength)).toString('utf8') : undefined;
    if (Atomics.load(ints, at + STATE) !== state) continue;
    running.push({ check, worker, since, ...(operation !== undefined ? { operation } : {}), ...(limitMs >= 0 ? { limitMs } : {}) });
    if (state === lastSeq) lastStarted = check;
  }
  return { running, lastStarted };
}

/** The check that has held a worker longest, and for how long. */
export interface LongestCheck {
  check: string;
  operation?: string;
  worker: string;
  forMs: number;
  /** Its time limit, as the worker gave it. */
  limitMs?: number;
}

/**
 * A worker with a check past its own time limit. Which of its checks in flight holds it cannot be known from
 * outside (one that started earlier may be the one that resumed and never yielded); the last it started is the
 * likeliest, as a check that spins at once never lets the next start.
 */
export interface OverdueWorker {
  worker: string;
  /** The longest past its limit, and for how long it has run. */
  limitMs: number;
  forMs: number;
  /** The check this worker started last, and the others it has in flight. */
  lastStarted: string;
  others: string[];
}

/**
 * In the main thread: the checks running now, read from the workers' tables, each since its worker started it
 * (`now`: the clock threads share; `clock` of checkActivityReporter in tests); `longest` names the one running
 * longest. `close` stops listening.
 */
export function listenForCheckActivity(
  runId: string,
  now: () => number = sharedNow,
): { longest: () => LongestCheck | undefined; overdue: (graceMs: number) => OverdueWorker[]; unresponsive: (waitMs: number) => Promise<string[]>; close: () => void } {
  const tables = new Map<string, TableViews>();
  const channel = new BroadcastChannel(channelName(runId));
  channel.unref();
  channel.onmessage = (e) => {
    const a = (e as { data: TableAnnouncement }).data;
    if (a.table instanceof SharedArrayBuffer && a.table.byteLength === TABLE_BYTES) tables.set(a.worker, viewsOf(a.table));
  };
  const read = () => [...tables].map(([worker, views]) => ({ worker, ...runningIn(worker, views) }));
  const running = () => read().flatMap((w) => w.running);
  /** The workers with a check past its own limit by more than `graceMs`: vitest would have ended it, had its worker yielded. */
  const overdue = (graceMs: number): OverdueWorker[] => {
    const out: OverdueWorker[] = [];
    for (const w of read()) {
      const t = now();
      // The longest running of its checks past their limits.
      const late = w.running.filter((r) => r.limitMs !== undefined && t - r.since > r.limitMs + graceMs).sort((a, b) => a.since - b.since)[0];
      if (!late) continue;
      const last = w.lastStarted ?? late.check;
      out.push({ worker: w.worker, limitMs: late.limitMs!, forMs: t - late.since, lastStarted: last, others: w.running.map((x) => x.check).filter((c) => c !== last) });
    }
    return out;
  };
  const longest = (): LongestCheck | undefined => {
    let first: Running | undefined;
    for (const r of running()) if (!first || r.since < first.since) first = r;
    if (!first) return undefined;
    const { since, ...named } = first;
    return { ...named, forMs: now() - since };
  };
  const control = new BroadcastChannel(controlName(runId));
  control.unref();
  control.postMessage({ event: 'announce' } satisfies Control);
  let nonce = 0;
  /**
   * The workers on a check now that do not answer within `waitMs`: each is in synchronous code that no cancel
   * reaches (a worker waiting on the network answers at once).
   */
  const unresponsive = (waitMs: number): Promise<string[]> => {
    const silent = new Set(running().map((r) => r.worker));
    if (silent.size === 0) return Promise.resolve([]);
    const asked = ++nonce;
    return new Promise((resolve) => {
      const done = () => {
        control.onmessage = () => undefined;
        resolve([...silent]);
      };
      const timer = setTimeout(done, waitMs);
      control.onmessage = (e) => {
        const c = (e as { data: Control }).data;
        if (c.event !== 'pong' || c.nonce !== asked || !c.worker) return;
        silent.delete(c.worker);
        if (silent.size === 0) {
          clearTimeout(timer);
          done();
        }
      };
      control.postMessage({ event: 'ping', nonce: asked } satisfies Control);
    });
  };
  return {
    longest,
    overdue,
    unresponsive,
    close: () => {
      channel.close();
      control.close();
    },
  };
}
