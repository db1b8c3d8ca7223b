import { writeFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import type { OptionSpec } from './command.js';

/** `--markdown FILE`, shared by the commands that compare two things (diff, spec-diff). */
export const MARKDOWN_OPTION: OptionSpec = { name: 'markdown', type: 'string', value: 'FILE', description: 'also write the diff as Markdown to FILE (for a PR comment or a job summary)', default: 'none' };

/** Writes the Markdown when --markdown was given; an unwritable path is the user's to fix, not a crash. */
export function writeMarkdownOption(file: unknown, render: () => string): void {
  if (typeof file !== 'string') return;
  try {
    writeFileSync(file, `${render()}\n`);
  } catch (e) {
    throw new UsageError(`cannot write the Markdown diff (${(e as NodeJS.ErrnoException).code ?? 'error'})`, { file, fix: 'give a writable path for --markdown' });
  }
}
