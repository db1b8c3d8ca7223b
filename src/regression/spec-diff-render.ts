/** The document diff as console text and as a Markdown section (summary.md, PR comments). */
import { mdCode, mdEscape } from '../reports/markdown-text.js';
import { oneLine, truncate } from '../reports/text.js';
import { KIND_TITLES, type SpecChange, type SpecChangeKind, type SpecDiff } from './spec-diff.js';

const where = (c: SpecChange) => `${c.operation ? `${c.operation} ` : ''}${c.pointer}`;
const folded = (c: SpecChange) => (c.count > 1 ? ` (${c.count} changes)` : '');

/** One line: "3 breaking and 12 other changes (…)". */
export function specDiffHeadline(d: SpecDiff): string {
  const kinds = (Object.keys(KIND_TITLES) as SpecChangeKind[]).filter((k) => d.by_kind[k]?.breaking).map((k) => `${d.by_kind[k]!.breaking} ${KIND_TITLES[k]}`);
  return `${d.breaking} breaking and ${d.non_breaking} non-breaking changes${kinds.length ? ` (breaking: ${kinds.join(', ')})` : ''}`;
}

const version = (v: SpecDiff['old']) => `${v.title || v.path} ${v.version} (OpenAPI ${v.openapi})`;

export function renderSpecDiffText(d: SpecDiff, opts: { cap?: number } = {}): string {
  const cap = opts.cap ?? 50;
  const lines = [`old: ${d.old.path}: ${version(d.old)}`, `new: ${d.new.path}: ${version(d.new)}`, specDiffHeadline(d)];
  for (const breaking of [true, false]) {
    const list = d.changes.filter((c) => c.breaking === breaking);
    lines.push('', `${breaking ? 'breaking' : 'non-breaking'} (${list.length})${list.length ? ':' : ''}`);
    for (const c of list.slice(0, cap)) lines.push(`  [${c.kind}] ${where(c)}: ${truncate(oneLine(c.description), 200)}${folded(c)}`);
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
