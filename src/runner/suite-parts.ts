/**
 * A suite too large for one file, run in parts: vitest keeps some 5 KB for every check a file declares until that
 * file ends (its task, context, abort controller, a stack trace and a dozen closures), so a vendor's document of
 * 2,000 operations, 57,413 checks in `unbound`, held about 300 MB of it in its worker from the first check to the
 * last. In parts of at most FSAPI_PART_CHECKS checks, run one after another in the run's one worker, each part's is
 * freed as it ends. Each part is a small generated file that declares its share (defineSuitePart); the suite is still
 * one suite, with one traffic observer and one set of worlds, since the parts share the worker's module state.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SuiteSlug } from '../catalogue/groups.js';
import { privateCacheDir } from '../cache-dir.js';
import { fromRoot, RUNNING_COMPILED } from '../paths.js';

/**
 * The suites that can run in parts: those whose checks are all planned from the document (no flows of their own in
 * their suite file), which is the one suite that grows with a vendor's document. A group's suite holds the reference
 * operations the binding gives it, a few hundred checks at most.
 */
const PARTABLE: readonly SuiteSlug[] = ['unbound'];

/**
 * How many parts a suite runs in: more than one when it is partable, holds more than `partChecks` checks, and the run
 * has one worker (the parts share that worker's module state; two workers would split them).
 */
export function partsOf(suite: SuiteSlug, checks: number, partChecks: number, workers: number): number {
  if (!PARTABLE.includes(suite) || workers !== 1 || partChecks <= 0 || checks <= partChecks) return 1;
  return Math.ceil(checks / partChecks);
}

const PART_FILE = /^(.+)\.part-(\d+)-of-(\d+)\.conformance\.mjs$/;

/** The suite a file of the run declares, and which part of it when it is one; undefined for a file that is neither. */
export function suiteOfFile(path: string): { suite: string; part?: { index: number; count: number } } | undefined {
  const name = basename(path);
  const part = PART_FILE.exec(name);
  if (part) return { suite: part[1]!, part: { index: Number(part[2]), count: Number(part[3]) } };
  const whole = /^(.+)\.conformance\.[jt]s$/.exec(name);
  return whole ? { suite: whole[1]! } : undefined;
}

/**
 * The files of a suite's parts, in order, made once in this user's private folder (a file's content depends only on
 * the part, the count and where this package's harness is, so runs share them), or undefined when there is no such
 * folder: the suite then runs in one file.
 */
export function partFiles(suite: string, parts: number): string[] | undefined {
  const harness = pathToFileURL(fromRoot(...(RUNNING_COMPILED ? ['dist', 'src', 'vitest-suite', 'suite.js'] : ['src', 'vitest-suite', 'suite.ts']))).href;
  const cache = privateCacheDir('fsapi-conformance-parts');
  if (!cache) return undefined;
  // One folder per copy of the harness: two checkouts or installs never share a file.
  const dir = join(cache, createHash('sha256').update(harness).digest('hex').slice(0, 16));
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return Array.from({ length: parts }, (_, i) => {
      const file = join(dir, `${suite}.part-${i + 1}-of-${parts}.conformance.mjs`);
      const text = `// Part ${i + 1} of ${parts} of the ${suite} suite of fsapi-conformance (src/runner/suite-parts.ts).\nimport { defineSuitePart } from ${JSON.stringify(harness)};\n\nawait defineSuitePart(${JSON.stringify(suite)}, ${i + 1}, ${parts});\n`;
      if (!existsSync(file) || readFileSync(file, 'utf8') !== text) {
        // Written whole, then moved into place: a run reading it meanwhile never sees half a file.
        const tmp = `${file}.${process.pid}.tmp`;
        writeFileSync(tmp, text, { mode: 0o600 });
        renameSync(tmp, file);
      }
      return file;
    });
  } catch {
    return undefined;
  }
}
