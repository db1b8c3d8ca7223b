import { readFileSync } from 'node:fs';
import { fromRoot } from '../paths.js';
import { createAjv, describeErrors, type SchemaProblem, type ValidateFunction } from '../catalogue/json-schema.js';
import type { RunReport } from '../results/model.js';

/** The JSON Schema of conformance.json; shipped next to this module and published with the reports. */
export const CONFORMANCE_SCHEMA_PATH = fromRoot('src', 'reports', 'conformance.schema.json');
/** The schema_version this suite writes and reads. */
export const SCHEMA_VERSION = 1;

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (!compiled) {
    // Strict: the schema is ours, so an unknown keyword in it is a mistake to catch.
    compiled = createAjv({ strict: true }).compile(JSON.parse(readFileSync(CONFORMANCE_SCHEMA_PATH, 'utf8')) as object);
  }
  return compiled;
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

export function isRunReport(data: unknown): data is RunReport {
  return validateReport(data).length === 0;
}
