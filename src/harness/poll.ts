import { delay } from '../http/rate-limiter.js';

/**
 * Reads until a condition holds or a deadline passes: for state a real target reaches asynchronously
 * (KYC decisions, settlements). Against the reference sandbox the first read already satisfies it.
 * Returns the last value read, and whether the condition held.
 */
export async function pollUntil<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs: number, signal?: AbortSignal): Promise<{ value: T; ok: boolean }> {
  const deadline = performance.now() + timeoutMs;
  let wait = 20;
  for (;;) {
    const value = await read();
    if (done(value)) return { value, ok: true };
    if (performance.now() + wait > deadline) return { value, ok: false };
    await delay(wait, signal);
    wait = Math.min(wait * 2, 1000);
  }
}
