/**
 * The sandbox's wire types are what the reference document gives: `npm run wire-types -- --check` regenerates them
 * from spec/openapi.yaml and finds nothing to rewrite (an edit of the document without regenerating fails here).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../src/paths.js';

describe('the sandbox wire types', () => {
  it('are what spec/openapi.yaml gives: `npm run wire-types -- --check` finds nothing to rewrite', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'tools/wire-types.ts', '--check'], { cwd: PACKAGE_ROOT, encoding: 'utf8' });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  });
});
