// The measured child of bench/framework-floor.ts: runs the generated test files of one folder with vitest, set as a
// vendor run sets it (src/runner/suites.ts: threads, no isolation, the given workers and concurrency), with a
// reporter that does nothing (`vitest`), allure-vitest's own reporter and setup (`allure`), or the Allure reporter
// of this suite's build as a run makes it (`suite`: src/runner/allure-writer.ts, written at the end), and prints one
// JSON line: the process's CPU time (every thread) and peak RSS, the tests vitest ran and the files written in the
// Allure results folder. Plain JavaScript, as load-plan-child.mjs.
//   node bench/framework-floor-child.mjs <folder> <vitest|allure|suite> <workers> <concurrency> <allure-results folder>
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createVitest } from 'vitest/node';

const [dir, mode, workers, concurrency, resultsDir] = process.argv.slice(2);
const root = join(import.meta.dirname, '..');
let tests = 0;
const counter = { onTestCaseResult: () => void tests++ };
const reporters = [counter];
let suiteReporter;
if (mode === 'allure') {
  const { default: AllureReporter } = await import('allure-vitest/reporter');
  reporters.push(new AllureReporter({ resultsDir }));
} else if (mode === 'suite') {
  const built = (p) => import(pathToFileURL(join(root, 'dist', 'src', p)).href);
  const [{ allureReporter }, { loadRequirements }] = await Promise.all([built('runner/allure-writer.js'), built('catalogue/requirements.js')]);
  suiteReporter = await allureReporter(resultsDir, loadRequirements(join(root, 'spec', 'requirements.yaml'), { trusted: true }));
  reporters.push(suiteReporter);
}
const vitest = await createVitest(
  'test',
  {
    config: false,
    root: dir,
    dir,
    include: ['*.test.mjs'],
    watch: false,
    pool: 'threads',
    isolate: false,
    fileParallelism: true,
    maxWorkers: Number(workers),
    maxConcurrency: Number(concurrency),
    ...(mode === 'allure' ? { setupFiles: ['allure-vitest/setup'] } : {}),
    reporters,
    silent: true,
    passWithNoTests: true,
  },
  { logLevel: 'silent', server: { watch: null } },
);
await vitest.start();
await vitest.close();
const unwritten = suiteReporter?.flush();
if (unwritten) throw new Error(unwritten);
const usage = process.resourceUsage();
const files = existsSync(resultsDir) ? readdirSync(resultsDir).length : 0;
console.log(JSON.stringify({ tests, files, cpu_s: (usage.userCPUTime + usage.systemCPUTime) / 1e6, max_rss_mib: usage.maxRSS / 1024 }));
