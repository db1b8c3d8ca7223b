/**
 * A value for a parameter from the document when the target has given none: the document's own example, default,
 * schema example or first enum value (each only if valid for the parameter's schema), else one made from the schema
 * (src/values/generate.ts). Dates a reader of a statement or history would ask for span the last thirty days.
 */
import type { Parameter, SpecDocument } from '../catalogue/openapi.js';
import { isObj } from '../json.js';
import type { JsonSchema } from '../catalogue/json-schema.js';
import { generateValid, inlineForeignRefs } from './generate.js';
import { deref } from '../catalogue/schema-walker.js';
import { UnsupportedPattern } from '../catalogue/linear-pattern.js';

export type Plain = string | number | boolean;

export interface DocumentValue {
  value: Plain;
  origin: 'example' | 'generated';
}

const plain = (v: unknown): v is Plain => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** `since` 30 days back, `until` today: a window the target has data in. */
function dateFor(name: string, format: unknown): string | undefined {
  if (format !== 'date' && format !== 'date-time') return undefined;
  const back = /(^|_)(until|before|to|end)(_|[A-Z]|$)|[a-z](Until|Before|To|End)([A-Z_]|$)/.test(name) ? 0 : 30;
  const iso = new Date(Date.now() - back * 86_400_000).toISOString();
  return format === 'date' ? iso.slice(0, 10) : iso;
}

type ParameterLike = Pick<Parameter, 'name' | 'example' | 'schema'> & { in?: Parameter['in'] };

/**
 * The parameter's schema as its values are checked: never empty, wherever it goes. A path segment cannot be
 * (`/beneficial-owners/` is another path); an empty header is an absent one to most servers (Prism answers a
 * required `x-jws-signature: ` with 400, missing); a query parameter may be empty only where the document says
 * `allowEmptyValue`, which no value of ours needs.
 */
function ownSchema(spec: SpecDocument, p: ParameterLike): { inlined: JsonSchema | undefined; own: JsonSchema | undefined } {
  const inlined = inlinedOf(spec, p.schema);
  return { inlined, own: inlined !== undefined ? { allOf: [inlined], not: { const: '' } } : inlined };
}

/**
 * The parameter's schema with its foreign references inlined, made once per schema of the document: the same
 * object each time, so its validator is found by identity, not by its text again.
 */
const inlinedSchemas = new WeakMap<object, JsonSchema>();
function inlinedOf(spec: SpecDocument, schema: JsonSchema | undefined): JsonSchema | undefined {
  if (schema === undefined || typeof schema !== 'object') return schema;
  let inlined = inlinedSchemas.get(schema);
  if (inlined === undefined) inlinedSchemas.set(schema, (inlined = inlineForeignRefs(spec, schema) as JsonSchema));
  return inlined;
}

/**
 * Whether a value is valid for the parameter's own schema (`ownSchema`: the schema, never empty; any value when the
 * schema cannot be compiled). The schema's validator is the one the document declares, so the build's compiled
 * validators serve the reference profile's: its never-empty form, compiled anew, cost each suite file's thread about
 * a second of ajv compiling in an embedded run. The empty text is told apart here instead (`not: {const: ''}`).
 */
function validatorOf(spec: SpecDocument, inlined: JsonSchema | undefined): (v: unknown) => boolean {
  if (inlined === undefined) return () => true;
  let fn: ReturnType<SpecDocument['validator']>;
  try {
    fn = spec.validator(inlined);
  } catch {
    // A schema no validator compiles: the document's own values are taken as they are.
    return () => true;
  }
  return (v) => {
    if (v === '') return false;
    try {
      return fn(v) === true;
    } catch (e) {
      // Likewise a pattern the linear-time engine cannot run (a value generated for it is refused, with that cause).
      if (e instanceof UnsupportedPattern) return true;
      throw e;
    }
  };
}

/** Whether a value as it travels in a path or query (text) is valid for the parameter: as it is, or as the number it spells. */
export function validForParameter(spec: SpecDocument, p: ParameterLike, value: string): boolean {
  const valid = validatorOf(spec, inlinedOf(spec, p.schema));
  return valid(value) || (value.trim() !== '' && !Number.isNaN(Number(value)) && valid(Number(value)));
}

/** The parameter's value from the document (seeded where it is generated), or undefined when none is valid. */
export function documentValue(spec: SpecDocument, p: ParameterLike, seed: number): DocumentValue | undefined {
  const { inlined, own } = ownSchema(spec, p);
  const schema = deref(spec, inlined) ?? {};
  const valid = validatorOf(spec, inlined);
  const documented = [p.example, schema['default'], schema['example'], Array.isArray(schema['examples']) ? schema['examples'][0] : undefined, Array.isArray(schema['enum']) ? schema['enum'][0] : undefined];
  for (const v of documented) if (plain(v) && valid(v)) return { value: v, origin: 'example' };
  // An array parameter (`?ids=a&ids=b`) is sent as one value of its items: what a form-exploded query carries.
  if (schema['type'] === 'array' && schema['items'] !== undefined) return documentValue(spec, { ...p, example: Array.isArray(p.example) ? p.example[0] : undefined, schema: schema['items'] as JsonSchema }, seed);
  const date = dateFor(p.name, schema['format']);
  if (date !== undefined && valid(date)) return { value: date, origin: 'generated' };
  const made = generateValid(spec, own, seed);
  if (made.ok && plain(made.value)) return { value: made.value, origin: 'generated' };
  // An object parameter (rare in a path or header): its JSON, as a plain value.
  if (made.ok && isObj(made.value)) return { value: JSON.stringify(made.value), origin: 'generated' };
  return undefined;
}
