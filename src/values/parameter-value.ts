/**
 * A value for a parameter from the document when the target has given none: the document's own example, default,
 * schema example or first enum value (each only if valid for the parameter's schema), else one made from the schema
 * (src/values/generate.ts). Dates a reader of a statement or history would ask for span the last thirty days.
 */
import type { Parameter, SpecDocument } from '../catalogue/openapi.js';
import { isObj } from '../json.js';
import type { JsonSchema } from '../catalogue/json-schema.js';
import { generateValid, inlineForeignRefs } from './generate.js';
import { deref } from './schema-walk.js';

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

/** The parameter's value from the document (seeded where it is generated), or undefined when none is valid. */
export function documentValue(spec: SpecDocument, p: Pick<Parameter, 'name' | 'example' | 'schema'> & { in?: Parameter['in'] }, seed: number): DocumentValue | undefined {
  const inlined = p.schema === undefined ? undefined : (inlineForeignRefs(spec, p.schema) as JsonSchema);
  // A path segment cannot be empty: `/beneficial-owners/` is another path (or none).
  const own = p.in === 'path' && inlined !== undefined ? { allOf: [inlined], not: { const: '' } } : inlined;
  const schema = deref(spec, inlined) ?? {};
  let validate: ((v: unknown) => boolean) | undefined;
  try {
    validate = own === undefined ? () => true : (v) => spec.validator(own)(v) === true;
    validate('');
  } catch {
    // A schema no validator compiles: the document's own values are taken as they are.
    validate = () => true;
  }
  const valid = validate;
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
