/**
 * What every section of summary.md shares: the status marks, the count columns and their tables, the caps that
 * bound each list, and the order of checks within a list.
 */
import { LEVELS } from '../catalogue/requirements.js';
import type { CheckResult, CheckStatus, StatusCounts } from '../results/model.js';

/** Each status's mark, in every list of the summary. */
export const ICON: Record<CheckStatus, string> = { passed: '✅', failed: '❌', warning: '⚠️', skipped: '⏭️', error: '💥' };

/** The count columns, in the order every counts table and line gives them. */
export const COLUMNS: { status: CheckStatus; label: string; one: string }[] = [
  { status: 'passed', label: 'passed', one: 'passed' },
  { status: 'failed', label: 'failed', one: 'failed' },
  { status: 'warning', label: 'warnings', one: 'warning' },
  { status: 'skipped', label: 'skipped', one: 'skipped' },
  { status: 'error', label: 'errors', one: 'error' },
];

/** How much of each list summary.md shows: shrunk until the summary fits (renderSummary). */
export interface Caps {
  /** Failures and errors shown in full. */
  detail: number;
  /** Entries of the other lists (warnings, diff lists, observations per gap). */
  list: number;
  /** Characters of one message, observation or reproduction line. */
  text: number;
}

export const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
export const levelRank = (c: CheckResult) => LEVELS.indexOf(c.level);

export function countsLine(c: StatusCounts): string {
  return COLUMNS.filter((x) => c[x.status] > 0 || x.status === 'passed')
    .map((x) => `${c[x.status]} ${c[x.status] === 1 ? x.one : x.label}`)
    .join(', ');
}

export function countsRow(label: string, c: StatusCounts): string {
  return `| ${label} | ${COLUMNS.map((x) => (c[x.status] ? String(c[x.status]) : '·')).join(' | ')} | ${c.total} |`;
}

export const countsHeader = (first: string) => [
  `| ${first} | ${COLUMNS.map((x) => x.label).join(' | ')} | total |`,
  `|---|${COLUMNS.map(() => '---:').join('|')}|---:|`,
];
