/**
 * Text helpers shared by the writers. Every writer renders only what the RunReport holds (already redacted when
 * recorded); nothing here reads the environment or the command line, so no writer can re-introduce a secret.
 */
import { plural } from '../plural.js';
import type { RunReport } from '../results/model.js';

/** Defined below the reports (results and the CLI count things too); named here with the other text helpers. */
export { plural };

/** Characters XML 1.0 forbids (C0 controls but tab/LF/CR, lone surrogates, U+FFFE/U+FFFF). */
const XML_FORBIDDEN = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
/** C0/C1 controls but tab and newline, plus lone surrogates: never useful in Markdown or a console. */
const TEXT_CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function stripXmlForbidden(s: string): string {
  return s.replace(XML_FORBIDDEN, '');
}

/** Removes control characters (keeps tab and newline; CRLF becomes LF). */
export function stripControls(s: string): string {
  return s.replace(/\r\n?/g, '\n').replace(TEXT_CONTROLS, '');
}

/** Cuts text to `max` characters (never inside a surrogate pair), saying how much was left out. */
export function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = max;
  const code = s.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${s.slice(0, cut)}… [${s.length - cut} more characters in conformance.json]`;
}

/** One line: whitespace runs (newlines included) become one space. */
export function oneLine(s: string): string {
  return stripControls(s).replace(/\s+/g, ' ').trim();
}

/**
 * A URL fit to show: user info (user:password@) is masked. The base URL comes from configuration,
 * not from the redacted exchanges, so it gets this one extra guard wherever it is written.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = u.username ? '***' : '';
    u.password = u.password ? '***' : '';
    return u.toString();
  } catch {
    // Not a URL we can parse: mask anything that looks like user info all the same.
    return url.replace(/\/\/[^/@\s]*@/, '//***@');
  }
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - m * 60)} s`;
}

/** "168 checks: 167 passed, 1 failed, 0 warnings, 0 skipped, 0 errors": the console's tally of a run. */
export function statusTally(c: { total: number; passed: number; failed: number; warning: number; skipped: number; error: number }): string {
  return `${plural(c.total, 'check')}: ${c.passed} passed, ${c.failed} failed, ${plural(c.warning, 'warning')}, ${c.skipped} skipped, ${plural(c.error, 'error')}`;
}

/**
 * A trial: a vendor's document (and binding) run against the suite's own reference sandbox, which serves only the
 * reference profile. Its verdict says how the document and binding fare, not whether the vendor's API conforms.
 */
export function trialNote(report: Pick<RunReport, 'target' | 'spec'>): string | undefined {
  return report.target.embedded && !report.spec.reference_profile
    ? "trial: the vendor's document against the reference sandbox, not a verdict on the vendor's API"
    : undefined;
}

/**
 * The HTML report's name, which Allure also gives this run's point of the trend: the run's date and time and its
 * id, so that two runs of one day are told apart.
 */
export function htmlReportName(report: Pick<RunReport, 'target' | 'spec' | 'verdict' | 'run'>): string {
  const when = report.run.started_at.slice(0, 16).replace('T', ' ');
  return `fsapi-conformance ${when} UTC (run ${report.run.id}): ${report.verdict}${trialNote(report) ? ' (trial)' : ''} (${redactUrl(report.target.base_url)})`;
}
