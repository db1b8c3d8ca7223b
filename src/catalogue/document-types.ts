/** What a loaded OpenAPI document is made of, as every layer reads it: operations, their parts, the validators' verdicts. */
import type { GroupSlug, UNBOUND_SUITE } from './groups.js';
import type { JsonSchema, SchemaProblem, ValidateFunction } from './json-schema.js';
import type { LoadWarning } from './prepare.js';
import type { SourceFile } from './yaml-file.js';
import type { JsonObject } from '../json.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

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
  /**
   * Loaded with `standalone`: the source of every validator an operation needs, and of `extra` schemas besides
   * (src/catalogue/precompiled.ts).
   */
  standaloneSource?: (extra?: readonly unknown[]) => string;
  /** The response the document declares for a status, or undefined when it documents none. */
  responseFor(op: Operation, status: number): ResponseSpec | undefined;
}

export type ResponseVerdict =
  | { kind: 'ok' }
  | { kind: 'undocumented-status'; documented: string[] }
  | { kind: 'undocumented-media-type'; mediaType: string; documented: string[] }
  | { kind: 'schema'; problems: SchemaProblem[] };

export interface LoadOptions {
  trustedSha256?: string[];
  standalone?: boolean;
}

/** What the load phase hands on: the resolved document and how to name it in errors. */
export interface LoadedDocument {
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
