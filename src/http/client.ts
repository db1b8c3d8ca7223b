import { isUtf8 } from 'node:buffer';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent, request, type Dispatcher } from './undici.js';
import { EVIDENCE_CAP, evidenceBody, type RecordedExchange } from './exchange.js';
import { RateLimiter } from './rate-limiter.js';
import { RequestLimit, RequestTimedOut } from './request-limit.js';
import type { Redactor } from './redact.js';
import { RateLimited, TransportError, type TransportErrorKind } from './transport-error.js';
import { mediaTypeOf, parseBody } from './body.js';

export { RateLimited, TransportError, type TransportErrorKind };

export interface RequestSpec {
  method: string;
  /** Path relative to the base URL ("customers/cus_1"), or an absolute http(s) URL (probes). */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** A value of undefined leaves the header out. */
  headers?: Record<string, string | undefined>;
  /** Serialised as the JSON body (Content-Type is the caller's choice, set in headers). */
  json?: unknown;
  /** A raw body, sent as is. */
  body?: string | Buffer;
  timeoutMs?: number;
  /** Resends after a 429/503 (default 4): the preflight allows fewer. */
  retries?: number;
  /** How long this request may spend waiting out 429/503 answers (default: the client's retryBudgetMs). */
  retryBudgetMs?: number;
  /** Not the target's traffic (the suite's own webhook receiver): sent at once, outside the run's pacing. */
  unpaced?: boolean;
  /** How much of each body the evidence keeps (EVIDENCE_CAP by default; a judge's reads keep more: JUDGED_BODY_BYTES). */
  evidenceBytes?: number;
}

export interface HttpResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  text: string;
  /** The parsed body when it parses as JSON, else undefined. */
  json: unknown;
  jsonError?: string;
  /** Media type without parameters, lower case; '' when absent. */
  contentType: string;
  sizeBytes: number;
  durationMs: number;
  exchange: RecordedExchange;
}

export interface ClientOptions {
  baseUrl: string;
  caPem?: string;
  /**
   * Trust caPem alone, not the public roots besides: for the embedded sandbox, whose certificate its own CA signs
   * (no public root can vouch for a loopback sandbox, and reading ~140 roots costs every worker ~25 ms).
   */
  caOnly?: boolean;
  timeoutMs: number;
  maxResponseBytes: number;
  redactor: Redactor;
  /** The run's pacing, shared by its threads; by default one of the client's own, without a cap. */
  limiter?: RateLimiter;
  /** Cancels every request of the run (SIGINT). */
  signal?: AbortSignal;
  /** Total time one request may spend waiting out 429/503 answers (30 s). */
  retryBudgetMs?: number;
  /**
   * Total pause of the run for 429/503 answers (120 s), past which they are no longer retried: a target answering
   * 503 to everything cannot stretch a run without bound.
   */
  runRetryBudgetMs?: number;
  onResponse?: (spec: RequestSpec, res: HttpResponse) => void;
}

/**
 * Path segments of unreserved characters (and %-escapes), no dot segment: resolve by concatenation. Each segment ends
 * at a "/" or the end, so a path splits into segments one way only: with an optional "/" the engine tried every split
 * of a long segment, 2^n of them, when the path held one character outside the set (Moov's document: a worker spent
 * minutes on one request's URL).
 */
const PLAIN_PATH = /^(?:[A-Za-z0-9_~-](?:[A-Za-z0-9_.~-]|%[0-9A-Fa-f]{2})*(?:\/|$))*$/;
const MAX_RETRIES = 4;

/**
 * HTTP to one target through one keep-alive undici Agent. TLS is always verified (system roots plus the
 * optional CA); redirects are never followed (a 3xx is returned as is, so no credential crosses origins);
 * every request has a timeout; bodies are cut at a size cap; every exchange is recorded, redacted.
 */
export class TargetClient {
  readonly agent: Agent;
  readonly limiter: RateLimiter;
  private sent = 0;

  constructor(readonly opts: ClientOptions) {
    this.limiter = opts.limiter ?? new RateLimiter(0);
    this.plainBase = opts.baseUrl.endsWith('/') && !opts.baseUrl.includes('?') && !opts.baseUrl.includes('#');
    // One secure context for every connection: building one from ~140 root certificates costs ~25 ms, and
    // passing `ca` to each connect made every new connection pay it.
    const secureContext = createSecureContext({ ca: opts.caPem ? (opts.caOnly ? [opts.caPem] : [...rootCertificates, opts.caPem]) : [...rootCertificates] });
    this.agent = new Agent({
      connect: { secureContext, rejectUnauthorized: true, timeout: backstopMs(opts.timeoutMs) },
      keepAliveTimeout: 10_000,
      connections: 128,
      headersTimeout: backstopMs(opts.timeoutMs),
      bodyTimeout: backstopMs(opts.timeoutMs),
    });
    // The run's cancellation ends every request at once by destroying the agent; a signal on each request made
    // undici add and remove an abort listener per request.
    const { signal } = opts;
    const stop = () => void this.agent.destroy().catch(() => undefined);
    if (signal?.aborted) stop();
    else if (signal) {
      signal.addEventListener('abort', stop, { once: true });
      // A signal can outlive the client (one per process, a client per run): close() takes the listener off.
      this.detach = () => signal.removeEventListener('abort', stop);
    }
  }

  private detach = (): void => {};

  /** A base URL that a plain relative path is simply appended to (ends in "/", no query or fragment). */
  private readonly plainBase: boolean;
  private base: URL | undefined;

  get requestsSent(): number {
    return this.sent;
  }

  url(spec: Pick<RequestSpec, 'path' | 'query'>): string {
    return this.target(spec).url;
  }

  /**
   * The request's URL, and the origin and path it is sent to: given to undici as they are, since its request(url)
   * parses every URL string again (a URL object per request).
   */
  private target(spec: Pick<RequestSpec, 'path' | 'query'>): { url: string; origin: string; path: string } {
    const path = spec.path.charCodeAt(0) === 0x2f ? spec.path.slice(1) : spec.path;
    // Most requests have no query: no URLSearchParams for them.
    let query: URLSearchParams | undefined;
    for (const k in spec.query) {
      const v = spec.query[k];
      if (v !== undefined) (query ??= new URLSearchParams()).append(k, String(v));
    }
    // Most paths are plain segments under the base URL, which resolve to the base followed by the path: no URL
    // object needed. Anything else (absolute URLs, dot segments, characters to encode) is resolved by URL.
    if (this.plainBase && PLAIN_PATH.test(path)) {
      const qs = query?.toString();
      const rest = `${path}${qs ? `?${qs}` : ''}`;
      const base = (this.base ??= new URL(this.opts.baseUrl));
      return { url: `${this.opts.baseUrl}${rest}`, origin: base.origin, path: `${base.pathname}${rest}` };
    }
    const u = /^https?:\/\//i.test(spec.path) ? new URL(spec.path) : new URL(path, this.opts.baseUrl);
    if (query) for (const [k, v] of query) u.searchParams.append(k, v);
    return { url: u.toString(), origin: u.origin, path: `${u.pathname}${u.search}` };
  }

  /**
   * Sends one request; records every attempt. A 429 or 503 is never returned: it slows the whole run (the
   * limiter pauses every request for its Retry-After and lowers the rate) and the request is sent again; one that
   * survives the retries throws RateLimited, so it is never judged as the answer to a requirement.
   */
  async send(spec: RequestSpec, record?: (x: RecordedExchange) => void): Promise<HttpResponse> {
    const { limiter } = this;
    const t0 = performance.now();
    const budget = spec.retryBudgetMs ?? this.opts.retryBudgetMs ?? 30_000;
    const retries = spec.retries ?? MAX_RETRIES;
    if (spec.unpaced) return this.once(spec, record);
    for (let attempt = 0; ; attempt++) {
      const startedAt = await limiter.acquire(this.opts.signal);
      let res: HttpResponse;
      try {
        res = await this.once(spec, record);
      } finally {
        limiter.release();
      }
      if (res.status !== 429 && res.status !== 503) {
        limiter.answered(res.durationMs);
        return res;
      }
      const wait = retryAfterMs(res.headers['retry-after']) ?? 500 * 2 ** attempt;
      const spent = performance.now() - t0;
      const attempts = `${attempt + 1} attempt${attempt ? 's' : ''}`;
      const why =
        attempt >= retries
          ? attempts
          : spent + wait > budget
            ? `${attempts} in ${(spent / 1000).toFixed(1)} s, and ${(wait / 1000).toFixed(1)} s more would pass this request's ${budget / 1000} s retry budget`
            : limiter.waitedMs > (this.opts.runRetryBudgetMs ?? 120_000)
              ? `the run has already paused ${(limiter.waitedMs / 1000).toFixed(0)} s for 429/503 answers, its budget`
              : undefined;
      // The run pauses only for an answer that will be retried; every one of them lowers its rate.
      limiter.throttled(why ? 0 : wait, startedAt);
      if (why) {
        const retryAfterText = res.headers['retry-after'] === undefined ? 'no Retry-After' : `Retry-After ${JSON.stringify(res.headers['retry-after'])}`;
        throw new RateLimited(res.status, `${res.exchange.request.method} ${res.exchange.request.url} still answered ${res.status} (${retryAfterText}) after ${why}`, res.exchange);
      }
    }
  }

  private async once(spec: RequestSpec, record?: (x: RecordedExchange) => void): Promise<HttpResponse> {
    const { redactor } = this.opts;
    const { url, origin, path } = this.target(spec);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(spec.headers ?? {})) if (v !== undefined) headers[k] = v;
    const body = spec.body ?? (spec.json !== undefined ? JSON.stringify(spec.json) : undefined);
    const bodyText = body === undefined ? undefined : typeof body === 'string' ? body : body.toString('utf8');
    const startedAt = new Date();
    const t0 = performance.now();
    const exchange: RecordedExchange = {
      started_at: startedAt.toISOString(),
      duration_ms: 0,
      request: {
        method: spec.method,
        url: redactor.text(url),
        headers: redactor.headers(headers),
        ...(bodyText !== undefined ? evidenceBody(bodyText, redactor, spec.evidenceBytes ?? EVIDENCE_CAP.requestBody) : {}),
      },
    };
    // The time limit is a RequestLimit: the whole exchange, connection to the body's last byte, within timeoutMs,
    // judged once this process has read what arrived (a per-request AbortSignal.timeout combined by AbortSignal.any
    // with the run's signal cost about 0.1 ms of CPU per request, a second per run). undici's own timeouts stay as a
    // backstop only: they end a connection in the timers phase, before an answer waiting on it is read.
    const timeoutMs = spec.timeoutMs ?? this.opts.timeoutMs;
    const deadline = t0 + timeoutMs;
    const limit = new RequestLimit(timeoutMs, timedOut);
    const dispatch = () => {
      this.sent++;
      return request(this.agent, {
        origin,
        path,
        method: spec.method as Dispatcher.HttpMethod,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: limit,
        headersTimeout: backstopMs(timeoutMs),
        bodyTimeout: backstopMs(timeoutMs),
      });
    };
    let res: Dispatcher.ResponseData;
    let raw: Buffer;
    let size = 0;
    try {
      try {
        res = await dispatch();
      } catch (e) {
        const closed = closedBeforeAnswer(e);
        if (!closed || !replayable(spec.method, headers) || this.opts.signal?.aborted || performance.now() >= deadline) throw this.fail(e, exchange, t0, timeoutMs, record);
        // A connection kept alive can be closed by the target as the next request leaves on it (its idle timeout; the
        // more likely the busier this machine): nothing of that request was answered, so a replayable one is sent again,
        // once, as HTTP clients do (RFC 9110 section 9.2.2), and the evidence says so. A second failure is the answer.
        exchange.resent_after = `${closed}: the connection closed before any answer`;
        try {
          res = await dispatch();
        } catch (e2) {
          throw this.fail(e2, exchange, t0, timeoutMs, record);
        }
      }
      const cap = this.opts.maxResponseBytes;
      try {
        raw = await readCapped(res.body, cap, (n) => (size = n));
      } catch (e) {
        const resHeaders = flattenHeaders(res.headers);
        if (e instanceof BodyTooLarge) {
          exchange.duration_ms = Math.round(performance.now() - t0);
          exchange.response = { status: res.statusCode, headers: redactor.headers(resHeaders), size_bytes: size };
          exchange.error = `response body exceeds the ${cap}-byte cap; reading stopped at ${size} bytes`;
          exchange.error_kind = 'too-large';
          record?.(exchange);
          throw new TransportError('too-large', exchange.error, exchange);
        }
        exchange.response = { status: res.statusCode, headers: redactor.headers(resHeaders), size_bytes: size };
        throw this.fail(e, exchange, t0, timeoutMs, record);
      }
    } finally {
      limit.end();
    }
    const resHeaders = flattenHeaders(res.headers);
    const text = raw.toString('utf8');
    const durationMs = performance.now() - t0;
    exchange.duration_ms = Math.round(durationMs);
    exchange.response = { status: res.statusCode, headers: redactor.headers(resHeaders), size_bytes: size, ...evidenceBody(text, redactor, spec.evidenceBytes ?? EVIDENCE_CAP.responseBody) };
    record?.(exchange);
    const contentType = mediaTypeOf(resHeaders['content-type']);
    const parsed = parseBody(text);
    const json = parsed.json;
    let jsonError = parsed.jsonError;
    if (json !== undefined && !isUtf8(raw)) jsonError = 'body is not valid UTF-8';
    const out: HttpResponse = {
      status: res.statusCode,
      headers: resHeaders,
      text,
      json: jsonError ? undefined : json,
      ...(jsonError ? { jsonError } : {}),
      contentType,
      sizeBytes: size,
      durationMs,
      exchange,
    };
    this.opts.onResponse?.(spec, out);
    return out;
  }

  private fail(e: unknown, exchange: RecordedExchange, t0: number, timeoutMs: number, record?: (x: RecordedExchange) => void): TransportError {
    const { kind, message } = classify(e, timeoutMs, this.opts.signal);
    exchange.duration_ms = Math.round(performance.now() - t0);
    exchange.error = this.opts.redactor.text(message);
    exchange.error_kind = kind;
    record?.(exchange);
    return new TransportError(kind, exchange.error, exchange);
  }

  async close(): Promise<void> {
    this.detach();
    await this.agent
      .close()
      .catch(() => this.agent.destroy())
      .catch(() => undefined);
  }
}

class BodyTooLarge extends Error {}

/**
 * The whole body, read through 'data' events (an async iterator per response cost more than the reading). It
 * stops at the size cap (BodyTooLarge); the request's RequestLimit ends a body that stalls or trickles. `progress`
 * learns the bytes read so far.
 */
function readCapped(body: Dispatcher.ResponseData['body'], cap: number, progress: (bytes: number) => void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (b: Buffer) => {
      size += b.length;
      progress(size);
      if (size > cap) {
        body.off('data', onData);
        body.destroy();
        return reject(new BodyTooLarge());
      }
      chunks.push(b);
    };
    body.on('data', onData);
    body.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    body.once('error', reject);
  });
}

/**
 * undici's own time limits, past the RequestLimit's: they fire only should it fail to, since they end a connection
 * before an answer already waiting on it is read.
 */
function backstopMs(timeoutMs: number): number {
  return 2 * timeoutMs + 5_000;
}

/**
 * The error of a request whose limit fell due: the time given back for this process's stalls, and the time it was
 * judged late, when this process was too busy to look sooner.
 */
function timedOut(limit: RequestLimit): Error {
  const notes = [
    ...(limit.givenBackMs ? [`and ${limit.givenBackMs} ms more, given back for the time this process was too busy to send or read`] : []),
    ...(limit.lateMs >= 500 ? [`judged ${limit.lateMs} ms late, this process having been busy; nothing more had arrived by then`] : []),
  ];
  return new RequestTimedOut(`no complete response within ${limit.ms} ms${notes.length ? ` (${notes.join('; ')})` : ''}`);
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** Retry-After in delta-seconds or HTTP-date (RFC 9110 section 10.2.3), capped at 30 s. */
export function retryAfterMs(v: string | undefined): number | undefined {
  if (!v) return undefined;
  const ms = /^\d+$/.test(v.trim()) ? Number(v.trim()) * 1000 : Date.parse(v) - Date.now();
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(ms, 0), 30_000);
}

const TLS_CODES: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed and not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'the certificate chain ends in an untrusted self-signed root',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the certificate is not signed by a trusted CA',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the certificate issuer is not trusted',
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not yet valid',
  ERR_TLS_CERT_ALTNAME_INVALID: "the certificate does not name this host",
  ERR_SSL_WRONG_VERSION_NUMBER: 'the server did not answer TLS (is it plain HTTP?)',
};

/** The code of a transport error, on it or on its cause ('' when neither has one). */
function errorCode(e: unknown): string {
  const err = e as { code?: string; cause?: { code?: string } };
  return err.code ?? err.cause?.code ?? '';
}

/** Codes of a connection that the other side closed or reset (UND_ERR_CLOSED: this side closed it). */
const CLOSED_BY_PEER = ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'];

/** The error's code when a connection closed under a request before any byte of an answer (undici rejects the request before its headers), else undefined. */
function closedBeforeAnswer(e: unknown): string | undefined {
  const code = errorCode(e);
  return CLOSED_BY_PEER.includes(code) ? code : undefined;
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/**
 * Whether a request may be sent again when nothing of it was answered: an idempotent method (RFC 9110 section 9.2.2),
 * or one that carries an Idempotency-Key, which exists so that a retry is safe (Go's net/http replays the same). A
 * POST sent without a key on purpose (a probe) is not replayed.
 */
function replayable(method: string, headers: Record<string, string>): boolean {
  if (IDEMPOTENT_METHODS.has(method.toUpperCase())) return true;
  for (const k in headers) if (k.toLowerCase() === 'idempotency-key' && headers[k]) return true;
  return false;
}

function classify(e: unknown, timeoutMs: number, runSignal?: AbortSignal): { kind: TransportErrorKind; message: string } {
  const err = e as { name?: string; message?: string };
  const code = errorCode(e);
  if (runSignal?.aborted) return { kind: 'aborted', message: 'the run was interrupted before the response arrived' };
  if (e instanceof RequestTimedOut) return { kind: 'timeout', message: e.message };
  if (err.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return { kind: 'timeout', message: `no complete response within ${timeoutMs} ms` };
  }
  if (TLS_CODES[code] || /certificate|SSL|TLS/i.test(err.message ?? '')) {
    return { kind: 'tls', message: `TLS verification failed: ${TLS_CODES[code] ?? err.message} (${code || 'tls'})` };
  }
  if (['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ETIMEDOUT'].includes(code)) {
    return { kind: 'connect', message: `cannot connect (${code})` };
  }
  if (CLOSED_BY_PEER.includes(code) || code === 'UND_ERR_CLOSED') {
    return { kind: 'reset', message: `the connection was closed before the response was complete (${code})` };
  }
  return { kind: 'other', message: `${code ? `${code}: ` : ''}${err.message ?? String(e)}` };
}

