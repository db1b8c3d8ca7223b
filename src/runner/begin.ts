/**
 * The start of a run, split from the rest so that the CLI can take it before it loads the runner: the embedded
 * sandbox's thread then loads its modules on one core while the main thread loads the runner, vitest and the
 * catalogue on the other (about a quarter of a second of a full run's start-up, when only one core was busy).
 * Light on purpose: it imports nothing but the thread launcher.
 */
import type { RunConfig } from '../config/run-config.js';
import { startSandboxThread } from '../../sandbox/thread.js';
import type { RunningSandbox } from '../../sandbox/index.js';

export interface RunStart {
  /** performance.now() when the run began: the start-up phase counts from here. */
  t0: number;
  startedAt: Date;
  /** The embedded sandbox starting, when no target is configured. */
  sandbox: Promise<RunningSandbox> | undefined;
}

export function beginRun(cfg: RunConfig): RunStart {
  const t0 = performance.now();
  const sandbox = cfg.target
    ? undefined
    : startSandboxThread({
        httpPort: 0,
        faults: cfg.sandboxFaults,
        webhookRetryDelaysMs: [50, 100, 200, 400],
        // Trusted by this run's client alone: the certificate kept from an earlier run will do.
        reuseCertificate: true,
        ...(cfg.sandboxFixtures ? { fixturesPath: cfg.sandboxFixtures } : {}),
      });
  // Awaited (and its failure reported) where the run needs it; this marks it handled should the run end first.
  sandbox?.catch(() => undefined);
  return { t0, startedAt: new Date(), sandbox };
}

/** Ends what beginRun started, whether or not the run got as far as using it (closing twice is harmless). */
export async function endRun(start: RunStart): Promise<void> {
  const sandbox = await start.sandbox?.catch(() => undefined);
  await sandbox?.close();
}
