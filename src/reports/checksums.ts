/**
 * SHA256SUMS in the format of GNU `sha256sum` (text mode: "<hex>  <path>"), over every regular file under the
 * report directory but SHA256SUMS itself, sorted by path, so `sha256sum -c SHA256SUMS` passes in that directory.
 * Symbolic links are not followed (a link could point outside the report). A name with a backslash or newline is
 * written the way sha256sum escapes it (a leading "\" and \\ / \n in the name).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

export const CHECKSUMS_FILE = 'SHA256SUMS';

async function listFiles(root: string, dir = root): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(root, p)));
    else if (e.isFile()) out.push(relative(root, p).split(sep).join('/'));
  }
  return out;
}

export function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('error', reject)
      .on('data', (chunk) => h.update(chunk))
      .on('end', () => resolve(h.digest('hex')));
  });
}

function line(hex: string, name: string): string {
  if (/[\\\n]/.test(name)) return `\\${hex}  ${name.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n`;
  return `${hex}  ${name}\n`;
}

/** Writes dir/SHA256SUMS and returns the files it covers (relative, '/'-separated). */
export async function writeChecksums(dir: string): Promise<string[]> {
  const files = (await listFiles(dir)).filter((f) => f !== CHECKSUMS_FILE).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const lines: string[] = [];
  // Bounded parallelism: allure-results can hold thousands of attachments.
  for (let i = 0; i < files.length; i += 32) {
    const batch = files.slice(i, i + 32);
    const hashes = await Promise.all(batch.map((f) => sha256File(join(dir, f))));
    batch.forEach((f, j) => lines.push(line(hashes[j]!, f)));
  }
  await writeFile(join(dir, CHECKSUMS_FILE), lines.join(''));
  return files;
}
