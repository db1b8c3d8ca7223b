import { createHash } from 'node:crypto';

/**
 * A 32-bit seed from the run seed and a label (check id, suite name): order-independent determinism. Its own module:
 * the checks import it while the run's main thread plans them, where the workers' HTTP runtime is never loaded.
 */
export function seedFor(runSeed: number, label: string): number {
  return createHash('sha256').update(`${runSeed}:${label}`).digest().readUInt32BE(0);
}
