import type { SuiteSlug } from '../catalogue/groups.js';
import type { Capabilities } from '../config/capabilities.js';
import type { Credentials, Environment } from '../config/run-config.js';

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
  /** With a vendor's document: "METHOD path" of each reference operation, so drivers serve matching operations. */
  referenceOperations?: Record<string, string>;
  capabilities?: Capabilities;
  timeoutMs: number;
  maxResponseBytes: number;
  /** This worker's share of the run's request-rate cap (0 = none). */
  ratePerWorker: number;
  concurrency: number;
  idempotencyParallel: number;
  webhookWaitMs: number;
  replayDelayMs: number;
  /** The suites of the run (the waiting file declares their checks that wait). */
  groups: SuiteSlug[];
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
