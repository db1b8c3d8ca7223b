/**
 * The validators phase of loading a document (openapi.ts): its schemas compiled against one bundle of its
 * components, or taken from the build's precompiled ones for the reference profile.
 */
import { createRequire } from 'node:module';
import { UsageError } from '../errors.js';
import { matchesLinear, patternLocator, UnsupportedPattern } from './linear-pattern.js';
import { createAjv, describeErrors, type JsonSchema, type ValidateFunction } from './json-schema.js';
import { loadPrecompiled, schemaKey } from './precompiled.js';
import { cachedDerivation, pointerToPath } from './yaml-file.js';
import { isObj, type JsonObject } from '../json.js';
import { as31, BUNDLE_ID, documentRef, mapSubschemas, rewriteRefs } from './as-json-schema.js';
import type { LoadedDocument, LoadOptions, Operation, ResponseSpec, SpecDocument } from './document-types.js';
import { requestMediaOf } from './media.js';

type Validators = Pick<SpecDocument, 'schemaAt' | 'validator' | 'matchesPattern' | 'standaloneSource' | 'responseFor' | 'validateResponse' | 'validateRequestBody'>;

/** Validators: the document's schemas compiled on first use against one bundle of its components (or the build's). */
export async function validatorsOf(doc: LoadedDocument, operations: Operation[], opts: LoadOptions): Promise<Validators> {
  const ajv = await documentAjv(doc, opts);
  // The build's compiled validators serve a trusted document (src/catalogue/precompiled.ts).
  const precompiled = doc.trusted && !opts.standalone ? loadPrecompiled(doc.file.sha256) : undefined;
  const validator = validatorCache(ajv, precompiled, doc.shown);
  const responseFor = (op: Operation, status: number): ResponseSpec | undefined =>
    op.responses.find((r) => r.status === String(status)) ??
    op.responses.find((r) => r.status === `${String(status)[0]}XX`) ??
    op.responses.find((r) => r.status === 'DEFAULT');
  return {
    schemaAt: schemaLocator(doc),
    validator,
    // The reference profile's patterns are the suite's own: ECMAScript's engine, as its compiled validators.
    matchesPattern: doc.trusted ? matchesNative : matchesLinear,
    ...(opts.standalone ? { standaloneSource: (extra: readonly unknown[] = []) => standaloneSource(operations, ajv(), extra) } : {}),
    responseFor,
    validateResponse(op, status, contentType, body) {
      const spec = responseFor(op, status);
      if (!spec) return { kind: 'undocumented-status', documented: op.responses.map((r) => r.status) };
      if (spec.content.length === 0) return { kind: 'ok' };
      const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
      const match =
        spec.content.find((c) => c.mediaType === media) ??
        spec.content.find((c) => c.mediaType.endsWith('/*') && media.startsWith(c.mediaType.slice(0, -1))) ??
        spec.content.find((c) => c.mediaType === '*/*');
      if (!match) return { kind: 'undocumented-media-type', mediaType: media || '(none)', documented: spec.content.map((c) => c.mediaType) };
      if (match.schema === undefined) return { kind: 'ok' };
      const fn = validator(match.schema);
      return naming(`validating ${op.operationId}'s ${status} answer`, () => (fn(body) ? { kind: 'ok' } : { kind: 'schema', problems: describeErrors(fn.errors) }));
    },
    validateRequestBody(op, body, mediaType) {
      const media = mediaType ? op.requestBody?.content.find((c) => c.mediaType === mediaType) : requestMediaOf(op);
      if (!media?.schema) return [];
      const fn = validator(media.schema);
      return naming(`validating a request body of ${op.operationId}`, () => (fn(body) ? [] : describeErrors(fn.errors)));
    },
  };
}

type DocumentAjv = () => ReturnType<typeof createAjv>;

/** The document's ajv, holding all its component schemas as one bundle, made on first use. */
async function documentAjv(doc: LoadedDocument, opts: LoadOptions): Promise<DocumentAjv> {
  const { raw, is30, file, shown, trusted, schemas } = doc;
  const patternsAt = patternLocator(raw);
  const makeAjv = (checkSchemas: boolean) => {
    // A vendor's patterns run in linear time; the reference profile's are the suite's own (its amounts use a lookahead).
    const ajv = createAjv({ standalone: opts.standalone ?? false, ...(trusted ? {} : { documentPatterns: patternsAt }) });
    // All component schemas as one bundle; every $ref into them becomes absolute so inline schemas compile on their own.
    const bundle = { $id: BUNDLE_ID, $defs: Object.fromEntries(Object.entries(schemas).map(([name, s]: [string, unknown]) => [name, rewriteRefs(as31(s, is30), raw, is30)])) };
    try {
      ajv.addSchema(bundle as object, undefined, undefined, checkSchemas);
      addComponentRoots(ajv, bundle.$defs);
    } catch (e) {
      throw new UsageError(`the component schemas cannot be compiled: ${(e as Error).message}`, {
        file: shown,
        where: String(file.lineOf(['components', 'schemas']) ?? ''),
        fix: 'make every schema under components.schemas valid JSON Schema (2020-12 for OpenAPI 3.1)',
      });
    }
    return ajv;
  };
  // The component schemas are checked against JSON Schema's meta-schema once per document content, so a schema
  // that cannot compile is reported on load; after that (every worker of a run, every later run) they are known
  // good, and compiling the meta-schema again cost each thread 0.15-0.3 s. A trusted document's are proven by its
  // own tests. With the build's validators, ajv is made only if one is ever missing (none is for the reference
  // profile), so it never loads in such a run's threads.
  let ajvInstance: ReturnType<typeof makeAjv> | undefined;
  if (!trusted) {
    await cachedDerivation(file.sha256, 'component-schemas-checked-1', async () => ((ajvInstance = makeAjv(true)), true as const), (v): v is true => v === true);
  }
  return () => (ajvInstance ??= makeAjv(false));
}

/** A component name that stands in a reference as written (no escaping for ajv's URI resolution to normalise). */
const PLAIN_NAME = /^[A-Za-z0-9._-]+$/;
/** Keywords that make a schema a resource or a scope of its own. */
const SCOPE_KEYWORDS = new Set(['$id', '$anchor', '$dynamicAnchor', '$dynamicRef', '$recursiveAnchor', '$recursiveRef']);

/**
 * Whether a component must stay reached only through the bundle: it declares a resource or scope of its own, or
 * holds a reference not yet absolute (past rewriteRefs' depth), which resolves against the bundle's base. Walks the
 * schema's keywords only, as ajv does: a "$ref" in an annotation (Stripe's `x-expansionResources`) is data.
 */
function bundleOnly(schema: unknown): boolean {
  if (!isObj(schema)) return false;
  let found = false;
  for (const [k, v] of Object.entries(schema)) {
    if (SCOPE_KEYWORDS.has(k) || (k === '$ref' && (typeof v !== 'string' || !v.startsWith(`${BUNDLE_ID}#`)))) return true;
    mapSubschemas(k, v, (sub) => (found ||= bundleOnly(sub), sub));
    if (found) return true;
  }
  return false;
}

/**
 * Each component also added as a root schema under its bundle reference ("urn:fsapi:spec#/$defs/X"), so ajv compiles
 * it once for the document. Reached only through the bundle, a component is a fragment, and ajv keeps the fragments
 * it compiled per root schema: it compiled a component anew for every response schema that referenced it (Stripe's
 * 199 response schemas of its first 400 operations took 1.07 s, a bare reference to a component already compiled
 * in another's closure 13 ms more). ajv looks a reference up among its root schemas before it walks the bundle, so
 * every reference to X, from any schema, finds the one compiled root. The root is X with an `$id` of its own
 * (urn:fsapi:component:X): its references are all absolute, and one into the bundle (to a component that is not a
 * root, or to a member of one) still resolves in the bundle.
 */
function addComponentRoots(ajv: ReturnType<typeof createAjv>, defs: Record<string, unknown>): void {
  for (const [name, schema] of Object.entries(defs)) {
    if (!PLAIN_NAME.test(name) || !isObj(schema) || bundleOnly(schema)) continue;
    try {
      ajv.addSchema({ ...schema, $id: `urn:fsapi:component:${name}` }, `${BUNDLE_ID}#/$defs/${name}`, undefined, false);
    } catch {
      // Its id is taken (a document's own `$id` spelled as ours): the bundle still resolves it, as before.
    }
  }
}

/** A schema's validator: the build's precompiled one, a component's own, or compiled; each compiled once. */
function validatorCache(ajv: DocumentAjv, precompiled: ReturnType<typeof loadPrecompiled>, shown: string): (schema: JsonSchema) => ValidateFunction {
  const compiled = new WeakMap<object, ValidateFunction>();
  // Schemas that validate alike share one validator: the prepared document is JSON, so a component used in many
  // places (a response, a header) is an equal copy at each, and members that differ only in their annotations (a
  // description) are one schema to a validator.
  const byText = new Map<string, ValidateFunction>();
  return (schema) => {
    const known = typeof schema === 'object' ? compiled.get(schema) : undefined;
    if (known) return known;
    const validated = withoutAnnotations(schema) as JsonSchema;
    const text = JSON.stringify(validated);
    let fn = byText.get(text);
    if (!fn) {
      try {
        // A bare reference to a component is that component's own validator, compiled once for the document.
        const ref = typeof validated === 'object' && Object.keys(validated).length === 1 ? validated['$ref'] : undefined;
        fn = (precompiled && typeof schema === 'object' ? precompiled(schemaKey(schema)) : undefined) ?? (typeof ref === 'string' ? ajv().getSchema(ref) : undefined) ?? ajv().compile(validated);
      } catch (e) {
        throw new UsageError(`a schema cannot be compiled: ${(e as Error).message}`, {
          file: shown,
          fix: 'make the schema valid JSON Schema; every $ref must point inside components.schemas',
        });
      }
      byText.set(text, fn);
    }
    if (typeof schema === 'object') compiled.set(schema, fn);
    return fn;
  };
}

/**
 * Keywords that only annotate: no validator reads them (ajv, not strict, with defaults never applied), and no
 * problem it reports names them. Stripe's request bodies of its first 400 operations have 641 distinct member
 * schemas, 242 without these.
 */
const ANNOTATIONS = new Set(['title', 'description', '$comment', 'example', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly', 'externalDocs', 'xml', 'discriminator']);

/** A schema without its annotations (ANNOTATIONS and `x-` extensions), at every place a schema stands; data as written. */
function withoutAnnotations(schema: unknown): unknown {
  if (!isObj(schema)) return schema;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(schema)) if (!ANNOTATIONS.has(k) && !k.startsWith('x-')) out[k] = mapSubschemas(k, v, withoutAnnotations);
  return out;
}

/** The schema a local `$ref` points at, as JSON Schema 2020-12 (converted once per reference). */
function schemaLocator({ raw, is30 }: LoadedDocument): (ref: string) => JsonSchema | undefined {
  const converted = new Map<string, JsonSchema | undefined>();
  return (ref) => {
    const local = documentRef(ref);
    if (!converted.has(local)) {
      const target = local.startsWith('#/') ? pointerToPath(local.slice(1)).reduce<unknown>((o, k) => (isObj(o) ? o[k] : undefined), raw) : undefined;
      converted.set(local, isObj(target) || typeof target === 'boolean' ? (as31(target, is30) as JsonSchema) : undefined);
    }
    return converted.get(local);
  };
}

/**
 * The build's module of standalone validators: every schema an operation declares (parameters, request and response
 * bodies, response headers), and the `extra` ones a run would otherwise compile in its threads.
 */
function standaloneSource(operations: Operation[], ajv: ReturnType<typeof createAjv>, extra: readonly unknown[]): string {
  const names: Record<string, string> = {};
  const declared = operations.flatMap((op) => [
    ...op.parameters.map((p) => p.schema),
    ...(op.requestBody?.content ?? []).map((m) => m.schema),
    ...op.responses.flatMap((r) => [...r.content.map((m) => m.schema), ...r.headers.map((h) => h.schema)]),
  ]);
  for (const schema of [...declared, ...extra]) {
    if (typeof schema !== 'object' || schema === null) continue;
    const key = schemaKey(schema);
    if (names[key]) continue;
    names[key] = `urn:fsapi:validator:${key}`;
    ajv.addSchema({ ...schema, $id: names[key] });
  }
  // Build time only: loaded here, not by every thread that loads a spec.
  const standaloneModule = createRequire(import.meta.url)('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js');
  return standaloneModule.default(ajv, names);
}

/** A pattern of the suite's own on ECMAScript's engine (read without the Unicode flag where only that reads it). */
function matchesNative(pattern: string, text: string): boolean | undefined {
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    return new RegExp(pattern).test(text);
  }
}

/** A validation that met a pattern the linear-time engine cannot run says what it was validating. */
function naming<T>(during: string, validate: () => T): T {
  try {
    return validate();
  } catch (e) {
    throw e instanceof UnsupportedPattern ? e.in(during) : e;
  }
}
