/**
 * What a suite's exploration checks found, by operation, for the checks that judge the same exploration under another
 * requirement (src/checks/explore.ts): the exploration runs once, in the check that sends it, and its sibling reads
 * it here once every concurrent check of the suite is done.
 */
import type { Minimal } from '../explore/explore.js';
import type { HttpResponse } from '../http/client.js';

export interface ExplorationRecord {
  /** Explored requests answered, the shrinking's too: what the exploring check's evidence holds. */
  answered: number;
  /** Those answered with a server error, in order. */
  serverErrors: HttpResponse[];
  /** The exploration's first server error, shrunk, when it found one. */
  minimal?: Minimal;
  /** Why the exploration reached no verdict (it was skipped, or ended in an error), when it did not. */
  unfinished?: string;
}

export class ExplorationLedger {
  private readonly byOperation = new Map<string, ExplorationRecord>();

  record(operationId: string, r: ExplorationRecord): void {
    this.byOperation.set(operationId, r);
  }

  get(operationId: string): ExplorationRecord | undefined {
    return this.byOperation.get(operationId);
  }
}
