/**
 * What a suite's exploration checks found, by operation, for the checks that judge the same exploration under another
 * requirement (src/checks/explore.ts): the exploration runs once, in the check that sends it, and its sibling reads
 * it here once every concurrent check of the suite is done.
 */
import type { Found } from '../explore/explore.js';

export type ExplorationRecord =
  | { explored: true; sent: number; found: Found }
  /** The exploration ran to no verdict (skipped, errored): why. */
  | { explored: false; why: string };

export class ExplorationLedger {
  private readonly byOperation = new Map<string, ExplorationRecord>();

  record(operationId: string, r: ExplorationRecord): void {
    this.byOperation.set(operationId, r);
  }

  get(operationId: string): ExplorationRecord | undefined {
    return this.byOperation.get(operationId);
  }
}
