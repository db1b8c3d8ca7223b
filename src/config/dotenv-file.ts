import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { UsageError } from '../errors.js';

/**
 * Reads `.env` with dotenv, after checking every line has the KEY=VALUE shape: dotenv silently skips a
 * malformed line, which would turn a typo into a missing setting with a confusing message later.
 */
export function readDotenv(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  const text = readFileSync(path, 'utf8');
  const lines = text.split(/\r?\n/);
  let inQuoted: string | undefined;
  lines.forEach((line, i) => {
    if (inQuoted) {
      if (line.includes(inQuoted)) inQuoted = undefined;
      return;
    }
    const t = line.trim();
    if (t === '' || t.startsWith('#')) return;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(t);
    if (!m) {
      throw new UsageError(`line ${i + 1} is not KEY=VALUE: "${t.length > 60 ? `${t.slice(0, 60)}...` : t}"`, {
        file: path,
        where: String(i + 1),
        fix: 'write each setting as NAME=value (no spaces around the name), or start the line with # to comment it out',
      });
    }
    const v = m[2]!;
    // A quoted value may span lines; remember the quote until it closes.
    const q = v[0];
    if ((q === '"' || q === "'" || q === '`') && !v.slice(1).includes(q)) inQuoted = q;
  });
  if (inQuoted) throw new UsageError(`a quoted value is never closed`, { file: path, fix: `add the closing ${inQuoted}` });
  // Loaded only when there is a .env to read: the run's workers import this module too (~10 ms each to load dotenv).
  return (createRequire(import.meta.url)('dotenv') as typeof import('dotenv')).parse(text);
}
