/**
 * summary.md: the run as a GitHub job summary or PR comment.
 *
 * Order: verdict (with the exit code and its meaning), counts, one table per group, every failure and error
 * (requirement, level, message, reproduction), warnings (collapsed), the gap report, the baseline diff, a footer.
 * It is bounded (default 60,000 UTF-8 bytes, under GitHub's 65,536 characters for a comment and 1 MiB for a job summary): lists are capped with
 * "and N more" pointing to conformance.json, and the caps shrink until the whole fits.
 */
import { CROSS_CUTTING, GROUPS } from '../catalogue/groups.js';
import { LEVELS } from '../catalogue/requirements.js';
import type { CheckResult, CheckStatus, Gap, RunReport, StatusCounts } from '../results/model.js';
import { BLOCKING_LEVELS, EXIT_CODE_HELP, exitCodeFor } from '../results/verdict.js';
import { renderDiffMarkdown } from './diff.js';
import { gapsFromChecks } from './gaps.js';
import { mdBlock, mdCode, mdEscape } from './markdown-text.js';
import { formatDuration, oneLine, plural, redactUrl, truncate } from './text.js';

/** In UTF-8 bytes, which is never fewer than characters: safe for both GitHub limits. */
export const SUMMARY_MAX_BYTES = 60_000;
const size = (s: string) => Buffer.byteLength(s, 'utf8');

const ICON: Record<CheckStatus, string> = { passed: '✅', failed: '❌', warning: '⚠️', skipped: '⏭️', error: '💥' };
const VERDICT_ICON = { conformant: '✅', 'non-conformant': '❌', incomplete: '⏸️' } as const;
const STATUS_ORDER: Record<CheckStatus, number> = { error: 0, failed: 1, warning: 2, skipped: 3, passed: 4 };
const COLUMNS: { status: CheckStatus; label: string; one: string }[] = [
  { status: 'passed', label: 'passed', one: 'passed' },
  { status: 'failed', label: 'failed', one: 'failed' },
  { status: 'warning', label: 'warnings', one: 'warning' },
  { status: 'skipped', label: 'skipped', one: 'skipped' },
  { status: 'error', label: 'errors', one: 'error' },
];

interface Caps {
  /** Failures and errors shown in full. */
  detail: number;
  /** Entries of the other lists (warnings, diff lists, observations per gap). */
  list: number;
  /** Characters of one message, observation or reproduction line. */
  text: number;
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const levelRank = (c: CheckResult) => LEVELS.indexOf(c.level);

function groupLabel(slug: string): string {
  return GROUPS.find((g) => g.slug === slug)?.tag ?? slug.charAt(0).toUpperCase() + slug.slice(1);
}

function groupOrder(report: RunReport): string[] {
  const known = [...GROUPS.map((g) => g.slug), ...CROSS_CUTTING] as string[];
  const present = new Set<string>(report.checks.map((c) => c.group));
  return [...known.filter((g) => present.has(g)), ...[...present].filter((g) => !known.includes(g)).sort()];
}

function countsLine(c: StatusCounts): string {
  return COLUMNS.filter((x) => c[x.status] > 0 || x.status === 'passed')
    .map((x) => `${c[x.status]} ${c[x.status] === 1 ? x.one : x.label}`)
    .join(', ');
}

function countsRow(label: string, c: StatusCounts): string {
  return `| ${label} | ${COLUMNS.map((x) => (c[x.status] ? String(c[x.status]) : '·')).join(' | ')} | ${c.total} |`;
}

const countsHeader = (first: string) => [
  `| ${first} | ${COLUMNS.map((x) => x.label).join(' | ')} | total |`,
  `|---|${COLUMNS.map(() => '---:').join('|')}|---:|`,
];

function head(report: RunReport): string[] {
  const regression = report.baseline?.regression ?? false;
  const code = exitCodeFor(report.verdict, regression);
  const meaning = EXIT_CODE_HELP.find((x) => x.code === code)?.meaning ?? '';
  const t = report.target;
  const out = [
    `# ${VERDICT_ICON[report.verdict]} ${report.verdict === 'conformant' ? 'Conformant' : report.verdict === 'non-conformant' ? 'Non-conformant' : 'Incomplete'}: Financial Services API v1`,
    '',
    `**Verdict: ${report.verdict}**. Exit code **${code}**: ${mdEscape(meaning)}.`,
  ];
  if (report.verdict !== 'incomplete' && regression) {
    out.push('', `Without the baseline the exit code would be ${exitCodeFor(report.verdict)}: a check that passed in the baseline fails now (see "Compared with the baseline").`);
  }
  if (report.run.incomplete_reason) out.push('', `Incomplete: ${mdEscape(report.run.incomplete_reason)}`);
  out.push(
    '',
    `Target ${mdCode(redactUrl(t.base_url))} (${t.environment}${t.embedded ? ', embedded reference sandbox' : ''})${report.run.strict ? ', strict mode' : ''}: ` +
      `${plural(report.counts.by_status.total, 'check')}, ${countsLine(report.counts.by_status)}.`,
  );
  out.push('', ...countsHeader('level'));
  for (const l of LEVELS) {
    const c = report.counts.by_level[l];
    if (c.total) out.push(countsRow(`${l}${BLOCKING_LEVELS.includes(l) ? ' (blocking)' : ''}`, c));
  }
  out.push(countsRow('**all**', report.counts.by_status));
  return out;
}

function groupTables(report: RunReport, rowsPerGroup: number, caps: Caps): string[] {
  const out = ['', '## Results by group', '', ...countsHeader('group')];
  const groups = groupOrder(report);
  for (const g of groups) out.push(countsRow(mdEscape(groupLabel(g)), report.counts.by_group[g] ?? countGroup(report, g)));
  for (const g of groups) {
    const checks = report.checks
      .filter((c) => c.group === g)
      .sort((a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status] || levelRank(a) - levelRank(b) || byId(a, b));
    const counts = report.counts.by_group[g] ?? countGroup(report, g);
    const worst = checks[0] ? ICON[checks[0].status] : '';
    out.push('', `<details><summary>${worst} <b>${mdEscape(groupLabel(g))}</b>: ${countsLine(counts)}</summary>`, '');
    out.push('| | check | level | message |', '|---|---|---|---|');
    for (const c of checks.slice(0, rowsPerGroup)) {
      const msg = c.message ?? c.observation;
      out.push(`| ${ICON[c.status]} | ${mdCode(c.name, true)} | ${c.level} | ${msg ? mdCode(truncate(oneLine(msg), Math.min(caps.text, 160)), true) : ''} |`);
    }
    if (checks.length > rowsPerGroup) {
      const rest = checks.slice(rowsPerGroup);
      const restCounts = COLUMNS.map((x) => [x, rest.filter((c) => c.status === x.status).length] as const).filter(([, n]) => n);
      out.push('', `…and ${rest.length} more (${restCounts.map(([x, n]) => `${n} ${n === 1 ? x.one : x.label}`).join(', ')}): see conformance.json.`);
    }
    out.push('', '</details>');
  }
  return out;
}

function countGroup(report: RunReport, g: string): StatusCounts {
  const c: StatusCounts = { total: 0, passed: 0, failed: 0, warning: 0, skipped: 0, error: 0 };
  for (const x of report.checks) if (x.group === g) (c[x.status]++, c.total++);
  return c;
}

function failures(report: RunReport, caps: Caps): string[] {
  const bad = report.checks
    .filter((c) => c.status === 'failed' || c.status === 'error')
    .sort((a, b) => {
      const blocking = (c: CheckResult) => (BLOCKING_LEVELS.includes(c.level) ? 0 : c.status === 'failed' && c.level !== 'INFO' ? 1 : 2);
      return blocking(a) - blocking(b) || levelRank(a) - levelRank(b) || byId(a, b);
    });
  if (!bad.length) return [];
  const out = ['', `## Failures and errors (${bad.length})`];
  for (const c of bad.slice(0, caps.detail)) {
    out.push('', `### ${ICON[c.status]} ${mdEscape(c.requirement)} · ${c.level} · ${c.status === 'error' ? 'error' : 'failed'}`, '');
    out.push(`${mdCode(c.name)} (${mdEscape(c.group)}${c.operation ? `, ${mdCode(c.operation)}` : ''})  `);
    out.push(`${mdEscape(c.title)}  `, `Source: ${mdEscape(c.clause)}`);
    out.push('', mdBlock(truncate(c.message ?? '(no message)', caps.text)));
    if (c.reproduce) out.push('', 'Reproduce:', '', mdBlock(truncate(c.reproduce, caps.text * 2), 'sh'));
  }
  if (bad.length > caps.detail) {
    out.push('', `…and ${bad.length - caps.detail} more failures and errors:`, '');
    const rest = bad.slice(caps.detail);
    for (const c of rest.slice(0, caps.list)) out.push(`- ${ICON[c.status]} ${mdCode(c.name)} (${c.level})`);
    if (rest.length > caps.list) out.push(`- …and ${rest.length - caps.list} more`);
    out.push('', 'Every message, exchange and reproduction line is in conformance.json.');
  }
  return out;
}

function warnings(report: RunReport, caps: Caps): string[] {
  const warned = report.checks.filter((c) => c.status === 'warning').sort((a, b) => levelRank(a) - levelRank(b) || byId(a, b));
  if (!warned.length) return [];
  const out = [
    '',
    '## Warnings',
    '',
    `<details><summary>${plural(warned.length, 'warning')}: SHOULD and PROFILE checks that failed; they do not change the verdict (they do under --strict)</summary>`,
    '',
    '| check | level | why |',
    '|---|---|---|',
  ];
  for (const c of warned.slice(0, caps.list)) {
    out.push(`| ${mdCode(c.name, true)} | ${c.level} | ${c.message ? mdCode(truncate(oneLine(c.message), caps.text), true) : ''} |`);
  }
  if (warned.length > caps.list) out.push('', `…and ${warned.length - caps.list} more: see conformance.json.`);
  out.push('', '</details>');
  return out;
}

function gapReport(report: RunReport, caps: Caps): string[] {
  const gaps: Gap[] = report.gaps.length ? report.gaps : gapsFromChecks(report.checks);
  if (!gaps.length) return [];
  const out = [
    '',
    '## Gap report',
    '',
    'Where the seed specification is silent, the suite records what this target does (INFO: never a failure). For the specification owners:',
  ];
  for (const g of gaps.slice(0, caps.list)) {
    out.push('', `- **${mdEscape(g.requirement)}**: ${mdEscape(g.statement)}`);
    if (!g.observations.length) out.push('  - (nothing observed)');
    for (const o of g.observations.slice(0, Math.max(1, Math.floor(caps.list / 5)))) out.push(`  - observed: ${mdCode(truncate(oneLine(o), caps.text))}`);
    const more = g.observations.length - Math.max(1, Math.floor(caps.list / 5));
    if (more > 0) out.push(`  - …and ${more} more observations`);
  }
  if (gaps.length > caps.list) out.push('', `…and ${gaps.length - caps.list} more gaps: see \`gaps\` in conformance.json.`);
  return out;
}

function footer(report: RunReport): string[] {
  const r = report.run;
  return [
    '',
    '---',
    '',
    `Target: ${mdCode(redactUrl(report.target.base_url))}${report.target.tenant_id ? ` · tenant ${mdCode(report.target.tenant_id)}` : ''}  `,
    `Seed: ${mdCode(String(r.seed))} · run ${mdCode(r.id)}${r.shard ? ` · shard ${r.shard.index}/${r.shard.count}` : ''}${r.merged_from ? ` · merged from ${r.merged_from.length} shards` : ''}  `,
    `Spec: ${mdCode(report.spec.path)} (${mdEscape(report.spec.title)}, OpenAPI ${mdEscape(report.spec.openapi)}${report.spec.reference_profile ? ', reference profile' : ''}), SHA-256 ${mdCode(report.spec.sha256)}  `,
    `Requirements: ${report.requirements.count}, SHA-256 ${mdCode(report.requirements.sha256)}  `,
    `Started ${mdEscape(r.started_at)} · duration ${formatDuration(r.duration_ms)} · ${plural(r.requests_sent, 'request')} · fsapi-conformance ${mdEscape(report.suite.version)} · Node ${mdEscape(r.node)}  `,
    'Full results: `conformance.json` (every check with its evidence), `junit.xml`, `allure-report/index.html` (HTML; `fsapi-conformance report` builds it when the run did not).',
  ];
}

function render(report: RunReport, caps: Caps, rowsPerGroup: number): string {
  const parts = [
    ...head(report),
    ...groupTables(report, rowsPerGroup, caps),
    ...failures(report, caps),
    ...warnings(report, caps),
    ...gapReport(report, caps),
    ...(report.baseline ? ['', renderDiffMarkdown(report.baseline, { cap: caps.list, heading: '##' })] : []),
    ...footer(report),
  ];
  return `${parts.join('\n')}\n`;
}

/** Renders summary.md, shrinking the caps until it fits in `maxBytes`. */
export function renderSummary(report: RunReport, opts: { maxBytes?: number } = {}): string {
  const max = opts.maxBytes ?? SUMMARY_MAX_BYTES;
  const largestGroup = Math.max(0, ...Object.values(report.counts.by_group).map((c) => c.total), ...groupOrder(report).map((g) => countGroup(report, g).total));
  let caps: Caps = { detail: 25, list: 50, text: 800 };
  for (let attempt = 0; attempt < 8; attempt++) {
    // The per-group check lists take what is left: the most rows per group that still fit.
    let lo = 0;
    let hi = largestGroup;
    if (size(render(report, caps, 0)) <= max) {
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (size(render(report, caps, mid)) <= max) lo = mid;
        else hi = mid - 1;
      }
      return render(report, caps, lo);
    }
    caps = { detail: Math.max(1, Math.floor(caps.detail / 2)), list: Math.max(3, Math.floor(caps.list / 2)), text: Math.max(80, Math.floor(caps.text / 2)) };
  }
  // Pathological input (thousands of groups or gaps): the head and footer only.
  return `${[...head(report), '', 'The full summary does not fit here: see conformance.json and junit.xml.', ...footer(report)].join('\n')}\n`;
}
