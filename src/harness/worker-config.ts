import type { SuiteSlug } from '../catalogue/groups.js';
import type { Capabilities } from '../config/capabilities.js';
import type { Credentials, Environment } from '../config/run-config.js';
import type { ExploreAllocation } from '../results/exploration.js';

/**
 * What the runner hands every vitest worker (through `provide`/`inject`). It holds secrets: it lives in
 * memory only, and nothing writes it anywhere.
 */
export interface WorkerConfig {
  runId: string;
  seed: number;
  strict: boolean;
  environment: Environment;
  allowLiveWrites: boolean;
  embedded: boolean;
  baseUrl: string;
  caPem?: string;
  credentials: Credentials;
  plainHttpUrl?: string;
  /** The run's webhook receiver: where workers read what it got. */
  receiver?: { inspectUrl: string };
  specPath: string;
  isReferenceProfile: boolean;
  /** The vendor binding file, loaded with the spec (src/binding). */
  bindingPath?: string;
  capabilities?: Capabilities;
  timeoutMs: number;
  maxResponseBytes: number;
  /** The run's request pacing, shared by every thread (src/http/rate-limiter.ts): the cap, Retry-After pauses, throttling figures. */
  throttle: SharedArrayBuffer;
  /** The most checks a suite file runs at once: the run's concurrency plus the slots of its checks that wait (vitest's maxConcurrency). */
  checksInFlight: number;
  idempotencyParallel: number;
  webhookWaitMs: number;
  replayDelayMs: number;
  /** The exploration phase's requests per operation (src/explore); 0: off. */
  explore: number;
  /** What the run's total budget leaves each operation, decided when the run was planned (src/results/exploration.ts). */
  exploreAllocation: ExploreAllocation;
  /** The suites of the run (the waiting file declares their checks that wait). */
  groups: SuiteSlug[];
  /** The suite that declares the checks that wait, of every suite, first, beside its own: there is no waiting file. */
  waitsHost?: SuiteSlug;
  /** With a baseline: the checks that passed there, and how many times one that fails now is run again (src/harness/retry.ts). */
  rerun?: { passed: string[]; retries: number };
  /** Append every request (redacted, JSON lines) here. */
  traceFile?: string;
  /** How created resources are labelled, so a vendor can find them. */
  label: { emailDomain: string; metadataKey: string; metadataValue: string };
}

declare module 'vitest' {
  export interface ProvidedContext {
    fsapi: WorkerConfig;
  }
}
