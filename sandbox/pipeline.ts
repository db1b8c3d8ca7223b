/**
 * Request processing, in the order the profile fixes:
 *   base path → auth → tenant → route/method → 415 → 413 → malformed JSON → Idempotency-Key (presence, format)
 *   → idempotency lookup → request validation (parameters and body, against the spec) → business rules → handler.
 * Routing comes after auth on purpose (an unknown path with a bad key is 401), which is why this is one entry
 * point rather than a router with per-route hooks.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { setImmediate as yieldTurn, setTimeout as sleep } from 'node:timers/promises';
import type { Operation, SpecDocument } from '../src/catalogue/index.js';
import type { ValidateFunction } from '../src/catalogue/json-schema.js';
import type { EventBus } from './events.js';
import type { FaultSet } from './faults.js';
import { checkHandlers, HANDLER_OF, type Context, type Result } from './handlers/index.js';
import { fingerprint, KEY_PATTERN, type IdempotencyStore, type StoredResponse } from './idempotency.js';
import { ApiError, problemBody, validationError, type FieldError } from './problem.js';
import { Router, validateParameters } from './routes.js';
import { newId, type Store } from './store.js';
import { isObj, type JsonObject } from '../src/json.js';
import { propertiesOf } from '../src/catalogue/schema-walker.js';
import { inlineForeignRefs } from '../src/values/generate.js';
import { inputCrash, inputRefusal } from './input-crashes.js';

export interface SandboxRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer | undefined;
  /** The body was longer than the limit (and was not kept). */
  bodyTooLarge: boolean;
}

export interface SandboxResponse {
  status: number;
  headers: Record<string, string>;
  body: string | undefined;
}

export type KeyKind = 'sandbox_secret' | 'sandbox_public' | 'live_secret' | 'live_public' | 'revoked';

export interface PipelineDeps {
  spec: SpecDocument;
  store: Store;
  faults: FaultSet;
  keys: Map<string, { kind: KeyKind; tenantId: string }>;
  idempotency: IdempotencyStore;
  events: EventBus;
}

export const BODY_LIMIT_BYTES = 1024 * 1024;
export const REALM_CHALLENGE = 'ApiKey realm="fsapi-sandbox", header="Api-Key"';
const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';
/** idem-race: the unlocked write takes this long, so concurrent duplicates overlap. */
const RACE_WINDOW_MS = 150;

function header(req: SandboxRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}


export class Pipeline {
  private readonly router: Router;
  private readonly readOnlyByOp = new Map<string, Map<string, ValidateFunction>>();

  constructor(private readonly deps: PipelineDeps) {
    checkHandlers(deps.spec);
    this.router = new Router(deps.spec.operations);
  }

  get basePath(): string {
    return this.deps.faults.has('unversioned-base-path') ? '' : '/v1';
  }

  async handle(req: SandboxRequest): Promise<SandboxResponse> {
    try {
      return await this.process(req);
    } catch (e) {
      return this.errorResponse(e);
    }
  }

  private async process(req: SandboxRequest): Promise<SandboxResponse> {
    const { faults, store } = this.deps;
    let url: URL;
    try {
      url = new URL(req.url, 'https://sandbox.invalid');
    } catch {
      throw new ApiError(404, 'not_found', 'Not found', 'No resource exists at this path.');
    }
    const relative = this.relativePath(url.pathname);
    if (relative === undefined) {
      throw new ApiError(404, 'not_found', 'Not found', `Nothing is served outside ${this.basePath}/.`);
    }

    // 1. Authentication: only the Api-Key header counts, and only a sandbox secret key.
    let keyTenant = this.authenticate(req, url);
    let answer401After = false;
    if (keyTenant === undefined) {
      const named = header(req, 'x-tenant-id');
      const known = named !== undefined && store.tenants.has(named);
      if (faults.has('auth-skip-on-reads') && req.method === 'GET' && known) keyTenant = named;
      else if (faults.has('auth-writes-before-check') && req.method === 'POST' && known) {
        keyTenant = named;
        answer401After = true;
      } else return this.unauthorized();
    }

    // 2. Tenant.
    const tenantId = this.resolveTenant(req, keyTenant);
    const response = await this.route(req, url, relative, tenantId).catch((e: unknown) => this.errorResponse(e));
    return answer401After ? this.unauthorized() : response;
  }

  private relativePath(pathname: string): string | undefined {
    const faults = this.deps.faults;
    if (faults.has('unversioned-base-path')) return pathname;
    if (pathname.startsWith('/v1/')) return pathname.slice(3);
    if (faults.has('version-ignored') && /^\/v[02]\//.test(pathname)) return pathname.slice(3);
    return undefined;
  }

  /** The tenant of the presented key when it authenticates, else undefined. */
  private authenticate(req: SandboxRequest, url: URL): string | undefined {
    const { faults, keys } = this.deps;
    let key = header(req, 'api-key');
    if (!key && faults.has('auth-accept-bearer')) key = /^Bearer\s+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '')?.[1];
    if (!key && faults.has('auth-accept-query-key')) {
      key = url.searchParams.get('api_key') ?? url.searchParams.get('apiKey') ?? url.searchParams.get('Api-Key') ?? undefined;
    }
    if (!key) return undefined;
    const entry = keys.get(key);
    if (!entry) return undefined;
    const accepted =
      entry.kind === 'sandbox_secret' ||
      (entry.kind === 'sandbox_public' && faults.has('auth-accept-public-key')) ||
      (entry.kind === 'live_secret' && faults.has('auth-accept-live-key')) ||
      (entry.kind === 'revoked' && faults.has('auth-accept-revoked-key'));
    return accepted ? entry.tenantId : undefined;
  }

  private resolveTenant(req: SandboxRequest, keyTenant: string): string {
    const faults = this.deps.faults;
    const named = header(req, 'x-tenant-id');
    if (named === undefined || named === '') {
      if (faults.has('tenant-header-optional')) return keyTenant;
      throw new ApiError(400, 'tenant_required', 'Tenant required', 'The x-tenant-id header is required on every request.', [
        { field: 'x-tenant-id', message: 'is required' },
      ]);
    }
    if (named === keyTenant) return named;
    if (faults.has('tenant-header-trusted') && this.deps.store.tenants.has(named)) return named;
    throw new ApiError(403, 'tenant_mismatch', 'Forbidden', 'The Api-Key does not belong to the business named in x-tenant-id.');
  }

  private async route(req: SandboxRequest, url: URL, relative: string, tenantId: string): Promise<SandboxResponse> {
    const { faults } = this.deps;
    // 3. Route and method.
    const match = this.router.match(relative);
    if (!match) {
      if (faults.has('unknown-path-500')) throw new TypeError(`Cannot read properties of undefined (reading 'handler')`);
      throw new ApiError(404, 'not_found', 'Not found', 'No resource exists at this path.');
    }
    const op = match.route.ops.get(req.method as Operation['method']);
    if (!op) {
      if (faults.has('no-405')) throw new ApiError(404, 'not_found', 'Not found', 'No resource exists at this path.');
      const allow = [...match.route.ops.keys()].join(', ');
      throw new ApiError(405, 'method_not_allowed', 'Method not allowed', `${req.method} is not supported here; allowed: ${allow}.`, undefined, { allow });
    }
    if (faults.has('group-missing-transactions') && op.group === 'transactions') {
      throw new ApiError(404, 'not_found', 'Not found', 'No resource exists at this path.');
    }

    // 4-6. Media type, size, JSON.
    const body = op.requestBody ? this.readBody(req) : undefined;

    // 7-8. Idempotency-Key, then its lookup.
    let slot: { slot: string; print: string } | undefined;
    if (op.method === 'POST') {
      const key = header(req, 'idempotency-key');
      if (key === undefined) {
        if (!faults.has('idem-key-optional')) {
          throw new ApiError(400, 'idempotency_key_required', 'Idempotency-Key required', 'Every POST requires an Idempotency-Key header.', [
            { field: 'Idempotency-Key', message: 'is required on every POST' },
          ]);
        }
      } else if (!KEY_PATTERN.test(key)) {
        throw new ApiError(400, 'invalid_idempotency_key', 'Invalid Idempotency-Key', 'An Idempotency-Key is 1 to 255 printable ASCII characters.', [
          { field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' },
        ]);
      }
      if (key !== undefined && !faults.has('idem-ignored')) {
        const print = fingerprint(op.method, url.pathname, body);
        let look = this.deps.idempotency.begin(tenantId, key, print);
        // The replay faults wait for the first request instead of answering 409, so a burst sees their replay.
        while (look.kind === 'in_flight' && (faults.has('idem-replay-new-id') || faults.has('idem-replay-duplicates'))) {
          await look.settled;
          look = this.deps.idempotency.begin(tenantId, key, print);
        }
        if (look.kind === 'mismatch') {
          throw new ApiError(422, 'idempotency_key_reused', 'Idempotency-Key reused', 'This Idempotency-Key was used with a different request.');
        }
        if (look.kind === 'in_flight') {
          throw new ApiError(409, 'idempotency_in_flight', 'Request in progress', 'A request with this Idempotency-Key is still being processed.');
        }
        if (look.kind === 'replay') return this.replay(look.response, op, match.params, url, body, tenantId);
        slot = { slot: look.slot, print };
      }
      // Like a database write, the handler completes in a later turn: concurrent duplicates observe the in-flight key.
      if (faults.has('idem-race')) await sleep(RACE_WINDOW_MS);
      else await yieldTurn();
    }

    try {
      const response = this.execute(op, match.params, url, body, tenantId);
      if (slot) {
        if (response.status >= 500) this.deps.idempotency.abandon(slot.slot);
        else this.deps.idempotency.complete(slot.slot, slot.print, response);
      }
      return response;
    } catch (e) {
      if (slot) this.deps.idempotency.abandon(slot.slot);
      throw e;
    }
  }

  private readBody(req: SandboxRequest): unknown {
    const faults = this.deps.faults;
    const contentType = header(req, 'content-type');
    const present = req.bodyTooLarge || (req.body !== undefined && req.body.length > 0);
    if (!present && contentType === undefined) {
      throw validationError([{ field: '/', message: 'a JSON request body is required' }]);
    }
    const json = contentType !== undefined && /^application\/json\s*(;.*)?$/i.test(contentType.trim());
    if (!json && !faults.has('no-415')) {
      throw new ApiError(415, 'unsupported_media_type', 'Unsupported media type', 'Request bodies must be sent as application/json.');
    }
    // patch-json-refused: PATCH wants application/merge-patch+json (RFC 7396) and refuses plain JSON.
    if (json && req.method === 'PATCH' && faults.has('patch-json-refused')) {
      throw new ApiError(415, 'unsupported_media_type', 'Unsupported media type', 'PATCH bodies must be sent as application/merge-patch+json.');
    }
    if (req.bodyTooLarge) {
      throw new ApiError(413, 'payload_too_large', 'Payload too large', `Request bodies are limited to ${BODY_LIMIT_BYTES} bytes.`);
    }
    try {
      return JSON.parse((req.body ?? Buffer.alloc(0)).toString('utf8')) as unknown;
    } catch {
      if (faults.has('malformed-json-500')) throw new SyntaxError('Unexpected end of JSON input');
      throw new ApiError(400, 'malformed_json', 'Malformed JSON', 'The request body is not valid JSON.', [{ field: '/', message: 'is not valid JSON' }]);
    }
  }

  /** Validation, business rules and the handler; every outcome (also a refusal) becomes a response. */
  private execute(op: Operation, pathParams: Record<string, string>, url: URL, rawBody: unknown, tenantId: string): SandboxResponse {
    const { spec, faults, store } = this.deps;
    const handler = HANDLER_OF[op.operationId]!;
    try {
      let body = rawBody;
      let readOnly: Record<string, unknown> | undefined;
      if (faults.has('mass-assignment') && isObj(body)) ({ body, readOnly } = this.splitReadOnly(op, body));
      if (handler.prepare) body = handler.prepare(body, faults);
      const params = validateParameters(spec, op, pathParams, url.searchParams, faults);
      const errors: FieldError[] = [...params.errors];
      if (op.requestBody) {
        const problems = spec.validateRequestBody(op, body);
        // An if/then schema reports the failed branch once more at its root; the field errors already say it.
        const named = problems.filter((p) => !/^must match "(then|else)" schema$/.test(p.message));
        errors.push(...(named.length > 0 ? named : problems).map((p) => ({ field: p.pointer, message: p.message })));
      }
      if (errors.length > 0) throw validationError(errors);
      const crash = inputCrash(spec, faults, op, body, url.searchParams);
      if (crash) throw new Error(crash);
      const refusal = inputRefusal(spec, faults, op, body);
      if (refusal) throw refusal;
      const after: (() => void)[] = [];
      const ctx: Context = {
        spec,
        store,
        tenant: store.tenants.get(tenantId)!,
        op,
        params: params.values,
        body,
        faults,
        events: this.deps.events,
        basePath: this.basePath,
        readOnly,
        after: (fn) => after.push(fn),
      };
      const response = this.success(handler.run(ctx));
      for (const task of after) {
        try {
          task();
        } catch {
          // The answer is given; a failed follow-up leaves the resource in its answered state.
        }
      }
      return response;
    } catch (e) {
      if (e instanceof ApiError) return this.problem(e);
      throw e;
    }
  }

  /** mass-assignment: fields the resource has but its create body does not (id, status, balance...) are set aside. */
  private splitReadOnly(op: Operation, body: Record<string, unknown>): { body: Record<string, unknown>; readOnly: Record<string, unknown> | undefined } {
    let fields = this.readOnlyByOp.get(op.operationId);
    if (!fields) {
      fields = new Map();
      // The catalogue's walk ($ref, allOf, oneOf/anyOf): a member of the created resource that no request body declares.
      const resource = propertiesOf(this.deps.spec, op.responses.find((r) => r.status === '201')?.content[0]?.schema);
      const writable = propertiesOf(this.deps.spec, op.requestBody?.content[0]?.schema);
      // A member's schema as the document writes it: its references in the validators' form before compiling.
      if (writable.size > 0) for (const [p, schema] of resource) if (!writable.has(p)) fields.set(p, this.deps.spec.validator(inlineForeignRefs(this.deps.spec, schema) as JsonObject));
      this.readOnlyByOp.set(op.operationId, fields);
    }
    const rest: Record<string, unknown> = {};
    const readOnly: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(body)) {
      const validate = fields.get(k);
      if (!validate) rest[k] = v;
      else if (validate(v)) readOnly[k] = v;
    }
    return { body: rest, readOnly: Object.keys(readOnly).length ? readOnly : undefined };
  }

  private replay(stored: StoredResponse, op: Operation, pathParams: Record<string, string>, url: URL, body: unknown, tenantId: string): SandboxResponse {
    const faults = this.deps.faults;
    let out = stored.body;
    if (faults.has('idem-replay-new-id') && out !== undefined) {
      const parsed = JSON.parse(out) as unknown;
      if (isObj(parsed) && typeof parsed['id'] === 'string') {
        parsed['id'] = newId(parsed['id'].split('_')[0]!);
        out = JSON.stringify(parsed);
      }
    }
    // idem-replay-duplicates: the stored answer goes out, but the request is processed once more.
    if (faults.has('idem-replay-duplicates')) this.execute(op, pathParams, url, body, tenantId);
    return { status: stored.status, headers: { ...stored.headers, 'idempotent-replayed': 'true' }, body: out };
  }

  private success(result: Result): SandboxResponse {
    const faults = this.deps.faults;
    const status = result.status === 201 && faults.has('undocumented-status') ? 200 : result.status;
    const headers: Record<string, string> = { 'content-type': faults.has('text-plain-responses') ? 'text/plain; charset=utf-8' : JSON_TYPE };
    if (result.location && !faults.has('no-location-header')) headers['location'] = result.location;
    return { status, headers, body: JSON.stringify(result.body) };
  }

  problem(e: ApiError): SandboxResponse {
    const faults = this.deps.faults;
    const errors = faults.has('validation-errors-unnamed') && e.status === 400 ? undefined : e.errors;
    const body = problemBody(e.status, e.code, e.title, e.message, errors);
    if (faults.has('stack-traces')) {
      // An ApiError carries no stack (problem.ts); the fault leaks one taken here, as a careless server would.
      if (!/\n\s+at /.test(e.stack ?? '')) Error.captureStackTrace(e);
      body.detail = `${body.detail}\n${e.stack ?? ''}`;
    }
    if (faults.has('problem-status-mismatch')) body.status = e.status === 400 ? 422 : 400;
    return { status: e.status, headers: { 'content-type': PROBLEM_TYPE, ...e.headers }, body: JSON.stringify(body) };
  }

  unauthorized(): SandboxResponse {
    const faults = this.deps.faults;
    if (faults.has('auth-403-instead-of-401')) {
      return this.problem(new ApiError(403, 'forbidden', 'Forbidden', 'A valid secret key is required in the Api-Key header.'));
    }
    if (faults.has('auth-401-not-json')) {
      return { status: 401, headers: { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': REALM_CHALLENGE }, body: 'Unauthorized' };
    }
    const res = this.problem(new ApiError(401, 'unauthorized', 'Unauthorized', 'A valid secret key is required in the Api-Key header.'));
    if (!faults.has('auth-no-www-authenticate')) res.headers['www-authenticate'] = REALM_CHALLENGE;
    return res;
  }

  /** Anything else that went wrong is a 500 without internals (unless the stack-traces fault asks for them). */
  errorResponse(e: unknown): SandboxResponse {
    if (e instanceof ApiError) return this.problem(e);
    const internal = new ApiError(500, 'internal_error', 'Internal error', 'The sandbox could not process this request.');
    if (e instanceof Error && e.stack) internal.stack = e.stack;
    return this.problem(internal);
  }
}
