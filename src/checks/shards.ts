/**
 * Sharding splits whole suites, not checks: every suite builds its own prerequisites (a world) and judges its own
 * traffic, so a suite cut in two costs both halves its set-up and leaves each half's traffic checks half blind.
 * Suites go to shards largest first, each to the least loaded shard (LPT), by their number of checks; the
 * assignment depends only on the suites and their sizes, so every shard's process computes the same one.
 */
import type { SuiteSlug } from '../catalogue/groups.js';

export function shardSuites(suites: readonly SuiteSlug[], size: (s: SuiteSlug) => number, count: number): SuiteSlug[][] {
  const shards = Array.from({ length: count }, () => ({ suites: [] as SuiteSlug[], load: 0 }));
  const order = [...suites].sort((a, b) => size(b) - size(a) || a.localeCompare(b));
  for (const s of order) {
    const least = shards.reduce((best, x, i) => (x.load < shards[best]!.load ? i : best), 0);
    shards[least]!.suites.push(s);
    shards[least]!.load += size(s);
  }
  return shards.map((x) => x.suites);
}
