// The measured child of bench/load-plan.ts: loads a document as a run does (loadCatalogue: the document, the
// reference profile, the requirement catalogue and the binding) from the compiled build of a checkout, then plans
// every check of every suite, and prints one JSON line of figures. Plain JavaScript on purpose, as the CLI runs:
// through tsx, every module would pass its loader, and that is a cost a user never pays.
//   node bench/load-plan-child.mjs <checkout> <document> [binding]
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const [root, specPath, bindingPath] = process.argv.slice(2);
const dist = (p) => pathToFileURL(join(root, 'dist', 'src', p)).href;
const t0 = performance.now();
const [{ loadCatalogue }, { planChecks, ALL_SUITE_SLUGS }] = await Promise.all([import(dist('binding/catalogue-in-use.js')), import(dist('checks/planner.js'))]);
const t1 = performance.now();
const catalogue = await loadCatalogue({ specPath, ...(bindingPath ? { bindingPath } : {}) });
const t2 = performance.now();
const checks = await planChecks(catalogue, ALL_SUITE_SLUGS);
const t3 = performance.now();
const usage = process.resourceUsage();
console.log(
  JSON.stringify({
    modules_ms: t1 - t0,
    load_ms: t2 - t1,
    plan_ms: t3 - t2,
    operations: catalogue.spec.operations.length,
    warnings: catalogue.spec.warnings.length,
    checks: checks.length,
    cpu_ms: (usage.userCPUTime + usage.systemCPUTime) / 1000,
    max_rss_mb: usage.maxRSS / 1024,
  }),
);
