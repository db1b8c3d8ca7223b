import { BroadcastChannel } from 'node:worker_threads';

/**
 * Requests sent so far, from the workers to the main thread while checks run, for the live progress line. A
 * check's result carries its suite's total only when the check ends, and against a rate-capped target a check can
 * take many seconds; so each suite also posts its running total, at most every REPORT_EVERY_MS, on a broadcast
 * channel of the run (the vitest workers are threads of the CLI's process).
 */
export const REPORT_EVERY_MS = 250;

interface RequestTotal {
  suite: string;
  requests: number;
}

const channelName = (runId: string) => `fsapi-conformance:${runId}:requests`;

/** In a worker: `sent(suite, total)` after each request; posts the latest total per suite, throttled. */
export function requestTotalsReporter(runId: string): (suite: string, total: number) => void {
  const channel = new BroadcastChannel(channelName(runId));
  // Never what keeps a worker alive.
  channel.unref();
  const pending = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    for (const [suite, requests] of pending) channel.postMessage({ suite, requests } satisfies RequestTotal);
    pending.clear();
  };
  return (suite, total) => {
    pending.set(suite, total);
    timer ??= setTimeout(flush, REPORT_EVERY_MS).unref();
  };
}

/** In the main thread: calls `onTotal` with each total posted; returns the function that stops listening. */
export function listenForRequestTotals(runId: string, onTotal: (suite: string, requests: number) => void): () => void {
  const channel = new BroadcastChannel(channelName(runId));
  channel.unref();
  channel.onmessage = (e) => {
    const { suite, requests } = (e as { data: RequestTotal }).data;
    onTotal(suite, requests);
  };
  return () => channel.close();
}
