/**
 * vitest's global setup: one temporary folder for a whole `npm test`, removed at its end. Every test's mkdtemp,
 * every CLI run it starts (its reports, the parsed-document and vite caches, the sandbox's certificate) lands under
 * it, since os.tmpdir() reads TMPDIR at each call and the test processes and their children inherit it. Left in the
 * system's temporary folder, a day of `npm test` runs had left 8,222 entries there (7 GB), and every later run paid
 * for them: a suite run in parts lists that folder's entries when vitest looks for its files.
 * FSAPI_KEEP_TEST_TMP=1 keeps the folder and prints where it is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const previous = process.env['TMPDIR'];
  const root = mkdtempSync(join(tmpdir(), 'fsapi-test-run-'));
  process.env['TMPDIR'] = root;
  return () => {
    if (previous === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = previous;
    if (process.env['FSAPI_KEEP_TEST_TMP'] === '1') console.log(`the tests' temporary files are kept in ${root}`);
    else rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}
