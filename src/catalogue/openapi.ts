import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { UsageError } from '../errors.js';
import { groupOf, type GroupSlug, type UNBOUND_SUITE } from './groups.js';
import { matchesLinear, patternLocator, UnsupportedPattern } from './linear-pattern.js';
import { createAjv, describeErrors, SUBSCHEMA, SUBSCHEMA_LIST, SUBSCHEMA_MAP, type JsonSchema, type SchemaProblem, type ValidateFunction } from './json-schema.js';
import { loadPrecompiled, schemaKey } from './precompiled.js';
import type { LoadWarning, Prepared } from './prepare.js';
import { cachedDerivation, displayPath, pointerToPath, readSourceFileCached, type SourceFile } from './yaml-file.js';
import { isObj, type JsonObject } from '../json.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export type Source = 'seed' | 'profile' | 'unmarked';

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema | undefined;
  example: unknown;
}

export interface MediaSpec {
  mediaType: string;
  schema: JsonSchema | undefined;
  examples: unknown[];
  /** A form body's encoding object (OpenAPI 3: per property, its style, explode and contentType), if any. */
  encoding?: Record<string, { style?: string; explode?: boolean; contentType?: string }>;
}

export interface ResponseSpec {
  /** "201", "4XX" or "default", as written in the document. */
  status: string;
  description: string;
  /** Header names in lower case, with whether the spec marks them required. */
  headers: { name: string; required: boolean; schema: JsonSchema | undefined }[];
  content: MediaSpec[];
}

export interface Operation {
  operationId: string;
  method: HttpMethod;
  /** Path template relative to the base URL, e.g. "/customers/{customer_id}". */
  path: string;
  /** The operation's suite: the group its tags name, or (vendor documents) the one its binding gives. */
  group: GroupSlug | typeof UNBOUND_SUITE | undefined;
  tags: string[];
  summary: string;
  source: Source;
  seedSection: string | undefined;
  parameters: Parameter[];
  requestBody: { required: boolean; content: MediaSpec[] } | undefined;
  responses: ResponseSpec[];
  /** Whether the operation is authenticated (by the spec's own security, or the document default). */
  secured: boolean;
  /** Pointer of the operation in the document, for error messages. */
  pointer: string[];
}

export interface SpecDocument {
  path: string;
  sha256: string;
  /** "3.1.0", "3.0.3", ... */
  version: string;
  title: string;
  operations: Operation[];
  byId: Map<string, Operation>;
  /** The document with every $ref outside schemas replaced by what it names (src/catalogue/prepare.ts). */
  raw: Record<string, unknown>;
  file: SourceFile;
  /** States of stateful schemas (x-fsapi-states), by schema name. */
  states: Map<string, { initial: string[]; terminal: string[]; transitions: { from: string; to: string; trigger: string }[] }>;
  validateResponse(op: Operation, status: number, contentType: string | undefined, body: unknown): ResponseVerdict;
  /** Problems of a request body for the operation's schema of that media type (default: its JSON, else form, body). */
  validateRequestBody(op: Operation, body: unknown, mediaType?: string): SchemaProblem[];
  /** What the document breaks that does not change its meaning (an unknown key, say): used, with these warnings. */
  warnings: LoadWarning[];
  /**
   * The schema a $ref of the document names ("#/components/schemas/Customer", or the same in the validators'
   * bundle form an operation's schemas carry, "urn:fsapi:spec#/$defs/Customer"), in JSON Schema 2020-12 form.
   */
  schemaAt(ref: string): JsonSchema | undefined;
  /** Compiles (once) and returns a validator for a schema inside the document. */
  validator(schema: JsonSchema): ValidateFunction;
  /**
   * Whether a text matches one of the document's patterns, on the engine its validators use (linear time for a
   * vendor's document; undefined for a pattern that engine cannot run).
   */
  matchesPattern(pattern: string, text: string): boolean | undefined;
  /** Loaded with `standalone`: the source of every validator an operation needs (src/catalogue/precompiled.ts). */
  standaloneSource?: () => string;
  /** The response the document declares for a status, or undefined when it documents none. */
  responseFor(op: Operation, status: number): ResponseSpec | undefined;
}

export type ResponseVerdict =
  | { kind: 'ok' }
  | { kind: 'undocumented-status'; documented: string[] }
  | { kind: 'undocumented-media-type'; mediaType: string; documented: string[] }
  | { kind: 'schema'; problems: SchemaProblem[] };

const BUNDLE_ID = 'urn:fsapi:spec';

/**
 * Loads and validates an OpenAPI 3.x document, and indexes its operations by group. `trustedSha256`: digests
 * of documents already proven valid (the reference profile, by the project's own tests), which skip the
 * meta-schema validation. Three phases, each handing the next what it made: load (read, check, resolve), index
 * (operations by id, lifecycle states), validators (compiled on demand, or the build's).
 */
export async function loadSpec(path: string, opts: LoadOptions = {}): Promise<SpecDocument> {
  const doc = await loadDocument(path, opts);
  const index = indexOperations(doc);
  return {
    path,
    sha256: doc.file.sha256 || createHash('sha256').update(readFileSync(path)).digest('hex'),
    version: doc.version,
    title: isObj(doc.raw['info']) ? String(doc.raw['info']['title'] ?? '') : '',
    ...index,
    raw: doc.raw,
    file: doc.file,
    warnings: doc.is30 ? doc.warnings : [...doc.warnings, ...nullableIn31(doc.raw)],
    ...(await validatorsOf(doc, index.operations, opts)),
  };
}

interface LoadOptions {
  trustedSha256?: string[];
  standalone?: boolean;
}

/** What the load phase hands on: the resolved document and how to name it in errors. */
interface LoadedDocument {
  file: SourceFile & { sha256: string };
  /** The file as errors name it. */
  shown: string;
  trusted: boolean;
  /** The document with every $ref outside schemas resolved (src/catalogue/prepare.ts). */
  raw: JsonObject;
  warnings: LoadWarning[];
  version: string;
  is30: boolean;
  /** components.schemas, as written. */
  schemas: JsonObject;
}

/** Load: reads the file, refuses what is no OpenAPI 3.0/3.1 document, and resolves it (once per content). */
async function loadDocument(path: string, opts: LoadOptions): Promise<LoadedDocument> {
  const file = readSourceFileCached(path, 'OpenAPI document');
  const shown = displayPath(path);
  const trusted = opts.trustedSha256?.includes(file.sha256) ?? false;
  // Checked and resolved once per document content (src/catalogue/prepare.ts), not once per thread. One entry
  // whether trusted or not: only the reference profile is ever trusted, and its own tests prove it valid.
  const { doc: raw, warnings } = await cachedDerivation(file.sha256, 'openapi-prepared-2', async () => {
    const data = file.data;
    if (!isObj(data) || typeof data['openapi'] !== 'string') {
      throw new UsageError('this is not an OpenAPI document: it has no top-level "openapi" version field', {
        file: shown,
        fix: 'point FSAPI_SPEC (or --spec) at an OpenAPI 3.0 or 3.1 document in YAML or JSON',
      });
    }
    if (!/^3\.[01]\.\d+$/.test(data['openapi'])) {
      throw new UsageError(`OpenAPI version ${data['openapi']} is not supported`, {
        file: shown,
        where: String(file.lineOf(['openapi']) ?? ''),
        fix: 'supply an OpenAPI 3.0.x or 3.1.x document (Swagger 2.0 can be converted with a tool such as swagger2openapi)',
      });
    }
    return (await import('./prepare.js')).prepareDocument(data, file, shown, { trusted });
  }, (v): v is Prepared => isObj(v) && isObj(v['doc']) && Array.isArray(v['warnings']));
  const version = String(raw['openapi']);
  const components = isObj(raw['components']) ? raw['components'] : {};
  return { file, shown, trusted, raw, warnings, version, is30: version.startsWith('3.0'), schemas: isObj(components['schemas']) ? components['schemas'] : {} };
}

/** What the index phase hands on: the operations, by id, and the lifecycle states the schemas declare. */
type OperationIndex = Pick<SpecDocument, 'operations' | 'byId' | 'states'>;

/** Index: every operation with its parameters, bodies and responses (schemas in the validators' form), by id. */
function indexOperations(doc: LoadedDocument): OperationIndex {
  const { raw, is30, file, shown } = doc;
  // One rewritten schema per source object (rewriting per operation made ajv compile the same problem schema
  // hundreds of times; equal copies share a validator by content, below).
  const rewritten = new WeakMap<object, JsonSchema>();
  const schemaOf = (s: unknown): JsonSchema | undefined => {
    if (s === undefined) return undefined;
    if (typeof s !== 'object' || s === null) return rewriteRefs(s, raw, is30) as JsonSchema;
    let r = rewritten.get(s);
    if (!r) rewritten.set(s, (r = rewriteRefs(as31(s, is30), raw, is30) as JsonSchema));
    return r;
  };

  const mediaOf = (content: unknown): MediaSpec[] =>
    isObj(content)
      ? Object.entries(content).map(([mediaType, m]) => {
          const media = isObj(m) ? m : {};
          const examples: unknown[] = [];
          if ('example' in media) examples.push(media['example']);
          if (isObj(media['examples'])) {
            for (const e of Object.values(media['examples'])) if (isObj(e) && 'value' in e) examples.push(e['value']);
          }
          const encoding = isObj(media['encoding']) ? Object.fromEntries(Object.entries(media['encoding']).filter(([, e]) => isObj(e)).map(([k, e]) => [k, pickEncoding(e as JsonObject)])) : undefined;
          return { mediaType: mediaType.toLowerCase(), schema: schemaOf(media['schema']), examples, ...(encoding ? { encoding } : {}) };
        })
      : [];

  const docSecurity = Array.isArray(raw['security']) ? raw['security'] : [];
  const operations: Operation[] = [];
  const paths = isObj(raw['paths']) ? raw['paths'] : {};
  for (const [p, item] of Object.entries(paths)) {
    if (!isObj(item)) continue;
    const shared = Array.isArray(item['parameters']) ? item['parameters'] : [];
    for (const method of METHODS) {
      const opRaw = item[method.toLowerCase()];
      if (!isObj(opRaw)) continue;
      const pointer = ['paths', p, method.toLowerCase()];
      const params = new Map<string, Parameter>();
      for (const prm of [...shared, ...(Array.isArray(opRaw['parameters']) ? opRaw['parameters'] : [])]) {
        if (!isObj(prm)) continue;
        const param: Parameter = {
          name: String(prm['name']),
          in: prm['in'] as Parameter['in'],
          required: prm['required'] === true || prm['in'] === 'path',
          schema: schemaOf(prm['schema']),
          example: prm['example'],
        };
        params.set(`${param.in}:${param.name.toLowerCase()}`, param);
      }
      const rb = opRaw['requestBody'];
      const responses: ResponseSpec[] = [];
      for (const [status, r] of Object.entries(isObj(opRaw['responses']) ? opRaw['responses'] : {})) {
        if (!isObj(r)) continue;
        const headers = Object.entries(isObj(r['headers']) ? r['headers'] : {}).map(([name, h]) => ({
          name: name.toLowerCase(),
          required: isObj(h) && h['required'] === true,
          schema: isObj(h) ? schemaOf(h['schema']) : undefined,
        }));
        responses.push({ status: status.toUpperCase(), description: String(r['description'] ?? ''), headers, content: mediaOf(r['content']) });
      }
      const tags = Array.isArray(opRaw['tags']) ? opRaw['tags'].map(String) : [];
      const security = Array.isArray(opRaw['security']) ? opRaw['security'] : docSecurity;
      const source = opRaw['x-fsapi-source'];
      operations.push({
        operationId: typeof opRaw['operationId'] === 'string' ? opRaw['operationId'] : `${method} ${p}`,
        method,
        path: p,
        group: tags.map(groupOf).find((g) => g !== undefined),
        tags,
        summary: String(opRaw['summary'] ?? ''),
        source: source === 'seed' || source === 'profile' ? source : 'unmarked',
        seedSection: typeof opRaw['x-fsapi-seed-section'] === 'string' ? opRaw['x-fsapi-seed-section'] : undefined,
        parameters: [...params.values()],
        requestBody: isObj(rb) ? { required: rb['required'] === true, content: mediaOf(rb['content']) } : undefined,
        responses,
        secured: security.some((s) => isObj(s) && Object.keys(s).length > 0),
        pointer,
      });
    }
  }

  if (operations.length === 0) {
    throw new UsageError('the document declares no operations: there is nothing to test', {
      file: shown,
      where: String(file.lineOf(['paths']) ?? ''),
      fix: `give "paths" at least one path with a ${METHODS.map((m) => m.toLowerCase()).join(', ')} operation`,
    });
  }
  const byId = new Map<string, Operation>();
  for (const op of operations) {
    if (byId.has(op.operationId)) {
      throw new UsageError(`operationId ${op.operationId} is used twice`, {
        file: shown,
        where: String(file.lineOf(op.pointer) ?? ''),
        fix: 'give every operation a unique operationId',
      });
    }
    byId.set(op.operationId, op);
  }

  const states = new Map<string, { initial: string[]; terminal: string[]; transitions: { from: string; to: string; trigger: string }[] }>();
  for (const [name, s] of Object.entries(doc.schemas)) {
    if (isObj(s) && isObj(s['x-fsapi-states'])) states.set(name, s['x-fsapi-states'] as never);
  }

  return { operations, byId, states };
}

type Validators = Pick<SpecDocument, 'schemaAt' | 'validator' | 'matchesPattern' | 'standaloneSource' | 'responseFor' | 'validateResponse' | 'validateRequestBody'>;

/** Validators: the document's schemas compiled on first use against one bundle of its components (or the build's). */
async function validatorsOf(doc: LoadedDocument, operations: Operation[], opts: LoadOptions): Promise<Validators> {
  const { raw, is30, file, shown, trusted, schemas } = doc;
  // The build's compiled validators serve a trusted document (src/catalogue/precompiled.ts).
  const precompiled = trusted && !opts.standalone ? loadPrecompiled(file.sha256) : undefined;
  const patternsAt = patternLocator(raw);
  const makeAjv = (checkSchemas: boolean) => {
    // A vendor's patterns run in linear time; the reference profile's are the suite's own (its amounts use a lookahead).
    const ajv = createAjv({ standalone: opts.standalone ?? false, ...(trusted ? {} : { documentPatterns: patternsAt }) });
    // All component schemas as one bundle; every $ref into them becomes absolute so inline schemas compile on their own.
    const bundle = { $id: BUNDLE_ID, $defs: Object.fromEntries(Object.entries(schemas).map(([name, s]: [string, unknown]) => [name, rewriteRefs(as31(s, is30), raw, is30)])) };
    try {
      ajv.addSchema(bundle as object, undefined, undefined, checkSchemas);
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
  const ajv = () => (ajvInstance ??= makeAjv(false));

  const compiled = new WeakMap<object, ValidateFunction>();
  // Equal schemas share one validator: the prepared document is JSON, so a component used in many places (a
  // response, a header) is an equal copy at each.
  const byText = new Map<string, ValidateFunction>();
  const validator = (schema: JsonSchema): ValidateFunction => {
    const known = typeof schema === 'object' ? compiled.get(schema) : undefined;
    if (known) return known;
    const text = JSON.stringify(schema);
    let fn = byText.get(text);
    if (!fn) {
      try {
        // A bare reference to a component is that component's own validator, compiled once for the document.
        const ref = typeof schema === 'object' && Object.keys(schema).length === 1 ? schema['$ref'] : undefined;
        fn = (precompiled && typeof schema === 'object' ? precompiled(schemaKey(schema)) : undefined) ?? (typeof ref === 'string' ? ajv().getSchema(ref) : undefined) ?? ajv().compile(schema);
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

  const converted = new Map<string, JsonSchema | undefined>();
  const schemaAt = (ref: string): JsonSchema | undefined => {
    const local = documentRef(ref);
    if (!converted.has(local)) {
      const target = local.startsWith('#/') ? pointerToPath(local.slice(1)).reduce<unknown>((o, k) => (isObj(o) ? o[k] : undefined), raw) : undefined;
      converted.set(local, isObj(target) || typeof target === 'boolean' ? (as31(target, is30) as JsonSchema) : undefined);
    }
    return converted.get(local);
  };

  const responseFor = (op: Operation, status: number): ResponseSpec | undefined =>
    op.responses.find((r) => r.status === String(status)) ??
    op.responses.find((r) => r.status === `${String(status)[0]}XX`) ??
    op.responses.find((r) => r.status === 'DEFAULT');

  return {
    schemaAt,
    validator,
    // The reference profile's patterns are the suite's own: ECMAScript's engine, as its compiled validators.
    matchesPattern: trusted ? matchesNative : matchesLinear,
    ...(opts.standalone
      ? {
          standaloneSource: () => {
            // Every schema an operation declares (parameters, request and response bodies, response headers).
            const names: Record<string, string> = {};
            for (const op of operations) {
              const schemas = [
                ...op.parameters.map((p) => p.schema),
                ...(op.requestBody?.content ?? []).map((m) => m.schema),
                ...op.responses.flatMap((r) => [...r.content.map((m) => m.schema), ...r.headers.map((h) => h.schema)]),
              ];
              for (const schema of schemas) {
                if (typeof schema !== 'object' || schema === null) continue;
                const key = schemaKey(schema);
                if (names[key]) continue;
                names[key] = `urn:fsapi:validator:${key}`;
                ajv().addSchema({ ...schema, $id: names[key] });
              }
            }
            // Build time only: loaded here, not by every thread that loads a spec.
            const standaloneModule = createRequire(import.meta.url)('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js');
            return standaloneModule.default(ajv(), names);
          },
        }
      : {}),
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

const isJsonMedia = (m: string): boolean => m === 'application/json' || /^application\/[\w.+-]+\+json$/.test(m);

/**
 * The media type a client sends an operation's body in: JSON where the document takes it, else another JSON type
 * (`application/vnd.api+json`), else a form (`application/x-www-form-urlencoded`, `multipart/form-data`), else the
 * first it names.
 */
export function requestMediaOf(op: Pick<Operation, 'requestBody'>): MediaSpec | undefined {
  const content = op.requestBody?.content ?? [];
  return (
    content.find((c) => c.mediaType === 'application/json') ??
    content.find((c) => isJsonMedia(c.mediaType)) ??
    content.find((c) => c.mediaType === 'application/x-www-form-urlencoded') ??
    content.find((c) => c.mediaType === 'multipart/form-data') ??
    content[0]
  );
}

function pickEncoding(e: JsonObject): { style?: string; explode?: boolean; contentType?: string } {
  return {
    ...(typeof e['style'] === 'string' ? { style: e['style'] } : {}),
    ...(typeof e['explode'] === 'boolean' ? { explode: e['explode'] } : {}),
    ...(typeof e['contentType'] === 'string' ? { contentType: e['contentType'] } : {}),
  };
}

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
function rewriteRefs(v: unknown, raw?: Record<string, unknown>, is30 = false, depth = 0): unknown {
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
function mapSubschemas(keyword: string, value: unknown, f: (schema: unknown) => unknown): unknown {
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

const as31 = (s: unknown, is30: boolean): unknown => (is30 ? from30(s) : nullable31(s));

/** Where a 3.1 document's schemas still say 3.0's `nullable`: a warning for the first place, with the count. */
function nullableIn31(raw: JsonObject): LoadWarning[] {
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
