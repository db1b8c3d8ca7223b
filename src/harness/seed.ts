import { hash } from 'node:crypto';

/**
 * A 32-bit seed from the run seed and a label (check id, suite name): order-independent determinism. Its own module:
 * the checks import it while the run's main thread plans them, where the workers' HTTP runtime is never loaded.
 */
export function seedFor(runSeed: number, label: string): number {
  // crypto.hash, one call: a Hash object per seed cost ~4x as much, and a run makes thousands (one per check, per value).
  return hash('sha256', `${runSeed}:${label}`, 'buffer').readUInt32BE(0);
}
