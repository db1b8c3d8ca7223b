/**
 * SHA256SUMS in the format of GNU `sha256sum` (text mode: "<hex>  <path>"), over every regular file under the
 * report directory but SHA256SUMS itself, sorted by path, so `sha256sum -c SHA256SUMS` passes in that directory.
 * Symbolic links are not followed (a link could point outside the report). A name with a backslash or newline is
 * written the way sha256sum escapes it (a leading "\" and \\ / \n in the name).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const CHECKSUMS_FILE = 'SHA256SUMS';

function listFiles(root: string, dir = root): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(root, p));
    else if (e.isFile()) out.push(relative(root, p).split(sep).join('/'));
  }
  return out;
}

function line(hex: string, name: string): string {
  if (/[\\\n]/.test(name)) return `\\${hex}  ${name.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n`;
  return `${hex}  ${name}\n`;
}

/**
 * Writes dir/SHA256SUMS and returns the files it covers (relative, '/'-separated). Every file in dir is listed;
 * `known` gives the SHA-256 of files whose writer hashed what it wrote (the run's Allure results), which are then
 * not read back; the others are read synchronously, one after another (a run's report holds thousands of small
 * Allure files, and a read stream per file cost 0.5 s where this loop takes 0.07 s).
 */
export async function writeChecksums(dir: string, known: ReadonlyMap<string, string> = new Map()): Promise<string[]> {
  const files = listFiles(dir).filter((f) => f !== CHECKSUMS_FILE).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const lines = files.map((f) => line(known.get(f) ?? createHash('sha256').update(readFileSync(join(dir, f))).digest('hex'), f));
  writeFileSync(join(dir, CHECKSUMS_FILE), lines.join(''));
  return files;
}
