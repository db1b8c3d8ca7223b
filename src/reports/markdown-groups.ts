/**
 * summary.md's "Results by group": a counts row per group, then each group's checks worst first, a row each, the
 * checks grouped under one contradiction of the document sharing a row; a group with no executed check says
 * "not tested".
 */
import { CROSS_CUTTING, GROUPS } from '../catalogue/groups.js';
import type { CheckResult, CheckStatus, DocumentConflict, RunReport, StatusCounts } from '../results/model.js';
import { groupedChecks } from '../results/document-conflicts.js';
import { byId, COLUMNS, countsHeader, countsLine, countsRow, ICON, levelRank, type Caps } from './markdown-marks.js';
import { mdCode, mdEscape } from './markdown-text.js';
import { oneLine, plural, truncate } from './text.js';

/** Worst first. */
const STATUS_ORDER: Record<CheckStatus, number> = { error: 0, failed: 1, warning: 2, skipped: 3, passed: 4 };

function groupLabel(slug: string): string {
  return GROUPS.find((g) => g.slug === slug)?.tag ?? slug.charAt(0).toUpperCase() + slug.slice(1);
}

export function groupOrder(report: RunReport): string[] {
  const known = [...GROUPS.map((g) => g.slug), ...CROSS_CUTTING] as string[];
  const present = new Set<string>(report.checks.map((c) => c.group));
  return [...known.filter((g) => present.has(g)), ...[...present].filter((g) => !known.includes(g)).sort()];
}

/** A group none of whose checks was executed (only skips, or only INFO observations) was not tested. */
function untested(checks: readonly CheckResult[]): boolean {
  return !checks.some((c) => c.level !== 'INFO' && (c.status === 'passed' || c.status === 'failed' || c.status === 'warning'));
}

interface Row {
  checks: CheckResult[];
  /** The contradiction of the document these checks are grouped under: one row for all of them. */
  conflict?: DocumentConflict;
}

/** A group's rows in order: a check each, but the checks grouped under one contradiction of the document share a row, at the first's place. */
function rowsOf(checks: readonly CheckResult[], grouped: ReadonlyMap<string, DocumentConflict>): Row[] {
  const rows: Row[] = [];
  const under = new Map<DocumentConflict, Row>();
  for (const c of checks) {
    const conflict = grouped.get(c.id);
    if (!conflict) rows.push({ checks: [c] });
    else if (under.has(conflict)) under.get(conflict)!.checks.push(c);
    else {
      const row = { checks: [c], conflict };
      under.set(conflict, row);
      rows.push(row);
    }
  }
  return rows;
}

export function groupTables(report: RunReport, rowsPerGroup: number, caps: Caps): string[] {
  const out = ['', '## Results by group', '', ...countsHeader('group')];
  const grouped = groupedChecks(report.document_conflicts);
  const groups = groupOrder(report);
  const inGroup = groupsInOrder(report);
  for (const g of groups) out.push(countsRow(`${mdEscape(groupLabel(g))}${untested(inGroup(g)) ? ' (not tested)' : ''}`, report.counts.by_group[g] ?? countGroup(report, g)));
  for (const g of groups) {
    const checks = inGroup(g);
    const counts = report.counts.by_group[g] ?? countGroup(report, g);
    const worst = untested(checks) ? '⏭️' : checks[0] ? ICON[checks[0].status] : '';
    const line = untested(checks) ? `not tested (${countsLine(counts)})` : countsLine(counts);
    out.push('', `<details><summary>${worst} <b>${mdEscape(groupLabel(g))}</b>: ${line}</summary>`, '');
    out.push('| | check | level | message |', '|---|---|---|---|');
    const rows = rowsIn(report, checks, grouped);
    for (const row of rows.slice(0, rowsPerGroup)) {
      const c = row.checks[0]!;
      if (row.conflict) {
        out.push(`| ${ICON[c.status]} | ${plural(row.checks.length, 'check')} of ${mdEscape(row.conflict.requirement)}, e.g. ${mdCode(c.name, true)} | ${c.level} | grouped: the document contradicts ${mdEscape(row.conflict.requirement)} (${mdCode(`#${row.conflict.pointer}`, true)}; see "Where the document contradicts the seed") |`);
        continue;
      }
      const msg = c.message ?? c.observation;
      out.push(`| ${ICON[c.status]} | ${mdCode(c.name, true)} | ${c.level} | ${msg ? mdCode(truncate(oneLine(msg), Math.min(caps.text, 160)), true) : ''} |`);
    }
    if (rows.length > rowsPerGroup) {
      // What the rows not shown hold: the group's checks less those shown (counted over the shown rows only, since
      // the summary is rendered again for every number of rows its search tries).
      const rest = new Map<CheckStatus, number>();
      for (const c of checks) rest.set(c.status, (rest.get(c.status) ?? 0) + 1);
      let restTotal = checks.length;
      for (const row of rows.slice(0, rowsPerGroup)) for (const c of row.checks) (rest.set(c.status, rest.get(c.status)! - 1), restTotal--);
      const restCounts = COLUMNS.map((x) => [x, rest.get(x.status) ?? 0] as const).filter(([, n]) => n);
      out.push('', `…and ${restTotal} more (${restCounts.map(([x, n]) => `${n} ${n === 1 ? x.one : x.label}`).join(', ')}): see conformance.json.`);
    }
    out.push('', '</details>');
  }
  return out;
}

/**
 * A group's rows, made once for its sorted checks and the report's contradictions: the summary is rendered again for
 * every number of rows its search tries.
 */
const rowsOfGroup = new WeakMap<readonly CheckResult[], { conflicts: RunReport['document_conflicts']; rows: Row[] }>();
function rowsIn(report: RunReport, checks: readonly CheckResult[], grouped: ReadonlyMap<string, DocumentConflict>): Row[] {
  const known = rowsOfGroup.get(checks);
  if (known && known.conflicts === report.document_conflicts) return known.rows;
  const rows = rowsOf(checks, grouped);
  rowsOfGroup.set(checks, { conflicts: report.document_conflicts, rows });
  return rows;
}

/**
 * Each group's checks, worst first, sorted once per report: renderSummary renders the report over and over (a
 * search for the most rows that fit). On Plaid's document (11,632 checks) the summary took 0.72 s to render, and
 * 0.35-0.49 s sorted once (the same bytes).
 */
const sortedGroups = new WeakMap<readonly CheckResult[], ReadonlyMap<string, CheckResult[]>>();
function groupsInOrder(report: RunReport): (group: string) => CheckResult[] {
  const byGroup = sortedGroups.get(report.checks) ?? sortGroups(report.checks);
  return (g) => byGroup.get(g) ?? [];
}

function sortGroups(checks: readonly CheckResult[]): ReadonlyMap<string, CheckResult[]> {
  const byGroup = new Map<string, CheckResult[]>();
  for (const c of checks) (byGroup.get(c.group) ?? byGroup.set(c.group, []).get(c.group)!).push(c);
  for (const group of byGroup.values()) group.sort((a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status] || levelRank(a) - levelRank(b) || byId(a, b));
  sortedGroups.set(checks, byGroup);
  return byGroup;
}

export function countGroup(report: RunReport, g: string): StatusCounts {
  const c: StatusCounts = { total: 0, passed: 0, failed: 0, warning: 0, skipped: 0, error: 0 };
  for (const x of report.checks) if (x.group === g) (c[x.status]++, c.total++);
  return c;
}
