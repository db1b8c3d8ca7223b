/**
 * What a run's checks add up to: coverage, verdict, headline and diagnostics, computed the same way for a run
 * (src/runner/run.ts) and for merged shards (src/reports/merge.ts).
 */
import { absentFromRun, absentWhenCut, buildCoverage, operationCoverage, requirementCoverage, type Absent, type DocumentOperation, type RequirementEntry } from './coverage.js';
import { runDiagnostics } from './diagnostics.js';
import { renderHeadline } from './headline.js';
import { explorationLine } from './exploration.js';
import type { CheckResult, Coverage, Diagnostic, Verdict, Waiver } from './model.js';
import { computeVerdict, isRateLimited } from './verdict.js';

export interface AssessInput {
  checks: readonly CheckResult[];
  requirements: readonly RequirementEntry[];
  waivers: readonly Waiver[];
  /** Why a requirement has no check in the run (absentFromRun for a run). */
  absent: (id: string) => Absent;
  operations: readonly DocumentOperation[];
  baseUrl: string;
  /** Why an operation was left out of the run on purpose, or undefined. */
  leftOut: (op: DocumentOperation) => string | undefined;
  incompleteReason?: string | undefined;
  throttling?: { responses: number; waited_ms: number } | undefined;
  durationMs: number;
  /** Diagnostics the checks cannot show (the document's security scheme, a webhook receiver nothing reached), carried as they are. */
  notes?: readonly Diagnostic[];
}

export interface Assessment {
  verdict: Verdict;
  headline: string;
  diagnostics: Diagnostic[];
  coverage: Coverage;
}

export function assessRun(a: AssessInput): Assessment {
  const reqs = requirementCoverage(a.checks, a.requirements, { waivers: a.waivers, absent: a.absent });
  const coverage = buildCoverage(reqs, operationCoverage(a.checks, a.operations, { baseUrl: a.baseUrl, leftOut: a.leftOut }));
  const verdict = computeVerdict(a.checks, { incomplete: a.incompleteReason !== undefined, coverage });
  const headline = renderHeadline(verdict, coverage, { rateLimited: a.checks.filter(isRateLimited).length, incompleteReason: a.incompleteReason, exploration: explorationLine(a.checks) });
  const diagnostics = runDiagnostics({ checks: a.checks, coverage, throttling: a.throttling, durationMs: a.durationMs, ...(a.notes ? { notes: a.notes } : {}) });
  return { verdict, headline, diagnostics, coverage };
}

export { absentFromRun, absentWhenCut };
