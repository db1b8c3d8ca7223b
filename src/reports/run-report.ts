/**
 * The one way a RunReport is put together, by a run (src/runner/run.ts) and by a merge of shard reports
 * (src/reports/merge.ts): the schema version, the counts and the gap report always follow from the checks, and the
 * verdict with its headline, diagnostics and coverage from the assessment, in the same order of members; the checks
 * grouped under the document's contradictions of the seed follow from the checks too.
 */
import type { Assessment } from '../results/assess.js';
import { SCHEMA_VERSION, type RunReport } from '../results/model.js';
import { countStatuses } from '../results/verdict.js';
import { groupConflicts, type DeclaredConflict } from '../results/document-conflicts.js';
import { gapsFromChecks } from './gaps.js';

export interface RunReportParts {
  suite: RunReport['suite'];
  spec: RunReport['spec'];
  requirements: RunReport['requirements'];
  target: RunReport['target'];
  run: RunReport['run'];
  /** The assessment of the checks, or, for shards written before coverage existed, only their verdict. */
  assessed: Assessment | Pick<RunReport, 'verdict'>;
  checks: RunReport['checks'];
  /** Requirement statements for the gap report, by requirement ID. */
  statements: ReadonlyMap<string, string>;
  /** Where the document contradicts a seed rule (src/results/document-conflicts.ts): its checks are grouped under it. */
  conflicts?: readonly DeclaredConflict[];
}

export function assembleRunReport(p: RunReportParts): RunReport {
  const a = p.assessed;
  return {
    schema_version: SCHEMA_VERSION,
    suite: p.suite,
    spec: p.spec,
    requirements: p.requirements,
    target: p.target,
    run: p.run,
    verdict: a.verdict,
    ...('headline' in a ? { headline: a.headline, diagnostics: a.diagnostics } : {}),
    ...(p.conflicts?.length ? { document_conflicts: groupConflicts(p.conflicts, p.checks) } : {}),
    ...('headline' in a ? { coverage: a.coverage } : {}),
    counts: countStatuses(p.checks),
    checks: p.checks,
    gaps: gapsFromChecks(p.checks, p.statements),
  };
}
