/**
 * A document's schemas as the validators read them: OpenAPI 3.0's dialect (nullable, exclusive bounds as booleans)
 * as JSON Schema 2020-12, and component references in the one bundle every validator compiles against.
 */
import { SUBSCHEMA, SUBSCHEMA_LIST, SUBSCHEMA_MAP } from './json-schema.js';
import type { LoadWarning } from './prepare.js';
import { pointerToPath } from './yaml-file.js';
import { isObj, type JsonObject } from '../json.js';

/** The bundle's id: every component schema is `${BUNDLE_ID}#/$defs/<name>` to a validator. */
export const BUNDLE_ID = 'urn:fsapi:spec';

/** A component reference in the validators' bundle form ("#/components/schemas/X" -> "urn:fsapi:spec#/$defs/X"). */
export function bundleRef(ref: string): string {
  return ref.startsWith('#/components/schemas/') ? `${BUNDLE_ID}#/$defs/${ref.slice('#/components/schemas/'.length)}` : ref;
}

/** A reference as the document writes it: the loader's bundle form ("urn:fsapi:spec#/$defs/X") back to #/components/schemas/X. */
export function documentRef(ref: string): string {
  return ref.startsWith(`${BUNDLE_ID}#/$defs/`) ? `#/components/schemas/${ref.slice(BUNDLE_ID.length + '#/$defs/'.length)}` : ref;
}

/**
 * Makes local component refs absolute, so any schema of the document compiles against the bundle. A reference to a
 * schema elsewhere in the document (`#/components/parameters/companyId/schema`, which Prism follows) is replaced by
 * what it names: the bundle holds component schemas only, and such a reference would fail every schema that uses it.
 * Walks only where schemas are: an example or default holding a "$ref" member is data, and stays as written.
 */
export function rewriteRefs(v: unknown, raw?: Record<string, unknown>, is30 = false, depth = 0): unknown {
  if (Array.isArray(v)) return v.map((x) => rewriteRefs(x, raw, is30, depth));
  if (!isObj(v)) return v;
  const ref = v['$ref'];
  if (raw && typeof ref === 'string' && ref.startsWith('#/') && !ref.startsWith('#/components/schemas/') && depth < 8) {
    const target = pointerToPath(ref.slice(1)).reduce<unknown>((o, k) => (isObj(o) ? o[k] : undefined), raw);
    if (isObj(target) || typeof target === 'boolean') {
      const { $ref: _named, ...siblings } = v;
      const inlined = rewriteRefs(as31(target, is30), raw, is30, depth + 1);
      return isObj(inlined) ? { ...inlined, ...(rewriteRefs(siblings, raw, is30, depth) as JsonObject) } : inlined;
    }
  }
  const out: JsonObject = {};
  for (const [k, val] of Object.entries(v)) {
    if (k === '$ref' && typeof val === 'string' && val.startsWith('#/components/schemas/')) out[k] = `${BUNDLE_ID}#/$defs/${val.slice('#/components/schemas/'.length)}`;
    else out[k] = mapSubschemas(k, val, (x) => rewriteRefs(x, raw, is30, depth));
  }
  return out;
}

/** A keyword's value with each schema in it (one, a list or a map of them) passed through `f`; data and other keywords as they are. */
export function mapSubschemas(keyword: string, value: unknown, f: (schema: unknown) => unknown): unknown {
  if (SUBSCHEMA.has(keyword) && isObj(value)) return f(value);
  if (SUBSCHEMA_LIST.has(keyword) && Array.isArray(value)) return value.map(f);
  if (SUBSCHEMA_MAP.has(keyword) && isObj(value)) return Object.fromEntries(Object.entries(value).map(([n, s]) => [n, f(s)]));
  return value;
}

const BOUNDS = [
  ['exclusiveMinimum', 'minimum'],
  ['exclusiveMaximum', 'maximum'],
] as const;

/**
 * An OpenAPI 3.0 schema (a JSON Schema draft 4 dialect) as the JSON Schema 2020-12 of OpenAPI 3.1: `nullable: true`
 * becomes a null type (or enum value, or alternative), boolean exclusive bounds become numeric ones, `example`
 * becomes `examples`. Walks only where schemas are, so a property named "nullable" stays a property.
 */
export function from30(v: unknown): unknown {
  if (!isObj(v)) return v;
  const out: JsonObject = {};
  for (const [k, val] of Object.entries(v)) {
    if (k === 'example') out['examples'] ??= [val];
    else if (k !== 'nullable') out[k] = mapSubschemas(k, val, from30);
  }
  return withNullable(v, boundsAs31(out));
}

/**
 * A 3.1 document's schema as ajv compiles it: 3.0's `nullable` left in it (Codat's) is read as 3.0 reads it, as
 * Prism does; ajv would refuse a `nullable` without `type` and the schema would compile nowhere. Everything else
 * is already 2020-12. The load warns where it found one (nullableIn31).
 */
function nullable31(v: unknown): unknown {
  if (!isObj(v)) return v;
  const out: JsonObject = {};
  for (const [k, val] of Object.entries(v)) if (k !== 'nullable') out[k] = mapSubschemas(k, val, nullable31);
  return withNullable(v, out);
}

export const as31 = (s: unknown, is30: boolean): unknown => (is30 ? from30(s) : nullable31(s));

/** Where a 3.1 document's schemas still say 3.0's `nullable`: a warning for the first place, with the count. */
export function nullableIn31(raw: JsonObject): LoadWarning[] {
  const places: string[] = [];
  const walk = (v: unknown, pointer: string): void => {
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${pointer}/${i}`));
    if (!isObj(v)) return;
    if (typeof v['nullable'] === 'boolean') places.push(pointer);
    for (const [k, x] of Object.entries(v)) if (k !== 'example' && k !== 'examples' && !k.startsWith('x-')) walk(x, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  };
  walk(raw, '');
  if (places.length === 0) return [];
  const more = places.length > 1 ? ` (and ${places.length - 1} more places)` : '';
  return [{ pointer: places[0]!, message: `"nullable" is OpenAPI 3.0's keyword, not 3.1's (a 3.1 schema allows null with type: [..., 'null']); it is read as 3.0 reads it: null allowed${more}` }];
}

function boundsAs31(out: JsonObject): JsonObject {
  for (const [exclusive, bound] of BOUNDS) {
    if (typeof out[exclusive] !== 'boolean') continue;
    if (out[exclusive] === true && typeof out[bound] === 'number') {
      out[exclusive] = out[bound];
      delete out[bound];
    } else {
      delete out[exclusive];
    }
  }
  return out;
}

/** `nullable: true` of the source schema applied to its converted form: a null type, enum value or alternative. */
function withNullable(v: JsonObject, out: JsonObject): JsonObject {
  if (v['nullable'] === true) {
    if (Array.isArray(out['enum']) && !out['enum'].includes(null)) out['enum'] = [...out['enum'], null];
    if (typeof out['type'] === 'string') out['type'] = [out['type'], 'null'];
    else if (!('type' in out)) return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}
