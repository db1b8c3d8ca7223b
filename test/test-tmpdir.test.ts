/**
 * The project's own tests keep every temporary file in one folder of the run, removed at its end
 * (test/helpers/test-tmpdir.ts): left in the system's, a day of `npm test` runs had left 8,222 entries there.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import setup from './helpers/test-tmpdir.js';

describe("the tests' temporary folder", () => {
  it('is one folder of this run, for the test processes and the processes they start', () => {
    expect(basename(tmpdir())).toMatch(/^fsapi-test-run-/);
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(require("node:os").tmpdir())'], { encoding: 'utf8' });
    expect(child.stdout).toBe(tmpdir());
  });

  it('is removed at the end with all it holds, and TMPDIR put back', () => {
    const before = process.env['TMPDIR'];
    const teardown = setup();
    const root = tmpdir();
    try {
      expect(dirname(root)).toBe(before);
      const made = mkdtempSync(join(root, 'fsapi-cli-'));
      writeFileSync(join(made, 'conformance.json'), '{}');
    } finally {
      teardown();
    }
    expect(process.env['TMPDIR']).toBe(before);
    expect(existsSync(root)).toBe(false);
  });
});
