/** Work that happens after a response: settlements, KYC decisions, webhook attempts. All of it stops on close(). */
export class Scheduler {
  private readonly immediates = new Set<NodeJS.Immediate>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  /** Runs `fn` right after the current turn of the event loop (after the response being written is sent). */
  soon(fn: () => void | Promise<void>): void {
    if (this.closed) return;
    const handle = setImmediate(() => {
      this.immediates.delete(handle);
      this.run(fn);
    });
    this.immediates.add(handle);
  }

  later(fn: () => void | Promise<void>, ms: number): void {
    if (this.closed) return;
    const handle = setTimeout(() => {
      this.timers.delete(handle);
      this.run(fn);
    }, ms);
    this.timers.add(handle);
  }

  /** Work waiting to run. */
  get pending(): number {
    return this.immediates.size + this.timers.size;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    for (const h of this.immediates) clearImmediate(h);
    for (const h of this.timers) clearTimeout(h);
    this.immediates.clear();
    this.timers.clear();
  }

  private run(fn: () => void | Promise<void>): void {
    if (this.closed) return;
    try {
      const r = fn();
      // Background work has no one to answer to; a failure must not take the sandbox down.
      if (r instanceof Promise) r.catch(() => undefined);
    } catch {
      // see above
    }
  }
}
