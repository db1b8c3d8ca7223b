/**
 * Turns a parsed OpenAPI document into the form the suite indexes: checked against the OpenAPI schema (unless
 * trusted), every $ref that points nowhere refused by name and place, and every $ref outside schemas (path items,
 * parameters, responses, request bodies, headers, examples) replaced by what it points at. Schema $refs stay:
 * ajv compiles them against the bundle of component schemas, and they may be circular.
 *
 * The $refs are resolved by @apidevtools/json-schema-ref-parser (31 ms to load, 0.7 MB), the structure checked by
 * @seriousme/openapi-schema-validator (70 ms, 0.2 MB); both are loaded only here, and src/catalogue/openapi.ts
 * caches what this returns by the document's digest, so a thread that loads a known document loads neither.
 */
import { UsageError } from '../errors.js';
import { isObj, type Json } from '../json.js';
import { pathToPointer, pointerToPath, type SourceFile } from './yaml-file.js';

export interface LoadWarning {
  /** JSON Pointer of the place in the document. */
  pointer: string;
  message: string;
}

export interface Prepared {
  doc: Json;
  warnings: LoadWarning[];
}

const at = (doc: unknown, path: ReadonlyArray<string | number>): unknown => path.reduce<unknown>((o, k) => (isObj(o) || Array.isArray(o) ? (o as Json)[k] : undefined), doc);

/** A place under a schema: its $refs are left for ajv (JSON Pointer form, as the ref parser walks it). */
const isSchemaPlace = (pointer: string): boolean => /\/(?:schema|schemas)(?:\/|$)/.test(pointer);

export async function prepareDocument(raw: Json, file: SourceFile, shown: string, opts: { trusted: boolean }): Promise<Prepared> {
  const external = firstExternalRef(raw, []);
  if (external) {
    throw new UsageError(`$ref "${external.ref}" at ${pathToPointer(external.place)} names another file; the suite reads one self-contained document`, {
      file: shown,
      where: String(file.lineOf(external.place) ?? ''),
      fix: 'bundle the document into one file first, e.g. `npx @redocly/cli bundle <document> -o bundled.yaml`, and use that',
    });
  }
  const { default: RefParser } = await import('@apidevtools/json-schema-ref-parser');
  const local = { resolve: { external: false } } as const;
  // Every $ref followed, schemas too, only to find the ones that point nowhere (circular ones are fine).
  try {
    await new RefParser().dereference(structuredClone(raw), { ...local, continueOnError: true, dereference: { circular: true } });
  } catch (e) {
    const errors = (e as { errors?: { path?: (string | number)[]; message?: string }[] }).errors ?? [{ message: (e as Error).message }];
    const first = errors[0]!;
    const place = first.path ?? [];
    const ref = at(raw, [...place, '$ref']);
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    throw new UsageError(
      typeof ref === 'string' ? `$ref "${ref}" at ${pathToPointer(place) || '/'} points at nothing in the document${more}` : `a $ref cannot be resolved: ${first.message ?? 'unknown error'}${more}`,
      {
        file: shown,
        where: String(file.lineOf(place) ?? ''),
        fix: 'correct the $ref to name an existing component (#/components/<kind>/<name>), or add the component it names',
      },
    );
  }
  const warnings = opts.trusted ? [] : await structureWarnings(raw, file, shown);
  const doc = structuredClone(raw);
  // Circular non-schema refs (a path item that names itself) stay as they are, and are skipped by the indexing.
  await new RefParser().dereference(doc, { ...local, dereference: { circular: 'ignore', excludedPathMatcher: isSchemaPlace } });
  return { doc, warnings };
}

/** The first $ref to another file or a URL, by its place (the ref parser is told to resolve none). */
function firstExternalRef(v: unknown, place: (string | number)[]): { ref: string; place: (string | number)[] } | undefined {
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) {
      const found = firstExternalRef(x, [...place, i]);
      if (found) return found;
    }
  } else if (isObj(v)) {
    if (typeof v['$ref'] === 'string' && !v['$ref'].startsWith('#')) return { ref: v['$ref'], place };
    for (const [k, x] of Object.entries(v)) {
      const found = firstExternalRef(x, [...place, k]);
      if (found) return found;
    }
  }
  return undefined;
}

interface SchemaError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: { additionalProperty?: string; unevaluatedProperty?: string; missingProperty?: string };
}

/**
 * Checks the document against the OpenAPI schema. What does not change its meaning is a warning, as Prism and
 * Redocly treat it: a key OpenAPI does not define (a vendor's `_x-internal`, a misspelt extension) is ignored, a
 * missing `description` is only prose. Anything else is refused at its place, by its line.
 */
async function structureWarnings(raw: Json, file: SourceFile, shown: string): Promise<LoadWarning[]> {
  const validator = new (await import('@seriousme/openapi-schema-validator')).Validator();
  const copy = structuredClone(raw);
  const warnings: LoadWarning[] = [];
  // Each round mends what is harmless and validates again, until nothing harmless is left.
  for (let round = 0; round < 10; round++) {
    const result = await validator.validate(copy);
    if (result.valid) return warnings;
    const errors: SchemaError[] = Array.isArray(result.errors) ? result.errors : [{ message: String(result.errors ?? 'is invalid') }];
    let mended = false;
    for (const e of errors) {
      const warning = mend(copy, e);
      if (warning) warnings.push(warning);
      mended ||= warning !== undefined;
    }
    if (!mended) throw refusal(errors, String(raw['openapi']), file, shown);
  }
  return warnings;
}

/** Mends one harmless break in the copy being validated, saying what it was; undefined when it is not harmless. */
function mend(copy: Json, e: SchemaError): LoadWarning | undefined {
  const place = pointerToPath(e.instancePath ?? '');
  const node = at(copy, place);
  const parent = at(copy, place.slice(0, -1));
  const key = place[place.length - 1];
  // 3.0's schema closes objects with additionalProperties, 3.1's with unevaluatedProperties.
  const extra = e.params?.additionalProperty ?? e.params?.unevaluatedProperty;
  if (isObj(node) && extra !== undefined && extra in node) {
    delete node[extra];
    return { pointer: pathToPointer([...place, extra]), message: `"${extra}" is not an OpenAPI field, and is ignored (extensions start with "x-")` };
  }
  if (isObj(node) && e.keyword === 'required' && e.params?.missingProperty === 'description' && !('description' in node)) {
    node['description'] = '';
    return { pointer: pathToPointer(place), message: 'has no "description", which OpenAPI requires here' };
  }
  // A 3.0 document that writes a bound the 3.1 way means what 3.1 means by it.
  if (isObj(parent) && (key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof node === 'number') {
    delete parent[key];
    return { pointer: pathToPointer(place), message: `is a number, OpenAPI 3.1's form (3.0 wants true next to "${key === 'exclusiveMinimum' ? 'minimum' : 'maximum'}"), and is read as 3.1 reads it` };
  }
  return undefined;
}

function refusal(errors: SchemaError[], version: string, file: SourceFile, shown: string): UsageError {
  // The schema validator reports every failed oneOf branch; the deepest error is the useful one.
  const first = [...errors].sort((a, b) => (b.instancePath?.length ?? 0) - (a.instancePath?.length ?? 0))[0];
  const where = pointerToPath(first?.instancePath ?? '');
  const missing = first?.keyword === 'required' ? ` ("${first.params?.missingProperty}")` : '';
  return new UsageError(`not a valid OpenAPI ${version} document: ${pathToPointer(where) || '/'} ${first?.message ?? 'is invalid'}${missing}`, {
    file: shown,
    where: String(file.lineOf(where) ?? ''),
    fix: 'correct the document there; a linter such as `npx @redocly/cli lint` shows every problem',
  });
}
