/** Escaping for GitHub-flavoured Markdown (job summaries and PR comments). */
import { oneLine, stripControls } from './text.js';

/** Escapes text for use as Markdown prose or a table cell: one line, every markup character backslash-escaped. */
export function mdEscape(s: string): string {
  return oneLine(s).replace(/[\\`*_[\]<>|~&@$]/g, (ch) => `\\${ch}`);
}

/**
 * Text that came from the target (messages, observations, ids) as an inline code span: nothing in it is
 * interpreted (no HTML, no links, no @mentions). In a table cell, `|` is escaped as GFM requires.
 */
export function mdCode(s: string, inTable = false): string {
  let t = oneLine(s);
  if (!t) return '';
  if (inTable) t = t.replace(/\|/g, '\\|');
  const longest = Math.max(0, ...(t.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = t.startsWith('`') || t.endsWith('`') || longest > 0 ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/** Multi-line text from the target as a fenced code block whose fence cannot be closed by the text itself. */
export function mdBlock(s: string, lang = 'text'): string {
  const t = stripControls(s).replace(/\s+$/, '');
  const longest = Math.max(0, ...(t.match(/^ {0,3}`{3,}/gm) ?? []).map((r) => r.trim().length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${t}\n${fence}`;
}
