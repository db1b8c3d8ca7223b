/**
 * The reports of a run, written into its directory reports/<run-id>/:
 *   conformance.json  the RunReport (schema: src/reports/conformance.schema.json), the one file the others derive from
 *   summary.md        verdict and findings for a GitHub job summary or PR comment
 *   junit.xml         one testcase per check, for CI test views
 *   allure-report/    (html) one self-contained index.html built from allure-results/
 *   SHA256SUMS        sha256sum format over every file above and allure-results/, written last
 * and points reportRoot/latest at the directory.
 */
import { createHash, randomUUID, type Hash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { RunReport } from '../results/model.js';
import { ALLURE_HISTORY_FILE, ALLURE_RESULTS_DIR, buildAllureHtml } from './allure.js';
import { writeChecksums, CHECKSUMS_FILE } from './checksums.js';
import { diffReports, loadReport } from './diff.js';
import { junitPieces } from './junit.js';
import { refreshLatest } from './latest.js';
import { renderSummary } from './markdown.js';
import { validateReport } from './schema.js';
import { compareWithBaseline, keepDocument } from '../regression/baseline-compare.js';
import { trendEntry, trendOf } from '../regression/trend.js';
import { htmlReportName, redactUrl } from './text.js';

export interface WriteReportsOptions {
  /** The run's report directory (reports/<run-id>/); created when missing. */
  dir: string;
  /** Where `latest` is refreshed (usually reports/). */
  reportRoot: string;
  /** Build the Allure HTML from dir/allure-results. */
  html: boolean;
  /** A baseline conformance.json (or report directory): fills report.baseline. */
  baselinePath?: string;
  /** The document the run used: kept in dir (the next run's baseline diffs against it) and diffed with the baseline's. */
  documentPath?: string;
  /** How many runs the trend covers (this one included; under 2: no trend). */
  trend?: number;
  /** With a baseline: how many times the baseline's p50/p95 an operation may take before it is latency drift. */
  latencyRatio?: number;
  /** Where the HTML build says what it is doing (it takes tens of seconds). */
  progress?: (line: string) => void;
  /** SHA-256 of files already written into dir by their writer (the run's Allure results), by path relative to dir: SHA256SUMS takes them instead of reading the files back. */
  knownHashes?: ReadonlyMap<string, string>;
}

export interface WrittenReports {
  dir: string;
  /** Absolute paths of every file written, SHA256SUMS last. */
  files: string[];
  regression: boolean;
  /** The report as written (baseline filled in, base URL user info masked). */
  report: RunReport;
}

export function serializeReport(report: RunReport): string {
  return [...reportPieces(report)].join('');
}

/**
 * conformance.json in pieces, a check each: the bytes of `JSON.stringify(report, null, 2)` and a newline, never made
 * whole (a 2,000-operation vendor run's is 114 MB, held twice, as text and as bytes, when it was).
 */
export function* reportPieces(report: RunReport): Generator<string> {
  // Everything but the checks, with a placeholder where they go: a string no value of the report holds.
  const mark = `fsapi-checks-${randomUUID()}`;
  const placeholder = JSON.stringify(mark);
  const outer = JSON.stringify({ ...report, checks: mark }, null, 2);
  const at = outer.indexOf(placeholder);
  yield outer.slice(0, at);
  const { checks } = report;
  if (checks.length === 0) yield '[]';
  else {
    yield '[\n';
    // The checks a few hundred at a time, stringified at the depth they sit at, inside {"checks": [...]}.
    for (let i = 0; i < checks.length; i += CHECKS_PER_PIECE) {
      const text = JSON.stringify({ checks: checks.slice(i, i + CHECKS_PER_PIECE) }, null, 2);
      yield `${text.slice(CHECKS_OPEN.length, -CHECKS_CLOSE.length)}${i + CHECKS_PER_PIECE < checks.length ? ',\n' : '\n'}`;
    }
    yield '  ]';
  }
  yield `${outer.slice(at + placeholder.length)}\n`;
}

const CHECKS_PER_PIECE = 256;
const CHECKS_OPEN = '{\n  "checks": [\n';
const CHECKS_CLOSE = '\n  ]\n}';

/** Bytes a report file is written in: pieces are gathered to this size, encoded, hashed and written. */
const WRITE_CHUNK = 4 * 1024 * 1024;

function* encoded(pieces: Iterable<string>, hash: Hash): Generator<Buffer> {
  let parts: string[] = [];
  let size = 0;
  const take = () => {
    const bytes = Buffer.from(parts.join(''));
    hash.update(bytes);
    parts = [];
    size = 0;
    return bytes;
  };
  for (const p of pieces) {
    parts.push(p);
    size += p.length;
    if (size >= WRITE_CHUNK) yield take();
  }
  if (parts.length) yield take();
}

/** conformance.json content: the report with user info in the base URL masked (it comes from configuration). */
async function prepare(report: RunReport, opts: WriteReportsOptions): Promise<RunReport> {
  const out: RunReport = { ...report, target: { ...report.target, base_url: redactUrl(report.target.base_url) } };
  if (opts.baselinePath !== undefined) {
    const baseline = loadReport(opts.baselinePath);
    out.baseline = { ...diffReports(baseline, out, opts.baselinePath), ...(await compareWithBaseline(opts.baselinePath, baseline, out, opts)) };
  }
  const trend = await trendOf(out, opts.reportRoot, opts.trend ?? 0);
  if (trend) out.trend = trend;
  return out;
}

export async function writeReports(input: RunReport, opts: WriteReportsOptions): Promise<WrittenReports> {
  const dir = resolve(opts.dir);
  const report = await prepare(input, opts);
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  if (opts.documentPath) files.push(keepDocument(opts.documentPath, dir));
  // What this writer hashed as it wrote, by name: SHA256SUMS takes these instead of reading the files back.
  const hashes = new Map(opts.knownHashes);
  /**
   * Writes a report file from its pieces as they are made, a few megabytes at a time: the same bytes are written and
   * hashed, and the file is never whole in memory (a vendor run's conformance.json is a hundred megabytes).
   */
  const write = async (name: string, pieces: Iterable<string>): Promise<string> => {
    const p = join(dir, name);
    const hash = createHash('sha256');
    await writeFile(p, encoded(pieces, hash));
    files.push(p);
    const sha256 = hash.digest('hex');
    hashes.set(name, sha256);
    return sha256;
  };
  // This run's trend point, filed under its report's digest: a later run's trend hashes this report instead of parsing it.
  await trendEntry(await write('conformance.json', reportPieces(report)), () => report);
  await write('summary.md', [renderSummary(report)]);
  await write('junit.xml', junitPieces(report));
  let htmlFailure: unknown;
  if (opts.html) {
    // A run that recorded no result (every group filtered out, interrupted at once) still gets its (empty) HTML.
    await mkdir(join(dir, ALLURE_RESULTS_DIR), { recursive: true });
    try {
      // Allure's own history (its trend charts) lives beside the runs, as the runs do; each HTML build adds this run.
      const history = opts.trend && opts.trend > 1 ? { history: { path: resolve(opts.reportRoot, ALLURE_HISTORY_FILE), limit: opts.trend } } : {};
      files.push(...(await buildAllureHtml(dir, { name: htmlReportName(report), ...history, ...(opts.progress ? { progress: opts.progress } : {}) })));
    } catch (e) {
      // The verdict and evidence are written already: checksum them and move latest before reporting the failure.
      htmlFailure = e;
    }
  }
  await writeChecksums(dir, hashes);
  files.push(join(dir, CHECKSUMS_FILE));
  await refreshLatest(opts.reportRoot, dir);
  if (htmlFailure) throw htmlFailure;
  // Written all the same, so the evidence is not lost; but a report that breaks its own schema is a suite bug.
  const problems = validateReport(report);
  if (problems.length) {
    throw new Error(
      `conformance.json does not match its schema: ${problems
        .slice(0, 3)
        .map((p) => `${p.pointer} ${p.message}`)
        .join('; ')} (the reports were written to ${dir})`,
    );
  }
  return { dir, files, regression: report.baseline?.regression ?? false, report };
}

export { buildAllureHtml, ALLURE_REPORT_DIR, ALLURE_RESULTS_DIR } from './allure.js';
export { writeChecksums, CHECKSUMS_FILE } from './checksums.js';
export { diffReports, loadReport, renderDiffMarkdown, renderDiffText, isRegression } from './diff.js';
export { gapsFromChecks } from './gaps.js';
export { renderJunit } from './junit.js';
export { refreshLatest } from './latest.js';
export { renderSummary } from './markdown.js';
export { mergeReports } from './merge.js';
export { CONFORMANCE_SCHEMA_PATH, SCHEMA_VERSION, prepareReportValidator, validateReport } from './schema.js';
