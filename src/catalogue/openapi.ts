import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { UsageError } from '../errors.js';
import { groupOf, type GroupSlug } from './groups.js';
import { createAjv, describeErrors, type JsonSchema, type SchemaProblem, type ValidateFunction } from './json-schema.js';
import { loadPrecompiled, schemaKey } from './precompiled.js';
import { displayPath, pointerToPath, readSourceFileCached, type SourceFile } from './yaml-file.js';
import { isObj, type Json } from '../json.js';

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
  group: GroupSlug | undefined;
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
  raw: Record<string, unknown>;
  file: SourceFile;
  /** States of stateful schemas (x-fsapi-states), by schema name. */
  states: Map<string, { initial: string[]; terminal: string[]; transitions: { from: string; to: string; trigger: string }[] }>;
  validateResponse(op: Operation, status: number, contentType: string | undefined, body: unknown): ResponseVerdict;
  validateRequestBody(op: Operation, body: unknown): SchemaProblem[];
  /** Compiles (once) and returns a validator for a schema inside the document. */
  validator(schema: JsonSchema): ValidateFunction;
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
 * meta-schema validation.
 */
export async function loadSpec(path: string, opts: { trustedSha256?: string[]; standalone?: boolean } = {}): Promise<SpecDocument> {
  const file = readSourceFileCached(path, 'OpenAPI document');
  const shown = displayPath(path);
  const raw = file.data;
  if (!isObj(raw) || typeof raw['openapi'] !== 'string') {
    throw new UsageError('this is not an OpenAPI document: it has no top-level "openapi" version field', {
      file: shown,
      fix: 'point FSAPI_SPEC (or --spec) at an OpenAPI 3.0 or 3.1 document in YAML or JSON',
    });
  }
  const version = raw['openapi'];
  if (!/^3\.[01]\.\d+$/.test(version)) {
    throw new UsageError(`OpenAPI version ${version} is not supported`, {
      file: shown,
      where: String(file.lineOf(['openapi']) ?? ''),
      fix: 'supply an OpenAPI 3.0.x or 3.1.x document (Swagger 2.0 can be converted with a tool such as swagger2openapi)',
    });
  }
  const trusted = opts.trustedSha256?.includes(file.sha256) ?? false;
  // Loaded only for a document to validate (75 ms of start-up in each thread that loads a spec).
  const validation = trusted ? { valid: true, errors: undefined } : await new (await import('@seriousme/openapi-schema-validator')).Validator().validate(structuredClone(raw));
  if (!validation.valid) {
    const errors = (Array.isArray(validation.errors) ? validation.errors : []) as { instancePath?: string; message?: string }[];
    // The schema validator reports every failed oneOf branch; the deepest error is the useful one.
    const first = [...errors].sort((a, b) => (b.instancePath?.length ?? 0) - (a.instancePath?.length ?? 0))[0];
    const where = pointerToPath(first?.instancePath ?? '');
    throw new UsageError(
      `not a valid OpenAPI ${version} document: ${where.length ? where.join('.') : '(root)'} ${first?.message ?? 'is invalid'}`,
      {
        file: shown,
        where: String(file.lineOf(where) ?? ''),
        fix: 'correct the document there; a linter such as `npx @redocly/cli lint` shows every problem',
      },
    );
  }

  const components = isObj(raw['components']) ? raw['components'] : {};
  const schemas = isObj(components['schemas']) ? components['schemas'] : {};
  // The build's compiled validators serve a trusted document (src/catalogue/precompiled.ts).
  const precompiled = trusted && !opts.standalone ? loadPrecompiled(file.sha256) : undefined;
  const makeAjv = () => {
    const ajv = createAjv({ standalone: opts.standalone ?? false });
    // All component schemas as one bundle; every $ref into them becomes absolute so inline schemas compile on their own.
    const bundle = { $id: BUNDLE_ID, $defs: rewriteRefs(version.startsWith('3.0') ? from30(schemas) : schemas) };
    try {
      // A trusted document's schemas are proven valid by its own tests: compiling the meta-schema in every thread of
      // every run to check them again costs more than all the validation a short run does.
      ajv.addSchema(bundle as object, undefined, undefined, !trusted);
    } catch (e) {
      throw new UsageError(`the component schemas cannot be compiled: ${(e as Error).message}`, {
        file: shown,
        where: String(file.lineOf(['components', 'schemas']) ?? ''),
        fix: 'make every schema under components.schemas valid JSON Schema (2020-12 for OpenAPI 3.1)',
      });
    }
    return ajv;
  };
  // Made at once for a document the build did not compile, so a schema that cannot compile is reported on load;
  // with the build's validators, only if one is ever missing (none is for the reference profile), so ajv itself
  // never loads in such a run's threads.
  let ajvInstance = precompiled ? undefined : makeAjv();
  const ajv = () => (ajvInstance ??= makeAjv());

  const resolve = (v: unknown, seen = 0): unknown => {
    // Resolves a local $ref to a non-schema component (parameter, response, header, request body).
    if (isObj(v) && typeof v['$ref'] === 'string' && v['$ref'].startsWith('#/') && seen < 20) {
      const target = pointerToPath(v['$ref'].slice(1)).reduce<unknown>((o, k) => (isObj(o) ? o[k] : undefined), raw);
      if (target === undefined) {
        throw new UsageError(`unresolvable $ref ${v['$ref']}`, { file: shown, fix: 'point the $ref at an existing component' });
      }
      return resolve(target, seen + 1);
    }
    return v;
  };
  // One rewritten schema per source object: responses that share a component share its schema, and so its
  // compiled validator (rewriting per operation made ajv compile the same problem schema hundreds of times).
  const rewritten = new WeakMap<object, JsonSchema>();
  const schemaOf = (s: unknown): JsonSchema | undefined => {
    if (s === undefined) return undefined;
    if (typeof s !== 'object' || s === null) return rewriteRefs(s) as JsonSchema;
    let r = rewritten.get(s);
    if (!r) rewritten.set(s, (r = rewriteRefs(version.startsWith('3.0') ? from30(s) : s) as JsonSchema));
    return r;
  };

  const mediaOf = (content: unknown): MediaSpec[] =>
    isObj(content)
      ? Object.entries(content).map(([mediaType, m]) => {
          const media = isObj(m) ? m : {};
          const examples: unknown[] = [];
          if ('example' in media) examples.push(media['example']);
          if (isObj(media['examples'])) {
            for (const ex of Object.values(media['examples'])) {
              const e = resolve(ex);
              if (isObj(e) && 'value' in e) examples.push(e['value']);
            }
          }
          return { mediaType: mediaType.toLowerCase(), schema: schemaOf(media['schema']), examples };
        })
      : [];

  const docSecurity = Array.isArray(raw['security']) ? raw['security'] : [];
  const operations: Operation[] = [];
  const paths = isObj(raw['paths']) ? raw['paths'] : {};
  for (const [p, itemRaw] of Object.entries(paths)) {
    const item = resolve(itemRaw);
    if (!isObj(item)) continue;
    const shared = Array.isArray(item['parameters']) ? item['parameters'] : [];
    for (const method of METHODS) {
      const opRaw = item[method.toLowerCase()];
      if (!isObj(opRaw)) continue;
      const pointer = ['paths', p, method.toLowerCase()];
      const params = new Map<string, Parameter>();
      for (const pr of [...shared, ...(Array.isArray(opRaw['parameters']) ? opRaw['parameters'] : [])]) {
        const prm = resolve(pr);
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
      const rb = resolve(opRaw['requestBody']);
      const responses: ResponseSpec[] = [];
      for (const [status, rr] of Object.entries(isObj(opRaw['responses']) ? opRaw['responses'] : {})) {
        const r = resolve(rr);
        if (!isObj(r)) continue;
        const headers = Object.entries(isObj(r['headers']) ? r['headers'] : {}).map(([name, hr]) => {
          const h = resolve(hr);
          return { name: name.toLowerCase(), required: isObj(h) && h['required'] === true, schema: isObj(h) ? schemaOf(h['schema']) : undefined };
        });
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

  const compiled = new WeakMap<object, ValidateFunction>();
  const validator = (schema: JsonSchema): ValidateFunction => {
    const key = typeof schema === 'boolean' ? { schema } : schema;
    let fn = typeof schema === 'boolean' ? undefined : compiled.get(schema);
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
      if (typeof schema !== 'boolean') compiled.set(key, fn);
    }
    return fn;
  };

  const responseFor = (op: Operation, status: number): ResponseSpec | undefined =>
    op.responses.find((r) => r.status === String(status)) ??
    op.responses.find((r) => r.status === `${String(status)[0]}XX`) ??
    op.responses.find((r) => r.status === 'DEFAULT');

  const states = new Map<string, { initial: string[]; terminal: string[]; transitions: { from: string; to: string; trigger: string }[] }>();
  for (const [name, s] of Object.entries(schemas)) {
    if (isObj(s) && isObj(s['x-fsapi-states'])) states.set(name, s['x-fsapi-states'] as never);
  }

  return {
    path,
    sha256: file.sha256 || createHash('sha256').update(readFileSync(path)).digest('hex'),
    version,
    title: isObj(raw['info']) ? String(raw['info']['title'] ?? '') : '',
    operations,
    byId,
    raw,
    file,
    states,
    validator,
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
      return fn(body) ? { kind: 'ok' } : { kind: 'schema', problems: describeErrors(fn.errors) };
    },
    validateRequestBody(op, body) {
      const media = op.requestBody?.content.find((c) => c.mediaType === 'application/json');
      if (!media?.schema) return [];
      const fn = validator(media.schema);
      return fn(body) ? [] : describeErrors(fn.errors);
    },
  };
}

/** Makes local component refs absolute, so any schema of the document compiles against the bundle. */
function rewriteRefs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(rewriteRefs);
  if (!isObj(v)) return v;
  const out: Json = {};
  for (const [k, val] of Object.entries(v)) {
    if (k === '$ref' && typeof val === 'string' && val.startsWith('#/components/schemas/')) {
      out[k] = `${BUNDLE_ID}#/$defs/${val.slice('#/components/schemas/'.length)}`;
    } else {
      out[k] = rewriteRefs(val);
    }
  }
  return out;
}

/** OpenAPI 3.0 schema dialect to JSON Schema: `nullable: true` becomes a null type alternative. */
function from30(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(from30);
  if (!isObj(v)) return v;
  const out: Json = {};
  for (const [k, val] of Object.entries(v)) {
    if (k !== 'nullable') out[k] = from30(val);
  }
  if (v['nullable'] === true) {
    if (typeof out['type'] === 'string') out['type'] = [out['type'], 'null'];
    else if (!('type' in out)) return { anyOf: [out, { type: 'null' }] };
    if (Array.isArray(out['enum'])) out['enum'] = [...out['enum'], null];
  }
  return out;
}
