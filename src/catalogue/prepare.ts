/**
 * Turns a parsed OpenAPI document into the form the suite indexes: checked against the OpenAPI schema (unless
 * trusted), every $ref that points nowhere refused by name and place (a key that only looks like one, such as a
 * property called "$ref", is left alone: src/catalogue/name-keys.ts), and every $ref outside schemas (path items,
 * parameters, responses, request bodies, headers, examples) replaced by what it points at. Schema $refs stay:
 * ajv compiles them against the bundle of component schemas, and they may be circular.
 *
 * The $refs are resolved by @apidevtools/json-schema-ref-parser (31 ms to load, 0.7 MB), the structure checked by
 * @seriousme/openapi-schema-validator (70 ms, 0.2 MB); both are loaded only here, and src/catalogue/openapi.ts
 * caches what this returns by the document's digest, so a thread that loads a known document loads neither.
 */
import { UsageError } from '../errors.js';
import { isObj, type JsonObject } from '../json.js';
import { originalPath, protectNames, restoreNames } from './name-keys.js';
import { pathToPointer, pointerToPath, type SourceFile } from './yaml-file.js';

export interface LoadWarning {
  /** JSON Pointer of the place in the document. */
  pointer: string;
  message: string;
}

export interface Prepared {
  doc: JsonObject;
  warnings: LoadWarning[];
}

const at = (doc: unknown, path: ReadonlyArray<string | number>): unknown => path.reduce<unknown>((o, k) => (isObj(o) || Array.isArray(o) ? (o as JsonObject)[k] : undefined), doc);

/** A place under a schema: its $refs are left for ajv (JSON Pointer form, as the ref parser walks it). */
const isSchemaPlace = (pointer: string): boolean => /\/(?:schema|schemas)(?:\/|$)/.test(pointer);

export async function prepareDocument(raw: JsonObject, file: SourceFile, shown: string, opts: { trusted: boolean }): Promise<Prepared> {
  // Keys that are names or data, not references (a property called "$ref", an example holding one), renamed
  // while the resolver and the validator read the document (src/catalogue/name-keys.ts).
  const doc = protectNames(raw);
  const place = (path: ReadonlyArray<string | number>) => ({ pointer: pathToPointer(originalPath(path)) || '/', where: String(file.lineOf(originalPath(path)) ?? '') });
  // The ref parser is told to resolve no other file or URL.
  const external = firstRef(doc, (ref) => typeof ref === 'string' && !ref.startsWith('#'), []);
  if (external) {
    throw new UsageError(`$ref "${String(external.ref)}" at ${place(external.place).pointer} names another file; the suite reads one self-contained document`, {
      file: shown,
      where: place(external.place).where,
      fix: 'bundle the document into one file first, e.g. `npx @redocly/cli bundle <document> -o bundled.yaml`, and use that',
    });
  }
  const { default: RefParser } = await import('@apidevtools/json-schema-ref-parser');
  const local = { resolve: { external: false } } as const;
  // Every $ref followed, schemas too, only to find the ones that point nowhere (circular ones are fine).
  try {
    await new RefParser().dereference(structuredClone(doc), { ...local, continueOnError: true, dereference: { circular: true } });
  } catch (e) {
    const errors = (e as { errors?: { path?: (string | number)[]; message?: string }[] }).errors ?? [{ message: (e as Error).message }];
    const first = errors[0]!;
    const path = first.path ?? [];
    const ref = at(doc, [...path, '$ref']);
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    throw new UsageError(
      typeof ref === 'string' ? `$ref "${ref}" at ${place(path).pointer} points at nothing in the document${more}` : `a $ref cannot be resolved: ${first.message ?? 'unknown error'}${more}`,
      {
        file: shown,
        where: place(path).where,
        fix: 'correct the $ref to name an existing component (#/components/<kind>/<name>), or add the component it names',
      },
    );
  }
  const warnings = opts.trusted ? [] : await structureWarnings(doc, file, shown);
  // Circular non-schema refs (a path item that names itself) stay as they are, and are skipped by the indexing.
  await new RefParser().dereference(doc, { ...local, dereference: { circular: 'ignore', excludedPathMatcher: isSchemaPlace } });
  return { doc: restoreNames(doc), warnings };
}

/** The first $ref (by document order) whose value passes the test, with its place. */
function firstRef(v: unknown, test: (ref: unknown) => boolean, place: (string | number)[]): { ref: unknown; place: (string | number)[] } | undefined {
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) {
      const found = firstRef(x, test, [...place, i]);
      if (found) return found;
    }
  } else if (isObj(v)) {
    if ('$ref' in v && test(v['$ref'])) return { ref: v['$ref'], place };
    for (const [k, x] of Object.entries(v)) {
      const found = firstRef(x, test, [...place, k]);
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
 * missing `description` is only prose, an empty `required` list requires nothing, a path parameter is required
 * whatever it says, a 3.0 bound or type written the 3.1 way means what 3.1 means, `example` next to `examples` is
 * one more example. Anything else is refused at its place, by its line.
 */
async function structureWarnings(doc: JsonObject, file: SourceFile, shown: string): Promise<LoadWarning[]> {
  const validator = new (await import('@seriousme/openapi-schema-validator')).Validator();
  const copy = structuredClone(doc);
  const warnings: LoadWarning[] = [];
  // Each round mends what is harmless and validates again, until nothing harmless is left.
  for (let round = 0; round < 10; round++) {
    const result = await validator.validate(copy);
    if (result.valid) return warnings;
    // A string is the validator's own $ref check, which names no place (ours, above, found every $ref resolvable).
    if (!Array.isArray(result.errors)) throw refusal([placeOfRefError(copy, String(result.errors ?? 'is invalid'))], String(doc['openapi']), file, shown);
    const errors: SchemaError[] = result.errors;
    let mended = false;
    for (const e of errors) {
      const warning = mend(copy, e);
      if (warning) warnings.push(warning);
      mended ||= warning !== undefined;
    }
    if (!mended) throw refusal(errors, String(doc['openapi']), file, shown);
  }
  return warnings;
}

/** A place as the document names it (keys renamed by src/catalogue/name-keys.ts named back). */
const pointerOf = (path: ReadonlyArray<string | number>): string => pathToPointer(originalPath(path));

/** Mends one harmless break in the copy being validated, saying what it was; undefined when it is not harmless. */
function mend(copy: JsonObject, e: SchemaError): LoadWarning | undefined {
  const place = pointerToPath(e.instancePath ?? '');
  const node = at(copy, place);
  const parent = at(copy, place.slice(0, -1));
  const key = place[place.length - 1];
  // 3.0's schema closes objects with additionalProperties, 3.1's with unevaluatedProperties.
  const extra = e.params?.additionalProperty ?? e.params?.unevaluatedProperty;
  if (isObj(node) && extra !== undefined && extra in node) {
    delete node[extra];
    return { pointer: pointerOf([...place, extra]), message: `"${extra}" is not an OpenAPI field, and is ignored (extensions start with "x-")` };
  }
  if (isObj(node) && e.keyword === 'required' && e.params?.missingProperty === 'description' && !('description' in node)) {
    node['description'] = '';
    return { pointer: pointerOf(place), message: 'has no "description", which OpenAPI requires here' };
  }
  // A 3.0 document that writes a bound the 3.1 way means what 3.1 means by it.
  if (isObj(parent) && (key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof node === 'number') {
    delete parent[key];
    return { pointer: pointerOf(place), message: `is a number, OpenAPI 3.1's form (3.0 wants true next to "${key === 'exclusiveMinimum' ? 'minimum' : 'maximum'}"), and is read as 3.1 reads it` };
  }
  // 3.0 wants at least one name in a schema's `required`; an empty list requires nothing, as no list does.
  if (isObj(parent) && key === 'required' && e.keyword === 'minItems' && Array.isArray(node) && node.length === 0) {
    delete parent[key];
    return { pointer: pointerOf(place), message: 'is an empty list, which OpenAPI 3.0 does not allow; it requires nothing, and is read so' };
  }
  // A path parameter is always required, whatever the document says.
  if (isObj(node) && node['in'] === 'path' && e.keyword === 'required' && e.params?.missingProperty === 'required') {
    node['required'] = true;
    return { pointer: pointerOf(place), message: 'is a path parameter without "required: true", which OpenAPI requires; a path parameter is always required, and is read so' };
  }
  if (isObj(parent) && parent['in'] === 'path' && key === 'required' && node === false) {
    parent['required'] = true;
    return { pointer: pointerOf(place), message: 'is false on a path parameter, which OpenAPI does not allow; a path parameter is always required, and is read so' };
  }
  // A 3.0 schema typed the 3.1 way ("null", or a list of types) means what 3.1 means by it.
  if (isObj(parent) && key === 'type' && (node === 'null' || (Array.isArray(node) && node.length > 0 && node.every((t) => JSON_TYPES.has(t)))) && !('$ref' in parent)) {
    delete parent[key];
    return { pointer: pointerOf(place), message: `is ${JSON.stringify(node)}, OpenAPI 3.1's form (3.0 has one type and "nullable: true"), and is read as 3.1 reads it` };
  }
  // A list OpenAPI wants without repeats (tags, required, enum) says the same with each identical item once
  // (Octobat's document lists a tag twice).
  if (Array.isArray(node) && e.keyword === 'uniqueItems') {
    const seen = new Set<string>();
    const once = node.filter((x) => !seen.has(JSON.stringify(x)) && seen.add(JSON.stringify(x)));
    if (once.length === node.length) return undefined;
    node.splice(0, node.length, ...once);
    return { pointer: pointerOf(place), message: 'repeats identical items, which OpenAPI does not allow; each is kept once' };
  }
  // OpenAPI allows one of the two; each still says what an example looks like.
  if (isObj(node) && e.keyword === 'not' && 'example' in node && 'examples' in node) {
    delete node['example'];
    return { pointer: pointerOf(place), message: 'has both "example" and "examples", which OpenAPI does not allow; both are kept as examples' };
  }
  return undefined;
}

const JSON_TYPES = new Set<unknown>(['null', 'boolean', 'object', 'array', 'number', 'integer', 'string']);

/**
 * The validator's own complaint about a reference keyword, placed: "Can't resolve X" at the first $ref that names X,
 * "$id : 'X' defined more than once at #/..." where it says.
 */
function placeOfRefError(doc: JsonObject, message: string): SchemaError {
  const at = /defined more than once at '?#([^']*)'?$/.exec(message)?.[1];
  if (at !== undefined) return { message, instancePath: at };
  const target = /^Can't resolve (.*?)(?:, only internal refs are supported\.)?$/.exec(message)?.[1];
  // A $ref inside a schema with an $id is named with that $id before it; one that is not a string, as String() spells it.
  const found = target === undefined ? undefined : firstRef(doc, (ref) => target.endsWith(typeof ref === 'string' ? safeDecode(ref) : String(ref)), []);
  return { message, ...(found ? { instancePath: pathToPointer(found.place) } : {}) };
}

const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

function refusal(errors: SchemaError[], version: string, file: SourceFile, shown: string): UsageError {
  // The schema validator reports every failed oneOf branch; the deepest error is the useful one.
  const first = [...errors].sort((a, b) => (b.instancePath?.length ?? 0) - (a.instancePath?.length ?? 0))[0];
  const where = originalPath(pointerToPath(first?.instancePath ?? ''));
  const missing = first?.keyword === 'required' ? ` ("${first.params?.missingProperty}")` : '';
  return new UsageError(`not a valid OpenAPI ${version} document: ${pathToPointer(where) || '/'} ${first?.message ?? 'is invalid'}${missing}`, {
    file: shown,
    where: String(file.lineOf(where) ?? ''),
    fix: 'correct the document there; a linter such as `npx @redocly/cli lint` shows every problem',
  });
}
