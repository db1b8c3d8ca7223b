/**
 * The reference profile's schema validators, compiled at build time. Compiling them cost every thread of every
 * run (each vitest worker, the sandbox thread, the main thread) about half a second of CPU, most of it while the
 * workers start. `npm run build` writes them as ajv standalone code next to this module; a thread loads that file
 * and uses it only when it was made from the very document in use (its SHA-256), else it compiles as before.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from './json-schema.js';

export const REFERENCE_VALIDATORS_FILE = fileURLToPath(new URL('./reference-validators.cjs', import.meta.url));

/** A validator's name: a digest of its schema, so build and run agree on it without sharing objects. */
export function schemaKey(schema: object): string {
  return `v${createHash('sha1').update(JSON.stringify(schema)).digest('hex').slice(0, 24)}`;
}

export type Precompiled = (key: string) => ValidateFunction | undefined;

/**
 * A module the build wrote with writeBuilt(), when it was made from the source with this SHA-256; undefined when
 * there is none (a checkout run from its sources) or it was made from another source (stale, or another document).
 */
export function loadBuilt<T extends object>(file: string, sourceSha256: string): T | undefined {
  let mod: T & { SOURCE_SHA256?: unknown };
  try {
    mod = createRequire(import.meta.url)(file) as T & { SOURCE_SHA256?: unknown };
  } catch {
    return undefined;
  }
  return mod.SOURCE_SHA256 === sourceSha256 ? mod : undefined;
}

/** Writes ajv standalone code as a module that names the SHA-256 of the source it was made from. */
export function writeBuilt(file: string, standaloneSource: string, sourceSha256: string): void {
  writeFileSync(file, `${standaloneSource}\nmodule.exports.SOURCE_SHA256 = ${JSON.stringify(sourceSha256)};\n`);
}

/** The build's validators for the document with this digest, or undefined (none built, or for another document). */
export function loadPrecompiled(sha256: string): Precompiled | undefined {
  const mod = loadBuilt<Record<string, unknown>>(REFERENCE_VALIDATORS_FILE, sha256);
  if (!mod) return undefined;
  return (key) => {
    const fn = mod[key];
    return typeof fn === 'function' ? (fn as ValidateFunction) : undefined;
  };
}
