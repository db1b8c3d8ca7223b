/**
 * Spaces request starts so a run stays under its requests-per-second cap. Per process; the runner divides
 * the global cap among its workers. A cap of 0 means none.
 */
export class RateLimiter {
  private next = 0;
  private readonly intervalMs: number;

  constructor(requestsPerSecond: number) {
    this.intervalMs = requestsPerSecond > 0 ? 1000 / requestsPerSecond : 0;
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    if (this.intervalMs === 0) return;
    const now = performance.now();
    const at = Math.max(now, this.next);
    this.next = at + this.intervalMs;
    const wait = at - now;
    if (wait > 0) await delay(wait, signal);
  }
}

/** A cancellable pause, for politeness (rate caps, Retry-After); never used to synchronise tests. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
