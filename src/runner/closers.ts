/**
 * What a run has opened, closed in the reverse order it was opened, whatever happened in between: each phase
 * registers the closing of what it opens as soon as it has opened it, so a phase that fails half-way leaves
 * nothing running.
 */
export class Closers {
  private readonly stack: (() => unknown)[] = [];

  /** Registers one closing (sync or async); it runs once, in `closeAll`. */
  add(close: () => unknown): void {
    this.stack.push(close);
  }

  /** Runs every closing, last opened first. Each runs even when one before it failed; the first failure is thrown after. */
  async closeAll(): Promise<void> {
    let failure: { error: unknown } | undefined;
    for (const close of this.stack.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }
}
