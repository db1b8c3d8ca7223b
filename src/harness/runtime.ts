import { setMaxListeners } from 'node:events';
import { appendFileSync } from 'node:fs';
import type { Faker } from '@faker-js/faker';
import { faker as englishFaker } from '@faker-js/faker/locale/en';
import { requestMediaOf, type MediaSpec, type Operation, type SpecDocument } from '../catalogue/openapi.js';
import { secretsOf } from '../config/run-config.js';
import { TargetClient, type HttpResponse, type RequestSpec } from '../http/client.js';
import { fillPath, missingPathParams } from '../http/path-template.js';
import { multipartBody, urlEncodedBody } from '../http/form-body.js';
import { RateLimiter } from '../http/rate-limiter.js';
import { Redactor } from '../http/redact.js';
import type { RecordedExchange } from '../results/model.js';
import { CheckSkipped } from './assert.js';
import type { WorkerConfig } from './worker-config.js';
import { seedFor } from './seed.js';
import { documentValue } from '../values/parameter-value.js';
import { loadGenerator } from '../values/generate.js';
import { notFoundMadeUp } from '../values/made-up.js';
import { type Probe, madeUpOf, type MadeUpValue, type CallOptions, type RequestParts } from '../http/request-parts.js';
import { loadCatalogue, type Catalogue } from '../binding/catalogue-in-use.js';
import { propertiesOf } from '../catalogue/schema-walker.js';

/** Per worker: the catalogue of the spec in use, the redactor, and one keep-alive client for the target. */
export interface WorkerRuntime {
  cfg: WorkerConfig;
  catalogue: Catalogue;
  client: TargetClient;
  redactor: Redactor;
  /** Cancelled when the run is interrupted. */
  abort: AbortController;
}

let runtime: Promise<WorkerRuntime> | undefined;

export function workerRuntime(cfg: WorkerConfig): Promise<WorkerRuntime> {
  runtime ??= (async () => {
    const catalogue = await loadCatalogue({ specPath: cfg.specPath, ...(cfg.bindingPath ? { bindingPath: cfg.bindingPath } : {}) });
    // A vendor's document may need values made from its schemas in any request (its required query parameters).
    if (!catalogue.isReferenceProfile) await loadGenerator();
    const redactor = new Redactor(secretsOf(cfg.credentials));
    const abort = runCancellation(cfg);
    const client = new TargetClient({
      baseUrl: cfg.baseUrl,
      ...(cfg.caPem ? { caPem: cfg.caPem, ...(cfg.embedded ? { caOnly: true } : {}) } : {}),
      timeoutMs: cfg.timeoutMs,
      maxResponseBytes: cfg.maxResponseBytes,
      redactor,
      limiter: new RateLimiter(cfg.throttle),
      signal: abort.signal,
    });
    return { cfg, catalogue, client, redactor, abort };
  })();
  return runtime;
}

/**
 * The worker's cancellation: every cancellable wait of the worker's checks (a rate-limit slot, a Retry-After
 * pause, the delayed replay) listens on it while it waits. Node warns of a leak past 10 listeners, but the checks in
 * flight (the run's concurrency, plus a slot for each check that waits: a vendor document's delayed replays, one per
 * POST), each with up to FSAPI_IDEMPOTENCY_PARALLEL requests waiting for a rate-limit slot, are more than that by
 * design; the bound is what the plan allows (plus the client's own listener), so a listener left behind by every
 * check would still be reported.
 */
export function runCancellation(cfg: Pick<WorkerConfig, 'checksInFlight' | 'idempotencyParallel'>): AbortController {
  const abort = new AbortController();
  setMaxListeners(cfg.checksInFlight * Math.max(1, cfg.idempotencyParallel) + 1, abort.signal);
  return abort;
}

export { seedFor };

/**
 * The package root loads every locale (3.7 MB of JavaScript, 0.3 s in each thread that imports it); the English
 * entry loads one. It exports an instance, not the class: the class is its constructor, and its definitions are
 * English over the base locale, already merged (which also spares each new instance the merge).
 */
const FakerClass = englishFaker.constructor as typeof Faker;
const ENGLISH = englishFaker.rawDefinitions;

/**
 * Instances whose check has ended, for the next check to reseed: building one binds every method of every
 * module (about 0.25 ms), and seeding resets all the state an instance has.
 */
const idle: Faker[] = [];

export function seededFaker(runSeed: number, label: string): Faker {
  const f = idle.pop() ?? new FakerClass({ locale: ENGLISH });
  f.seed(seedFor(runSeed, label));
  return f;
}

/** Hands back an instance from seededFaker() that nothing will use again. */
export function releaseFaker(f: Faker): void {
  idle.push(f);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** One JSON line per request sent: method, redacted URL and headers, the full (redacted) body, and the answer's status. */
function appendTrace(rt: WorkerRuntime, file: string, x: RecordedExchange, spec: RequestSpec): void {
  const raw = spec.body ?? (spec.json !== undefined ? JSON.stringify(spec.json) : undefined);
  const body = raw === undefined ? undefined : rt.redactor.text(typeof raw === 'string' ? raw : raw.toString('utf8'));
  const line = { at: x.started_at, method: x.request.method, url: x.request.url, headers: x.request.headers, ...(body !== undefined ? { body } : {}), status: x.response?.status ?? null };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/**
 * A request for an operation, with what it breaks on purpose when it is a probe (the traffic observer judges its
 * answer by that), and the values in it that the suite made up from the document (src/values/made-up.ts).
 */
export type OperationRequest = RequestSpec & {
  /** The operation exercised, so every response can be checked against the contract. */
  operation?: Operation;
  probe?: Probe;
  madeUp?: MadeUpValue[];
};

/**
 * Builds and sends a request for an operation, the way every caller (checks and worlds) does it: default
 * headers, path filled, live-write guard, evidence and traffic observation.
 */
export function operationRequest(
  rt: WorkerRuntime,
  op: Operation,
  parts: RequestParts,
  opts: CallOptions,
  freshKey: () => string,
): OperationRequest {
  const { cfg } = rt;
  const principal = opts.as === 'second' ? cfg.credentials.second : { apiKey: cfg.credentials.apiKey, tenantId: cfg.credentials.tenantId };
  if (!principal) throw new CheckSkipped('no second business configured (FSAPI_SECOND_API_KEY, FSAPI_SECOND_TENANT_ID)', 'credential');
  guardLiveWrite(cfg, op.method);
  const headers: Record<string, string | undefined> = {
    accept: acceptFor(op),
    'Api-Key': principal.apiKey,
    'x-tenant-id': principal.tenantId,
  };
  const madeUp: MadeUpValue[] = [];
  // Query and header parameters the document requires (besides the seed's headers), when the caller gives none: a
  // request without them is refused for the suite's omission, whatever the requirement under test.
  const query = { ...parts.query, ...opts.query };
  for (const p of op.parameters) {
    if (!p.required || (p.in !== 'header' && p.in !== 'query')) continue;
    if (p.in === 'header' ? SEED_HEADERS.has(p.name.toLowerCase()) : query[p.name] !== undefined) continue;
    const v = documentValue(rt.catalogue.spec, p, seedFor(cfg.seed, `${op.operationId}:${p.in}:${p.name}`));
    if (!v) continue;
    if (p.in === 'header') headers[p.name] = String(v.value);
    else query[p.name] = v.value;
    madeUp.push({ in: p.in, name: p.name, value: String(v.value), origin: v.origin });
  }
  // A body on GET or DELETE only where the document requires one (Stripe's reads declare an optional empty form).
  const sendsBody = (op.method !== 'GET' && op.method !== 'DELETE') || op.requestBody?.required === true;
  const media = requestMediaOf(op);
  const encoded = opts.rawBody === undefined && parts.body !== undefined && sendsBody ? encodeBody(rt.catalogue.spec, media, parts.body) : undefined;
  if (opts.rawBody !== undefined) headers['content-type'] = 'application/json';
  else if (encoded) headers['content-type'] = encoded.contentType;
  if (op.method === 'POST') headers['Idempotency-Key'] = opts.idempotencyKey === null ? undefined : (opts.idempotencyKey ?? freshKey());
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    // Header names are case-insensitive: an override replaces the default whatever its case.
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === k.toLowerCase()) delete headers[existing];
    headers[k] = v;
  }
  const path = filledPath(op, parts);
  // The made-up values the request still carries as sent (a check may have put its own in their place).
  // The body as text only when a made-up value may be in it (most requests carry none: no serialising for nothing).
  let sentBody: string | undefined;
  const bodyText = () => (sentBody ??= opts.rawBody !== undefined ? String(opts.rawBody) : parts.body !== undefined ? JSON.stringify(parts.body) : '');
  for (const v of madeUpOf(parts)) {
    const still =
      v.in === 'path' ? parts.pathParams?.[v.name] === v.value : v.in === 'query' ? String(query[v.name]) === v.value : v.in === 'header' ? headers[v.name] === v.value : bodyText().includes(v.value);
    if (still) madeUp.push(v);
  }
  return {
    method: op.method,
    path,
    query,
    headers,
    ...(opts.rawBody !== undefined ? { body: opts.rawBody } : encoded ? ('json' in encoded ? { json: encoded.json } : { body: encoded.body }) : {}),
    operation: op,
    ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
    ...(opts.evidenceBytes ? { evidenceBytes: opts.evidenceBytes } : {}),
    ...(opts.probe ? { probe: opts.probe } : {}),
    ...(madeUp.length ? { madeUp } : {}),
  };
}

/** A body in the operation's request media type: JSON (any +json type), a url-encoded form or a multipart one. */
function encodeBody(spec: SpecDocument, media: MediaSpec | undefined, body: unknown): { contentType: string } & ({ json: unknown } | { body: string | Buffer }) {
  const type = media?.mediaType ?? 'application/json';
  if (type === 'application/x-www-form-urlencoded') return { contentType: type, body: urlEncodedBody(body, media?.encoding) };
  if (type === 'multipart/form-data') {
    const binary = new Set([...propertiesOf(spec, media?.schema)].filter(([, s]) => s['format'] === 'binary' || s['contentMediaType'] !== undefined).map(([k]) => k));
    const m = multipartBody(body, media?.encoding, binary);
    return { contentType: m.contentType, body: m.body };
  }
  if (typeof body === 'string' && !/json/.test(type)) return { contentType: type, body };
  return { contentType: /json/.test(type) ? type : 'application/json', json: body };
}

/** Headers the suite itself sends (the seed's and HTTP's own), never taken from a document's parameters. */
const SEED_HEADERS = new Set(['api-key', 'x-tenant-id', 'idempotency-key', 'content-type', 'accept', 'authorization', 'content-length', 'host']);

/**
 * What to accept: JSON where the operation answers it; else the JSON type it documents (`application/vnd.api+json`),
 * else every media type its successes document (a PDF statement), whose answers are then not judged as JSON.
 */
function acceptFor(op: Operation): string {
  let accept = acceptOf.get(op);
  if (accept === undefined) acceptOf.set(op, (accept = documentedAccept(op)));
  return accept;
}

/** Each operation's Accept, worked out once: it depends on the document alone, and every request asks. */
const acceptOf = new WeakMap<Operation, string>();

function documentedAccept(op: Operation): string {
  // A document that requires an Accept header of its own (Dwolla's vnd.dwolla.v1.hal+json) says what to send.
  const declared = op.parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === 'accept');
  const schema = declared && typeof declared.schema === 'object' ? declared.schema : undefined;
  const given = [declared?.example, schema?.['default'], Array.isArray(schema?.['enum']) ? schema['enum'][0] : undefined].find((v): v is string => typeof v === 'string');
  const media = [...new Set(op.responses.filter((r) => r.status.startsWith('2')).flatMap((r) => r.content.map((c) => c.mediaType)))];
  const json = media.filter((m) => /^application\/[\w.+-]+\+json$/.test(m));
  // Only types the suite can judge are asked for: JSON and +json types, wherever the document gives one.
  if (given && (/json/i.test(given) || (!media.includes('application/json') && json.length === 0))) return given;
  if (media.length === 0 || media.includes('application/json')) return 'application/json';
  // Answers documented only in types the suite has no judge for (text/plain, a PDF): asked for as documented, so
  // the target can answer at all, and their bodies are not held to JSON (src/checks/traffic.ts).
  return (json.length ? json : media).join(', ');
}

/**
 * The operation's path with its parameters filled. A parameter the suite has no value for is its own gap (a path
 * parameter no driver, example or binding names), so the check is skipped with the fix, never sent with a hole.
 */
function filledPath(op: Operation, parts: RequestParts): string {
  const missing = missingPathParams(op.path, parts.pathParams ?? {});
  if (missing.length) {
    throw new CheckSkipped(
      `no value for path parameter${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${op.operationId} (${op.method} ${op.path}): bind it to the reference operation it plays and name its parameters (path_params in the binding file), or give the parameter an example in the document`,
      'binding',
    );
  }
  return fillPath(op.path, parts.pathParams ?? {});
}

/** In live, nothing that could write is sent unless --allow-live-writes; the check is skipped instead. */
export function guardLiveWrite(cfg: WorkerConfig, method: string): void {
  if (cfg.environment === 'live' && !cfg.allowLiveWrites && !SAFE_METHODS.has(method.toUpperCase())) {
    throw new CheckSkipped(`live environment: ${method} requests are not sent without --allow-live-writes`, 'live-environment');
  }
}

export async function sendRecorded(
  rt: WorkerRuntime,
  spec: OperationRequest,
  record: (x: RecordedExchange) => void,
  observe?: (op: Operation, res: HttpResponse, probe: Probe | undefined) => void,
): Promise<HttpResponse> {
  const trace = rt.cfg.traceFile;
  // The trace takes every attempt's exchange as recorded: already redacted, with the full request body.
  const res = await rt.client.send(spec, trace ? (x) => (record(x), appendTrace(rt, trace, x, spec)) : record);
  // A "not found" for values the suite made up is the suite's doing, like a probe's 4xx (src/values/made-up.ts).
  if (spec.operation && observe) observe(spec.operation, res, spec.probe ?? (notFoundMadeUp(res, spec.madeUp).length ? 'made-up-value' : undefined));
  return res;
}
