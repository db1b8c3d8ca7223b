import { BroadcastChannel, threadId } from 'node:worker_threads';

/**
 * Which checks each worker is on, from the workers to the main thread, so the progress line can say what a worker
 * is doing when one check has held it for seconds (a target that answers slowly, a schema that costs the suite
 * much). Each start and end is posted at once, not throttled: a worker that then spins in synchronous code never
 * yields again, and its last message is the only word of where it is. The message is queued on the receiving
 * side as it is posted, so it arrives however the worker fares after.
 */
interface CheckActivity {
  worker: string;
  check: string;
  operation?: string;
  /** The check's own time limit, which vitest enforces only while the worker's event loop turns. */
  limitMs?: number;
  event: 'start' | 'end';
}

const channelName = (runId: string) => `fsapi-conformance:${runId}:checks`;
/** Asks and answers whether a worker's event loop turns, apart from the checks' traffic (rare: on an interrupt). */
const controlName = (runId: string) => `fsapi-conformance:${runId}:control`;

interface Control {
  event: 'ping' | 'pong';
  nonce: number;
  worker?: string;
}

/** In a worker: `started` when a check begins, `ended` when its result is made. */
export function checkActivityReporter(runId: string): { started: (check: string, operation: string | undefined, limitMs: number) => void; ended: (check: string) => void } {
  const channel = new BroadcastChannel(channelName(runId));
  channel.unref();
  // vitest's worker number where there is one (what its own output calls the worker), else the thread's.
  const worker = process.env['VITEST_POOL_ID'] ?? String(threadId);
  // Answered by the event loop: a worker stuck in synchronous code never answers, which is how it is told apart.
  const control = new BroadcastChannel(controlName(runId));
  control.unref();
  control.onmessage = (e) => {
    const c = (e as { data: Control }).data;
    if (c.event === 'ping') control.postMessage({ event: 'pong', nonce: c.nonce, worker } satisfies Control);
  };
  return {
    started: (check, operation, limitMs) => channel.postMessage({ worker, check, event: 'start', limitMs, ...(operation ? { operation } : {}) } satisfies CheckActivity),
    ended: (check) => channel.postMessage({ worker, check, event: 'end' } satisfies CheckActivity),
  };
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
 * In the main thread: the checks running now, by when the main thread heard of their start (`now`'s clock);
 * `longest` names the one running longest. `close` stops listening.
 */
export function listenForCheckActivity(
  runId: string,
  now: () => number = () => performance.now(),
): { longest: () => LongestCheck | undefined; overdue: (graceMs: number) => OverdueWorker[]; unresponsive: (waitMs: number) => Promise<string[]>; close: () => void } {
  const running = new Map<string, { check: string; operation?: string; worker: string; since: number; limitMs?: number }>();
  const lastStarted = new Map<string, string>();
  const channel = new BroadcastChannel(channelName(runId));
  channel.unref();
  channel.onmessage = (e) => {
    const a = (e as { data: CheckActivity }).data;
    const key = `${a.worker}\u0000${a.check}`;
    if (a.event === 'end') running.delete(key);
    else {
      running.set(key, { check: a.check, worker: a.worker, since: now(), ...(a.operation ? { operation: a.operation } : {}), ...(a.limitMs !== undefined ? { limitMs: a.limitMs } : {}) });
      lastStarted.set(a.worker, a.check);
    }
  };
  /** The workers with a check past its own limit by more than `graceMs`: vitest would have ended it, had its worker yielded. */
  const overdue = (graceMs: number): OverdueWorker[] => {
    const byWorker = new Map<string, OverdueWorker>();
    for (const r of running.values()) {
      const forMs = now() - r.since;
      if (r.limitMs === undefined || forMs <= r.limitMs + graceMs || byWorker.has(r.worker)) continue;
      const inFlight = [...running.values()].filter((x) => x.worker === r.worker).map((x) => x.check);
      const last = lastStarted.get(r.worker) ?? r.check;
      byWorker.set(r.worker, { worker: r.worker, limitMs: r.limitMs, forMs, lastStarted: last, others: inFlight.filter((c) => c !== last) });
    }
    return [...byWorker.values()];
  };
  const longest = (): LongestCheck | undefined => {
    let first: { check: string; operation?: string; worker: string; since: number; limitMs?: number } | undefined;
    for (const r of running.values()) if (!first || r.since < first.since) first = r;
    if (!first) return undefined;
    const { since, ...named } = first;
    return { ...named, forMs: now() - since };
  };
  const control = new BroadcastChannel(controlName(runId));
  control.unref();
  let nonce = 0;
  /**
   * The workers on a check now that do not answer within `waitMs`: each is in synchronous code that no cancel
   * reaches (a worker waiting on the network answers at once).
   */
  const unresponsive = (waitMs: number): Promise<string[]> => {
    const silent = new Set([...running.values()].map((r) => r.worker));
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
