// Preloaded into a measured child (`node --import <this file> bin/fsapi-conformance.js ...`): when the process
// exits, writes its own resource usage to $BENCH_RUSAGE_FILE. process.resourceUsage() is getrusage(RUSAGE_SELF),
// which counts every thread of the process (vitest's worker threads included). Plain JavaScript on purpose: a
// TypeScript hook would need tsx's loader in the measured process, and that loader is itself a cost.
import { writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const file = process.env.BENCH_RUSAGE_FILE;
if (isMainThread && file) {
  process.on('exit', () => {
    const r = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ user_us: r.userCPUTime, system_us: r.systemCPUTime, max_rss_kb: r.maxRSS }));
  });
}
