import type { WorkerConfig } from '../harness/worker-config.js';
import { loadReport } from '../reports/diff.js';

/** What the workers need to retry a new failure (src/harness/retry.ts): the ids of the checks the baseline passed. */
export function rerunPlan(baselinePath: string, retries: number): WorkerConfig['rerun'] {
  if (retries < 1) return undefined;
  return { passed: loadReport(baselinePath).checks.filter((c) => c.status === 'passed').map((c) => c.id), retries };
}
