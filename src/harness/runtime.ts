import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { appendFileSync } from 'node:fs';
import type { Faker } from '@faker-js/faker';
import { faker as englishFaker } from '@faker-js/faker/locale/en';
import { loadCatalogue, type Catalogue } from '../catalogue/index.js';
import type { Operation } from '../catalogue/openapi.js';
import { secretsOf } from '../config/run-config.js';
import { TargetClient, type HttpResponse, type RequestSpec } from '../http/client.js';
import { fillPath, missingPathParams } from '../http/path-template.js';
import { sampleParameterValue } from '../catalogue/sample-value.js';
import { RateLimiter } from '../http/rate-limiter.js';
import { Redactor } from '../http/redact.js';
import type { RecordedExchange } from '../results/model.js';
import { CheckSkipped } from './assert.js';
import type { CallOptions, RequestParts } from './check.js';
import type { Probe } from './probe.js';
import type { WorkerConfig } from './worker-config.js';

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
 * pause, the delayed replay) listens on it while it waits. Node warns of a leak past 10 listeners, but 16 checks in
 * flight, each with up to FSAPI_IDEMPOTENCY_PARALLEL requests waiting for a rate-limit slot, are more than that by
 * design; the bound is what the configuration allows (plus the client's own listener), so a listener left behind
 * by every check would still be reported.
 */
export function runCancellation(cfg: Pick<WorkerConfig, 'concurrency' | 'idempotencyParallel'>): AbortController {
  const abort = new AbortController();
  setMaxListeners(cfg.concurrency * Math.max(1, cfg.idempotencyParallel) + 1, abort.signal);
  return abort;
}

/** A 32-bit seed from the run seed and a label (check id, suite name): order-independent determinism. */
export function seedFor(runSeed: number, label: string): number {
  return createHash('sha256').update(`${runSeed}:${label}`).digest().readUInt32BE(0);
}

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

/** A UUID-shaped idempotency key unique to this run, label and counter (never reused across runs). */
export function idempotencyKeyFor(runId: string, label: string, n: number): string {
  const h = createHash('sha256').update(`${runId}|${label}|${n}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** One JSON line per request sent: method, redacted URL and headers, the full (redacted) body, and the answer's status. */
function appendTrace(rt: WorkerRuntime, file: string, x: RecordedExchange, spec: RequestSpec): void {
  const raw = spec.body ?? (spec.json !== undefined ? JSON.stringify(spec.json) : undefined);
  const body = raw === undefined ? undefined : rt.redactor.text(typeof raw === 'string' ? raw : raw.toString('utf8'));
  const line = { at: x.started_at, method: x.request.method, url: x.request.url, headers: x.request.headers, ...(body !== undefined ? { body } : {}), status: x.response?.status ?? null };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/** A request for an operation, with what it breaks on purpose when it is a probe (the traffic observer judges its answer by that). */
export type OperationRequest = RequestSpec & { probe?: Probe };

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
  // Query and header parameters the document requires (besides the seed's headers), when the caller gives none: a
  // request without them is refused for the suite's omission, whatever the requirement under test.
  const query = { ...parts.query, ...opts.query };
  for (const p of op.parameters) {
    if (!p.required) continue;
    if (p.in === 'header' && !SEED_HEADERS.has(p.name.toLowerCase())) headers[p.name] = String(sampleParameterValue(p, rt.catalogue.spec));
    if (p.in === 'query' && query[p.name] === undefined) query[p.name] = sampleParameterValue(p, rt.catalogue.spec);
  }
  if (parts.body !== undefined || opts.rawBody !== undefined) headers['content-type'] = 'application/json';
  if (op.method === 'POST') headers['Idempotency-Key'] = opts.idempotencyKey === null ? undefined : (opts.idempotencyKey ?? freshKey());
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    // Header names are case-insensitive: an override replaces the default whatever its case.
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === k.toLowerCase()) delete headers[existing];
    headers[k] = v;
  }
  return {
    method: op.method,
    path: filledPath(op, parts),
    query,
    headers,
    ...(opts.rawBody !== undefined ? { body: opts.rawBody } : parts.body !== undefined ? { json: parts.body } : {}),
    operation: op,
    ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
    ...(opts.probe ? { probe: opts.probe } : {}),
  };
}

/** Headers the suite itself sends (the seed's and HTTP's own), never taken from a document's parameters. */
const SEED_HEADERS = new Set(['api-key', 'x-tenant-id', 'idempotency-key', 'content-type', 'accept', 'authorization', 'content-length', 'host']);

/** What to accept: JSON, unless every success the operation documents is of another media type (a PDF statement). */
function acceptFor(op: Operation): string {
  const media = [...new Set(op.responses.filter((r) => r.status.startsWith('2')).flatMap((r) => r.content.map((c) => c.mediaType)))];
  return media.length === 0 || media.some((m) => m.includes('json')) ? 'application/json' : media.join(', ');
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
  if (spec.operation && observe) observe(spec.operation, res, spec.probe);
  return res;
}
