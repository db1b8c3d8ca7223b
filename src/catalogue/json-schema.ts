import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type addFormatsModule from 'ajv-formats';
import { linearPattern } from './linear-pattern.js';

export type JsonSchema = Record<string, unknown> | boolean;

type AjvModule = typeof import('ajv/dist/2020.js');
let ajvModules: { ajv: AjvModule; addFormats: typeof addFormatsModule.default } | undefined;

/**
 * ajv and ajv-formats, loaded on first use (both are CommonJS, so synchronously). A thread that validates only
 * with the build's compiled validators (every thread of a run against the reference profile) never needs them,
 * and loading them cost each thread ~30 ms of its start-up.
 */
function ajvModule(): NonNullable<typeof ajvModules> {
  if (!ajvModules) {
    const require = createRequire(import.meta.url);
    // ajv-formats' plugin is its module's `default` member.
    ajvModules = { ajv: require('ajv/dist/2020.js') as AjvModule, addFormats: (require('ajv-formats') as typeof addFormatsModule).default };
  }
  return ajvModules;
}

/**
 * One ajv instance (JSON Schema 2020-12, the dialect of OpenAPI 3.1) with formats.
 * Not strict: a vendor's document may carry annotation keywords (discriminator, xml, x-*) that are not validation.
 * The reference profile is linted in strict mode by its own test.
 * `documentPatterns`: the schemas are a document's the suite does not own, so their patterns run on the linear-time
 * engine (linear-pattern.ts); it finds a pattern in the document for the message of one that engine cannot run.
 */
export function createAjv(opts: { strict?: boolean; standalone?: boolean; documentPatterns?: (pattern: string) => readonly string[] } = {}): Ajv2020 {
  const { ajv: { Ajv2020, _ }, addFormats } = ajvModule();
  const ajv = new Ajv2020({
    // Standalone: keep each validator's source, formats taken from ajv-formats at load (src/catalogue/precompiled.ts).
    // A vendor's document: its patterns on the linear-time engine. The suite's own schemas: ECMAScript's, where
    // patterns that are no valid Unicode regular expression are read as JavaScript reads them without the flag.
    // Compiled in the run (a vendor's document): without ajv's code optimisation, which cost more than it saved. A
    // run validates most schemas a few times and compiles each once (Stripe's response schemas: 0.66x the CPU to
    // compile, 1.1-1.2x to validate; bench/README.md, "A large document").
    code: opts.standalone
      ? { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` }
      : { regExp: opts.documentPatterns ? linearRegExp(opts.documentPatterns) : lenientRegExp, optimize: false },
    strict: opts.strict ?? false,
    // Not strict, an unknown format (a vendor's "cognito_id") is only an annotation; ajv would say so on the
    // console at every schema that uses it.
    ...(opts.strict ? {} : { logger: false as const }),
    allErrors: true,
    validateFormats: true,
    // The spec's own examples and sandbox bodies are validated as given: never coerce or default.
    coerceTypes: false,
    useDefaults: false,
    // OpenAPI 3.1 annotation keywords that carry no validation.
    keywords: opts.strict ? ['discriminator', 'xml', 'externalDocs', 'example'] : [],
  });
  addFormats(ajv);
  return ajv;
}

/**
 * ajv's pattern engine: ECMAScript with the Unicode flag, as JSON Schema says; a pattern that is invalid only under
 * that flag (Dwolla's `[...\\~...]`: an escape Unicode mode refuses) is compiled without it, where it means what its
 * author meant. ajv reads `code` only when it writes a validator's source (the build's standalone validators,
 * which use its default engine).
 */
const lenientRegExp = Object.assign(
  (pattern: string, flags: string): RegExp => {
    try {
      return new RegExp(pattern, flags);
    } catch (e) {
      if (!flags.includes('u')) throw e;
      return new RegExp(pattern, flags.replace('u', ''));
    }
  },
  { code: 'new RegExp' },
);

/** ajv's pattern engine for a document's schemas: RE2's linear time. ajv reads `code` only when it writes a validator's source, which it never does with this engine. */
const linearRegExp = (where: (pattern: string) => readonly string[]) => Object.assign((pattern: string) => linearPattern(pattern, where), { code: 'linearPattern' });

export interface SchemaProblem {
  /** JSON Pointer into the validated value. */
  pointer: string;
  message: string;
}

export function describeErrors(errors: ErrorObject[] | null | undefined): SchemaProblem[] {
  if (!errors) return [];
  const out: SchemaProblem[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    // oneOf reports every failed branch and then itself; the branch detail is noise to a reader.
    let pointer = e.instancePath || '';
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties') {
      const extra = (e.params as { additionalProperty?: string }).additionalProperty;
      pointer = `${pointer}/${extra}`;
      message = 'is not allowed here (unknown property)';
    } else if (e.keyword === 'required') {
      const missing = (e.params as { missingProperty?: string }).missingProperty;
      pointer = `${pointer}/${missing}`;
      message = 'is required';
    } else if (e.keyword === 'enum') {
      message = `must be one of ${JSON.stringify((e.params as { allowedValues?: unknown[] }).allowedValues)}`;
    }
    const key = `${pointer} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pointer: pointer || '/', message });
  }
  return out;
}

export type { ValidateFunction };

/** Keywords whose value is one schema (where a document's schema walkers go on). */
export const SUBSCHEMA = new Set(['items', 'additionalItems', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema']);
/** Keywords whose value is a list of schemas (`items` too, in draft 4's tuple form). */
export const SUBSCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']);
/** Keywords whose value maps names to schemas (draft 4's `dependencies`: or to lists of names): any string is a name, "$ref" and "nullable" too. */
export const SUBSCHEMA_MAP = new Set(['properties', 'patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions']);
/** Keywords whose value is data (an example, a default): a `$ref` in it is a member, never a reference. */
export const DATA_KEYWORDS = new Set(['example', 'examples', 'default', 'enum', 'const']);
