import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';
import { busy } from './test/helpers/busy.js';

/**
 * The files that spend minutes in child processes (whole runs, the fault matrix, an npm install) start first, so
 * the short files fill the gaps around them; the rest keep vitest's own order.
 */
const LONG_FIRST = ['dialects', 'action', 'ci-templates', 'hostile', 'selfcheck', 'readme-commands', 'runs', 'package', 'binding', 'interrupt', 'reports-html', 'certify', 'rate-limit', 'secrets', 'intermittent', 'drift', 'vendor'];
class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONG_FIRST.findIndex((n) => f.moduleId.endsWith(`/test/${n}.test.ts`));
      return i === -1 ? LONG_FIRST.length : i;
    };
    const rest = await super.sort(files);
    return rest.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map((x) => x.f);
  }
}

// The project's own tests (not the conformance suites, which the CLI runs with its own configuration).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Most long tests wait on child processes (CLI runs, npm): vitest's default on 2 cores (one worker) would run
    // them one after another with a core idle. On a clean clone of 2026-11-27, 2 cores: 3 workers 492 s (1.6 cores
    // busy), 4 workers 386 s (1.85 cores busy), both passing.
    maxWorkers: 4,
    // A worker runs file after file in one process instead of a fresh fork per file: each file no longer pays a
    // node start and vitest's and the suite's imports (49 of the short files, 2 alternated pairs: 128 against 158
    // and 178 CPU-s). A file that changes process state (environment, TMPDIR, spies, fake timers) puts it back when
    // done.
    isolate: false,
    sequence: { sequencer: LongFirst },
    // One temporary folder for the whole run, removed at its end (test/helpers/test-tmpdir.ts).
    globalSetup: ['test/helpers/test-tmpdir.ts'],
    // Every limit is what a test needs idle, stretched for a busy machine (test/helpers/busy.ts).
    testTimeout: busy(60_000),
    hookTimeout: busy(60_000),
  },
});
