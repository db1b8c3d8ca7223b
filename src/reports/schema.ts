import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fromRoot } from '../paths.js';
import { createAjv, describeErrors, type SchemaProblem, type ValidateFunction } from '../catalogue/json-schema.js';
import { loadBuilt, writeBuilt } from '../catalogue/precompiled.js';
import { SCHEMA_VERSION, type RunReport } from '../results/model.js';

/** The JSON Schema of conformance.json; shipped next to this module and published with the reports. */
export const CONFORMANCE_SCHEMA_PATH = fromRoot('src', 'reports', 'conformance.schema.json');
export { SCHEMA_VERSION };

/**
 * The validator as ajv standalone code, written by `npm run build` next to this module (as the reference
 * profile's are: src/catalogue/precompiled.ts). Compiling it took 0.14 s of the main thread in every run, while
 * the workers start, and in every merge and diff. Used only when made from the schema as it is (its SHA-256).
 */
const PRECOMPILED = fileURLToPath(new URL('./report-validator.cjs', import.meta.url));

let compiled: ValidateFunction | undefined;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

// Strict: the schema is ours, so an unknown keyword in it is a mistake to catch.
const schemaAjv = (standalone = false) => createAjv({ strict: true, standalone });

function validator(): ValidateFunction {
  if (!compiled) {
    const text = readFileSync(CONFORMANCE_SCHEMA_PATH, 'utf8');
    compiled = precompiledValidator(sha256(text)) ?? schemaAjv().compile(JSON.parse(text) as object);
  }
  return compiled;
}

/** The build's validator when it was made from this schema; undefined without a build (the sources) or a stale one. */
function precompiledValidator(schemaSha256: string): ValidateFunction | undefined {
  const validate = loadBuilt<ValidateFunction>(PRECOMPILED, schemaSha256);
  return typeof validate === 'function' ? validate : undefined;
}

/** Writes the standalone validator (run by `npm run build` on the compiled module). */
export async function writeReportValidator(): Promise<void> {
  const { default: standalone } = await import('ajv/dist/standalone/index.js');
  const text = readFileSync(CONFORMANCE_SCHEMA_PATH, 'utf8');
  const ajv = schemaAjv(true);
  writeBuilt(PRECOMPILED, standalone.default(ajv, ajv.compile(JSON.parse(text) as object)), sha256(text));
}

/** Compiles the validator ahead of its first use (a run does it while its workers start). */
export function prepareReportValidator(): void {
  validator();
}

/**
 * Validates a parsed conformance.json: the schema, then what a schema cannot say (check ids are unique).
 * Returns the problems, deepest first; an empty list means valid.
 */
export function validateReport(data: unknown): SchemaProblem[] {
  const validate = validator();
  if (!validate(data)) {
    return [...describeErrors(validate.errors)].sort((a, b) => b.pointer.length - a.pointer.length);
  }
  const seen = new Map<string, number>();
  const problems: SchemaProblem[] = [];
  (data as RunReport).checks.forEach((c, i) => {
    const first = seen.get(c.id);
    if (first !== undefined) problems.push({ pointer: `/checks/${i}/id`, message: `repeats the id of /checks/${first} ("${c.id}")` });
    else seen.set(c.id, i);
  });
  return problems;
}
