import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's root folder, found by walking up to its package.json: the same answer whether this module runs
 * from the TypeScript sources (src/) or from the compiled build (dist/src/), where relative URLs would be off.
 */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'fsapi-conformance') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the fsapi-conformance package.json above this module');
    dir = up;
  }
}

export const PACKAGE_ROOT = findRoot();

/** A path inside the package (spec files, fixtures, schemas: shipped as they are, never compiled). */
export const fromRoot = (...parts: string[]): string => join(PACKAGE_ROOT, ...parts);

/** True when this code runs from the compiled build in dist/ (then suites are loaded compiled too). */
export const RUNNING_COMPILED = fileURLToPath(import.meta.url).includes(`${sep}dist${sep}`);

/** Where the suite files are: the compiled ones next to the compiled harness, else the TypeScript sources. */
export const SUITES_DIR = RUNNING_COMPILED ? fromRoot('dist', 'suites') : fromRoot('suites');
/** suites/waiting.conformance.*: the checks of every group that sit out a deliberate wait. Not a group. */
export const WAITING_FILE = 'waiting';
export const SUITE_EXT = RUNNING_COMPILED ? '.conformance.js' : '.conformance.ts';

/** The suite's own version, from its package.json (reports carry it). */
export const SUITE_VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** True when the package runs from an installed copy (inside node_modules), not from a checkout. */
export const INSTALLED = PACKAGE_ROOT.split(sep).includes('node_modules');
