/** The document diff and the behaviour drift as console text and Markdown (summary.md, PR comments). */
import { mdCode, mdEscape } from './markdown-text.js';
import { oneLine, truncate } from './text.js';
import type { BaselineDiff } from '../results/model.js';
import { KIND_SINGULAR, KIND_TITLES, type DriftFinding, type DriftKind, type SpecChange, type SpecChangeKind, type SpecDiff, type TrendPoint } from '../results/regression-model.js';

const where = (c: SpecChange) => `${c.operation ? `${c.operation} ` : ''}${c.pointer}`;
const folded = (c: SpecChange) => (c.count > 1 ? ` (${c.count} changes)` : '');

const changes = (n: number, what: string) => `${n} ${what} change${n === 1 ? '' : 's'}`;
/** "1 removed response", "2 removed responses". */
export const kindCount = (k: SpecChangeKind, n: number) => `${n} ${n === 1 ? KIND_SINGULAR[k] : KIND_TITLES[k]}`;

/** One line: "3 breaking changes and 12 non-breaking changes (…)". */
export function specDiffHeadline(d: SpecDiff): string {
  const kinds = (Object.keys(KIND_TITLES) as SpecChangeKind[]).filter((k) => d.by_kind[k]?.breaking).map((k) => kindCount(k, d.by_kind[k]!.breaking));
  const unsure = d.unclassified ? `, ${d.unclassified} of them unclassified by the library (judge those by hand)` : '';
  return `${changes(d.breaking, 'breaking')} and ${changes(d.non_breaking, 'non-breaking')}${unsure}${kinds.length ? ` (breaking: ${kinds.join(', ')})` : ''}`;
}

const version = (v: SpecDiff['old']) => `${v.title || v.path} ${v.version} (OpenAPI ${v.openapi})`;

export function renderSpecDiffText(d: SpecDiff, opts: { cap?: number } = {}): string {
  const cap = opts.cap ?? 50;
  const lines = [`old: ${d.old.path}: ${version(d.old)}`, `new: ${d.new.path}: ${version(d.new)}`, specDiffHeadline(d)];
  for (const breaking of [true, false]) {
    const list = d.changes.filter((c) => c.breaking === breaking);
    lines.push('', `${breaking ? 'breaking' : 'non-breaking'} (${list.length})${list.length ? ':' : ''}`);
    for (const c of list.slice(0, cap)) lines.push(`  [${c.kind}]${c.unclassified ? ' [unclassified]' : ''} ${where(c)}: ${truncate(oneLine(c.description), 200)}${folded(c)}`);
    if (list.length > cap) lines.push(`  …and ${list.length - cap} more (--all lists every change, --json gives them as data)`);
  }
  return lines.join('\n');
}

export function renderSpecDiffMarkdown(d: SpecDiff, opts: { cap?: number; heading?: string } = {}): string {
  const cap = opts.cap ?? 30;
  const out = [
    `${opts.heading ?? '##'} What changed in the document`,
    '',
    `From ${mdCode(d.old.path)} (${mdEscape(version(d.old))}) to ${mdCode(d.new.path)} (${mdEscape(version(d.new))}): **${mdEscape(specDiffHeadline(d))}**.`,
  ];
  const kinds = (Object.keys(KIND_TITLES) as SpecChangeKind[]).filter((k) => d.by_kind[k]);
  if (kinds.length) {
    out.push('', '| kind | breaking | non-breaking |', '|---|---|---|');
    for (const k of kinds) out.push(`| ${KIND_TITLES[k]} | ${d.by_kind[k]!.breaking} | ${d.by_kind[k]!.non_breaking} |`);
  }
  const breaking = d.changes.filter((c) => c.breaking);
  if (breaking.length) {
    out.push('', '| breaking change | where | what |', '|---|---|---|');
    for (const c of breaking.slice(0, cap)) out.push(`| ${KIND_TITLES[c.kind]} | ${mdCode(where(c), true)} | ${mdCode(truncate(oneLine(c.description), 160), true)}${folded(c)} |`);
    if (breaking.length > cap) out.push('', `…and ${breaking.length - cap} more: \`fsapi-conformance spec-diff\` lists them all.`);
  }
  return out.join('\n');
}

/** The baseline's document change: its diff, or why there is none to show. */
export function renderDocumentChange(doc: NonNullable<BaselineDiff['document']>, opts: { cap?: number; heading?: string } = {}): string {
  if (doc.diff) return renderSpecDiffMarkdown(doc.diff, opts);
  return [`${opts.heading ?? '##'} What changed in the document`, '', `The document changed since the baseline, but ${mdEscape(doc.note ?? 'the baseline\'s document is not at hand')}.`].join('\n');
}

/** The console's first lines for a run whose document changed since its baseline. */
export function documentChangeLines(doc: NonNullable<BaselineDiff['document']>, cap = 10): string[] {
  if (!doc.changed) return [];
  if (!doc.diff) return [`document changed since the baseline: ${doc.note ?? ''}`];
  const d = doc.diff;
  const lines = [`document changed since the baseline: ${specDiffHeadline(d)}`];
  for (const c of d.changes.filter((x) => x.breaking).slice(0, cap)) lines.push(`  breaking [${c.kind}] ${where(c)}${folded(c)}`);
  if (d.breaking > cap) lines.push(`  …and ${d.breaking - cap} more (summary.md, or fsapi-conformance spec-diff)`);
  return lines;
}

const KIND_TEXT: Record<DriftKind, string> = {
  'status-added': 'new status',
  'status-gone': 'status no longer answered',
  'member-added': 'new response member',
  'member-gone': 'response member gone',
  'header-added': 'new response header',
  'header-gone': 'response header gone',
  latency: 'slower',
};

/** At most this many checks are named on a finding's line; the rest are counted (conformance.json lists them all). */
const CHECKS_NAMED = 2;

/** Which checks saw a change: "(check FSAPI-IDEM-102 createTransfer different-body)", "(checks A, B and 3 more)". */
function seenBy(checks: readonly string[] | undefined): string {
  if (!checks?.length) return '';
  const named = checks.slice(0, CHECKS_NAMED).join(', ');
  const more = checks.length - CHECKS_NAMED;
  return ` (check${checks.length === 1 ? '' : 's'} ${more > 0 ? `${named} and ${more} more` : named})`;
}

/** One finding on one line: "POST /accounts: response header gone (201): location (check FSAPI-... createAccount ...)". */
export function describeDrift(f: DriftFinding): string {
  return `${f.endpoint}: ${KIND_TEXT[f.kind]}${f.status ? ` (${f.status})` : ''}: ${f.items.join(', ')}${seenBy(f.checks)}`;
}

const signed = (n: number, unit = '') => `${n > 0 ? '+' : n < 0 ? '−' : '±'}${Math.abs(n)}${unit}`;

/** The trend as a Markdown section: a row a run (oldest first, this one last) and what moved since the previous. */
export function renderTrendMarkdown(points: readonly TrendPoint[], heading = '##'): string {
  const out = [
    `${heading} Trend over the last ${points.length} runs`,
    '',
    '| run | started | verdict | passed | failed | warnings | skipped | errors | MUST verified | p50 | p95 |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  let doc: string | undefined;
  for (const p of points) {
    const c = p.counts;
    // A run whose document differs from the run before it is marked: a release changed the contract there.
    const changed = doc !== undefined && doc !== p.document_sha256 ? ' (new document)' : '';
    doc = p.document_sha256;
    out.push(
      `| ${mdCode(p.run_id, true)}${changed} | ${mdEscape(p.started_at.slice(0, 16).replace('T', ' '))} | ${p.verdict} | ${c.passed} | ${c.failed} | ${c.warning} | ${c.skipped} | ${c.error} | ${p.must ? `${p.must.verified} of ${p.must.applicable}` : '·'} | ${p.latency_ms ? `${Math.round(p.latency_ms.p50)} ms` : '·'} | ${p.latency_ms ? `${Math.round(p.latency_ms.p95)} ms` : '·'} |`,
    );
  }
  const [prev, now] = points.slice(-2);
  if (prev && now) {
    const moved = [
      `passed ${signed(now.counts.passed - prev.counts.passed)}`,
      `failed ${signed(now.counts.failed - prev.counts.failed)}`,
      ...(now.must && prev.must ? [`MUST verified ${signed(now.must.verified - prev.must.verified)}`] : []),
      ...(now.latency_ms && prev.latency_ms ? [`p95 ${signed(Math.round(now.latency_ms.p95 - prev.latency_ms.p95), ' ms')}`] : []),
    ];
    out.push('', `Since the previous run: ${moved.join(', ')}.`);
  }
  return out.join('\n');
}
