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
  event: 'start' | 'end';
}

const channelName = (runId: string) => `fsapi-conformance:${runId}:checks`;

/** In a worker: `started` when a check begins, `ended` when its result is made. */
export function checkActivityReporter(runId: string): { started: (check: string, operation: string | undefined) => void; ended: (check: string) => void } {
  const channel = new BroadcastChannel(channelName(runId));
  channel.unref();
  // vitest's worker number where there is one (what its own output calls the worker), else the thread's.
  const worker = process.env['VITEST_POOL_ID'] ?? String(threadId);
  return {
    started: (check, operation) => channel.postMessage({ worker, check, event: 'start', ...(operation ? { operation } : {}) } satisfies CheckActivity),
    ended: (check) => channel.postMessage({ worker, check, event: 'end' } satisfies CheckActivity),
  };
}

/** The check that has held a worker longest, and for how long. */
export interface LongestCheck {
  check: string;
  operation?: string;
  worker: string;
  forMs: number;
}

/**
 * In the main thread: the checks running now, by when the main thread heard of their start (`now`'s clock);
 * `longest` names the one running longest. `close` stops listening.
 */
export function listenForCheckActivity(runId: string, now: () => number = () => performance.now()): { longest: () => LongestCheck | undefined; close: () => void } {
  const running = new Map<string, { check: string; operation?: string; worker: string; since: number }>();
  const channel = new BroadcastChannel(channelName(runId));
  channel.unref();
  channel.onmessage = (e) => {
    const a = (e as { data: CheckActivity }).data;
    const key = `${a.worker}\u0000${a.check}`;
    if (a.event === 'end') running.delete(key);
    else running.set(key, { check: a.check, worker: a.worker, since: now(), ...(a.operation ? { operation: a.operation } : {}) });
  };
  const longest = (): LongestCheck | undefined => {
    let first: { check: string; operation?: string; worker: string; since: number } | undefined;
    for (const r of running.values()) if (!first || r.since < first.since) first = r;
    if (!first) return undefined;
    const { since, ...named } = first;
    return { ...named, forMs: now() - since };
  };
  return { longest, close: () => channel.close() };
}
