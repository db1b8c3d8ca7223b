/**
 * Baseline diff: today's run against a stored one, check by check (keyed on CheckResult.id).
 *
 * Semantics (also in `diff --help`):
 * - "bad" means failed, error or warning; "not evaluated" means skipped or absent.
 * - newly_failing: bad now, and passed, skipped or absent in the baseline. (bad -> bad, e.g. warning -> failed,
 *   is not newly failing: it was not passing before.)
 * - fixed: passed now, bad in the baseline.
 * - added / removed: the id is only in the current / only in the baseline report, whatever its status.
 *   A check that is new and bad is listed both in added and in newly_failing.
 * - regression: a check that PASSED in the baseline now errors (any level), or now fails in a way that blocks the
 *   verdict (failed at any level but INFO; under --strict SHOULD and PROFILE failures are `failed`).
 *   passed -> warning is reported as newly failing but is not a regression. Checks absent or skipped in the
 *   baseline never make a regression: a suite upgrade or a wider --groups must not fail the gate on its own.
 * - intermittent: newly failing, and a retry of it passed (src/harness/retry.ts): listed apart with its attempts,
 *   and no regression (exit 7 instead of 4). It still failed: the verdict counts it.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import type { BaselineDiff, CheckResult, CheckStatus, DiffEntry, RunReport } from '../results/model.js';
import { exitCodeFor } from '../results/verdict.js';
import { describeAttempts, intermittentLine } from '../results/attempts.js';
import { describeDrift } from './regression-render.js';
import { SCHEMA_VERSION, validateReport } from './schema.js';
import { mdCode, mdEscape } from './markdown-text.js';
import { oneLine, truncate } from './text.js';

const BAD: ReadonlySet<CheckStatus> = new Set(['failed', 'error', 'warning']);

function entry(c: CheckResult, before: CheckStatus | undefined, after: CheckStatus | undefined, message?: string): DiffEntry {
  const e: DiffEntry = { id: c.id, requirement: c.requirement, level: c.level };
  if (before) e.before = before;
  if (after) e.after = after;
  if (message) e.message = message;
  if (c.attempts) e.attempts = c.attempts;
  if (c.intermittent) e.intermittent = true;
  return e;
}

/** True when this newly failing entry makes the comparison a regression (see the module comment). */
export function isRegression(e: DiffEntry): boolean {
  if (e.before !== 'passed' || e.intermittent) return false;
  return e.after === 'error' || (e.after === 'failed' && e.level !== 'INFO');
}

export function diffReports(baseline: RunReport, current: RunReport, baselinePath = baseline.run.id): BaselineDiff {
  const before = new Map(baseline.checks.map((c) => [c.id, c]));
  const after = new Map(current.checks.map((c) => [c.id, c]));
  const diff: BaselineDiff = {
    baseline: { path: baselinePath, run_id: baseline.run.id, verdict: baseline.verdict, started_at: baseline.run.started_at },
    newly_failing: [],
    fixed: [],
    added: [],
    removed: [],
    intermittent: [],
    regression: false,
  };
  for (const c of current.checks) {
    const b = before.get(c.id);
    if (!b) diff.added.push(entry(c, undefined, c.status, c.message));
    const was = b?.status;
    if (BAD.has(c.status) && (was === undefined || was === 'passed' || was === 'skipped')) {
      diff.newly_failing.push(entry(c, was, c.status, c.message));
    } else if (c.status === 'passed' && was !== undefined && BAD.has(was)) {
      diff.fixed.push(entry(c, was, c.status, b?.message));
    }
  }
  for (const b of baseline.checks) {
    if (!after.has(b.id)) diff.removed.push(entry(b, b.status, undefined, b.message));
  }
  diff.intermittent = diff.newly_failing.filter((e) => e.intermittent);
  // A check skipped now (a prerequisite refused, say) is not newly failing: coverage says what it no longer verifies.
  const verifiedBefore = new Set((baseline.coverage?.requirements ?? []).filter((r) => r.level === 'MUST' && r.status === 'verified').map((r) => r.id));
  diff.must_not_verified_now = (current.coverage?.requirements ?? []).filter((r) => r.status === 'not-verified' && verifiedBefore.has(r.id)).map((r) => r.id).sort();
  for (const list of [diff.newly_failing, diff.fixed, diff.added, diff.removed, diff.intermittent]) list.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  diff.regression = diff.newly_failing.some(isRegression);
  return diff;
}

/**
 * Reads a conformance.json (or the one in a report directory) and checks it is one this suite can read.
 * Anything else (a JUnit file, another tool's JSON, garbage, a newer schema_version) is a UsageError naming the file.
 */
export function loadReport(path: string): RunReport {
  let file = path;
  try {
    if (statSync(path).isDirectory()) file = join(path, 'conformance.json');
  } catch (e) {
    throw new UsageError(`cannot read the report (${(e as NodeJS.ErrnoException).code ?? 'error'})`, {
      file: path,
      fix: 'give the path of a conformance.json or of a report directory such as reports/<run-id>',
    });
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read the report (${(e as NodeJS.ErrnoException).code ?? 'error'})`, {
      file,
      fix: file === path ? 'give the path of a conformance.json or of a report directory' : `${path} is not a report directory: it has no conformance.json`,
    });
  }
  const fix = 'give the conformance.json that `fsapi-conformance run` writes in reports/<run-id>/ (not junit.xml, summary.md or another tool\'s output)';
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('<')) {
    throw new UsageError(`is XML${/<testsuites?\b/.test(start.slice(0, 2000)) ? ' (a JUnit report)' : ''}, not a conformance.json report`, { file, fix });
  }
  let data: unknown;
  try {
    data = JSON.parse(start);
  } catch (e) {
    throw new UsageError(`is not JSON (${oneLine((e as Error).message)}), so not a conformance.json report`, { file, fix });
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new UsageError('is JSON but not a conformance.json report (expected an object)', { file, fix });
  }
  const obj = data as Record<string, unknown>;
  const suite = obj['suite'] as { name?: unknown } | undefined;
  if (!('schema_version' in obj) || suite?.name !== 'fsapi-conformance') {
    throw new UsageError('is JSON but not a conformance.json report (no schema_version, or suite.name is not "fsapi-conformance")', { file, fix });
  }
  const version = obj['schema_version'];
  if (typeof version === 'number' && version > SCHEMA_VERSION) {
    throw new UsageError(`was written with schema_version ${version}; this fsapi-conformance reads schema_version ${SCHEMA_VERSION}`, {
      file,
      fix: 'upgrade fsapi-conformance to the version that wrote the report (npm install fsapi-conformance@latest)',
    });
  }
  const problems = validateReport(data);
  if (problems.length) {
    const p = problems[0]!;
    throw new UsageError(
      `is not a valid conformance.json (schema_version ${SCHEMA_VERSION}): ${p.pointer} ${p.message}${problems.length > 1 ? ` (and ${problems.length - 1} more problems)` : ''}`,
      { file, where: p.pointer, fix: 'use the file as the run wrote it; it is described by src/reports/conformance.schema.json' },
    );
  }
  return data as RunReport;
}

const arrow = (e: DiffEntry) => `${e.before ?? 'absent'} -> ${e.after ?? 'absent'}`;

/** A section's title and count for the newly failing list: "newly failing (12)", "newly failing or warning (12 failing, 10 warning)". */
function newlyFailingTitle(list: readonly DiffEntry[], title: string): string {
  const warning = list.filter((e) => e.after === 'warning').length;
  return warning ? `${title} or warning (${list.length - warning} failing, ${warning} warning)` : `${title} (${list.length})`;
}

/** A console rendering of a diff (plain text, one check per line, messages on one line). */
export function renderDiffText(diff: BaselineDiff, current: RunReport, currentPath: string): string {
  const lines = [
    `baseline: ${diff.baseline.path} (run ${diff.baseline.run_id}, ${diff.baseline.verdict}, started ${diff.baseline.started_at})`,
    `current:  ${currentPath} (run ${current.run.id}, ${current.verdict}, started ${current.run.started_at})`,
  ];
  const section = (title: string, list: DiffEntry[], withRegression = false) => {
    lines.push('', `${withRegression ? newlyFailingTitle(list, title) : `${title} (${list.length})`}${list.length ? ':' : ''}`);
    for (const e of list) {
      const mark = withRegression && isRegression(e) ? ' REGRESSION' : e.intermittent ? ` INTERMITTENT (${describeAttempts(e)})` : e.attempts ? ` (${describeAttempts(e)})` : '';
      const msg = e.message ? `: ${truncate(oneLine(e.message), 200)}` : '';
      lines.push(`  ${oneLine(e.id)} [${e.level}] ${arrow(e)}${mark}${msg}`);
    }
  };
  section('newly failing', diff.newly_failing, true);
  section('fixed', diff.fixed);
  section('added', diff.added);
  section('removed', diff.removed);
  if (diff.drift) {
    lines.push('', `behaviour drift (${diff.drift.findings.length})${diff.drift.findings.length ? ':' : ''}`);
    for (const f of diff.drift.findings) lines.push(`  ${describeDrift(f)}`);
  }
  const flaky = intermittentLine(diff);
  if (flaky) lines.push('', flaky);
  if (diff.must_not_verified_now?.length) lines.push('', `MUST requirements verified in the baseline and not verified now: ${diff.must_not_verified_now.join(', ')}`);
  lines.push(
    '',
    diff.regression
      ? `regression: yes: a check that passed in the baseline now fails at a blocking level or errors (exit ${exitCodeFor('conformant', true)})`
      : 'regression: no',
  );
  return lines.join('\n');
}

/** The same diff as a Markdown section, bounded for a PR comment (each list capped at `cap` entries). */
export function renderDiffMarkdown(diff: BaselineDiff, opts: { cap?: number; heading?: string } = {}): string {
  const cap = opts.cap ?? 30;
  const out: string[] = [
    `${opts.heading ?? '##'} Compared with the baseline`,
    '',
    `Baseline: ${mdCode(diff.baseline.path)}, run ${mdCode(diff.baseline.run_id)} (${diff.baseline.verdict}, started ${mdEscape(diff.baseline.started_at)}).`,
    '',
    diff.regression
      ? '**Regression**: a check that passed in the baseline now fails at a blocking level or errors.'
      : 'No regression: no check that passed in the baseline now fails at a blocking level or errors.',
  ];
  const flaky = intermittentLine(diff);
  if (flaky) out.push('', `**${mdEscape(flaky.replace(/^intermittent: /, 'Intermittent: '))}**`);
  if (diff.must_not_verified_now?.length) out.push('', `**MUST requirements verified in the baseline and not verified now** (a regression may hide there; see Coverage): ${diff.must_not_verified_now.map((id) => mdCode(id)).join(', ')}.`);
  const section = (title: string, list: DiffEntry[]) => {
    out.push('', list === diff.newly_failing ? `**${newlyFailingTitle(list, title).replace(/ \(/, '** (')}` : `**${title}** (${list.length})`);
    if (!list.length) return;
    out.push('', '| check | level | before → after | message |', '|---|---|---|---|');
    for (const e of list.slice(0, cap)) {
      const reg = isRegression(e) ? ' **regression**' : e.intermittent ? ` **intermittent** (${describeAttempts(e)})` : e.attempts ? ` (${describeAttempts(e)})` : '';
      out.push(
        `| ${mdCode(e.id, true)} | ${e.level} | ${e.before ?? 'absent'} → ${e.after ?? 'absent'}${reg} | ${e.message ? mdCode(truncate(oneLine(e.message), 160), true) : ''} |`,
      );
    }
    if (list.length > cap) out.push('', `…and ${list.length - cap} more: see \`baseline\` in conformance.json.`);
  };
  section('Newly failing', diff.newly_failing);
  section('Fixed', diff.fixed);
  section('Added', diff.added);
  section('Removed', diff.removed);
  if (diff.drift) {
    const f = diff.drift.findings;
    out.push('', `**Behaviour drift** (${f.length}, over ${diff.drift.operations_compared} operations both runs reached; latency: p50 or p95 over ${diff.drift.latency_ratio}× the baseline's and ${diff.drift.latency_floor_ms} ms more)`);
    if (f.length) out.push('', ...f.slice(0, cap).map((x) => `- ${mdCode(describeDrift(x))}`));
    if (f.length > cap) out.push('', `…and ${f.length - cap} more: see \`baseline.drift\` in conformance.json.`);
  }
  return out.join('\n');
}
