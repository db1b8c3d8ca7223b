/**
 * An OpenAPI 3.0/3.1 document loaded in three phases, each handing the next what it made: load (read, check,
 * resolve), index (operations by id, lifecycle states), validators (validators.ts). Its types: document-types.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { groupOf } from './groups.js';
import type { JsonSchema } from './json-schema.js';
import type { Prepared } from './prepare.js';
import { cachedDerivation, displayPath, readSourceFileCached } from './yaml-file.js';
import { isObj, type JsonObject } from '../json.js';
import { as31, nullableIn31, rewriteRefs } from './as-json-schema.js';
import type { HttpMethod, LoadedDocument, LoadOptions, MediaSpec, Operation, Parameter, ResponseSpec, SpecDocument } from './document-types.js';
import { validatorsOf } from './validators.js';

export type * from './document-types.js';
export { bundleRef, documentRef, from30 } from './as-json-schema.js';
export { requestMediaOf } from './media.js';

const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

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

function pickEncoding(e: JsonObject): { style?: string; explode?: boolean; contentType?: string } {
  return {
    ...(typeof e['style'] === 'string' ? { style: e['style'] } : {}),
    ...(typeof e['explode'] === 'boolean' ? { explode: e['explode'] } : {}),
    ...(typeof e['contentType'] === 'string' ? { contentType: e['contentType'] } : {}),
  };
}
