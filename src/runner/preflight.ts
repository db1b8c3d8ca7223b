import type { SpecDocument } from '../catalogue/openapi.js';
import type { Credentials } from '../config/run-config.js';
import { UsageError } from '../errors.js';
import type { TargetClient } from '../http/client.js';
import { fillPath, pathParamNames } from '../http/path-template.js';
import { loadGenerator } from '../values/generate.js';
import { documentValue } from '../values/parameter-value.js';
import { RateLimited, TransportError } from '../http/transport-error.js';
import { securitySchemeNote } from '../results/diagnostics.js';

/** The preflight is a one-off reachability probe: a cold TLS start must not read as "unreachable". */
export const PREFLIGHT_MIN_TIMEOUT_MS = 5_000;
/** A 429/503 at the start is resent at most twice, waiting at most this long in all. */
const PREFLIGHT_RETRY_BUDGET_MS = 10_000;

/**
 * One request before any suite starts: is the target reachable, is its TLS certificate trusted, does the API
 * answer at the base URL (not a server error, which is what a proxy answers when its upstream is down), are the
 * credentials accepted. A dead or misconfigured target gives one message and exit 2, not hundreds of failures.
 */

/**
 * What the preflight's answer can prove depends on what it asked for:
 * - `declared`: a GET the document declares as it is (GET /accounts, the seed's own, else one without path
 *   parameters). Every answer counts: a 404 says the base URL's path is wrong.
 * - `made-up-id`: a GET whose path parameters are filled from the document (its examples, or values made from their
 *   schemas). A 404 may only say that the id names nothing (Open Banking UK's payment initiation has no other GET).
 * - `other-method`: for a document with no GET it can send (Plaid's is all POSTs), a GET of a path it declares for
 *   another method. The route takes no GET, and a gateway may answer such a request with anything: AWS API Gateway
 *   answers a method it does not route with 403 "Missing Authentication Token" whatever the key. Only a target that
 *   cannot be reached, or a gateway that says its upstream is down (502, 503, 504), stops the run.
 */
type ProbeKind = 'declared' | 'made-up-id' | 'other-method';

/** The probe's path, and what its answer can prove (ProbeKind). Only a document without operations is asked for GET /accounts. */
async function probePath(spec: SpecDocument): Promise<{ path: string; kind: ProbeKind }> {
  const gets = spec.operations.filter((o) => o.method === 'GET');
  const plain = gets.find((o) => o.path === '/accounts') ?? gets.find((o) => !o.path.includes('{'));
  if (plain) return { path: fillPath(plain.path, {}), kind: 'declared' };
  const others = spec.operations.filter((o) => o.method !== 'GET');
  const candidates = [...gets, ...others.filter((o) => !o.path.includes('{')), ...others.filter((o) => o.path.includes('{'))];
  if (candidates.some((o) => o.path.includes('{'))) await loadGenerator();
  for (const op of candidates) {
    // Each name in the path filled from the parameter declared for it; a path that names one it does not declare is passed over.
    const names = pathParamNames(op.path);
    const values: Record<string, string> = {};
    for (const name of names) {
      const p = op.parameters.find((x) => x.in === 'path' && x.name === name);
      const v = p && documentValue(spec, p, 0);
      if (v === undefined) break;
      values[name] = String(v.value);
    }
    if (names.every((n) => values[n] !== undefined)) return { path: fillPath(op.path, values), kind: op.method === 'GET' ? 'made-up-id' : 'other-method' };
  }
  return { path: 'accounts', kind: 'declared' };
}

/** A gateway's answer that its upstream is down or too slow, whatever was asked. */
const UPSTREAM_DOWN = new Set([502, 503, 504]);

export async function preflight(client: TargetClient, spec: SpecDocument, creds: Credentials, baseUrl: string): Promise<void> {
  const { path, kind } = await probePath(spec);
  const origin = new URL(baseUrl).origin;
  let status: number;
  let location: string | undefined;
  let server: string | undefined;
  try {
    const res = await client.send({
      method: 'GET',
      path,
      headers: { 'Api-Key': creds.apiKey, 'x-tenant-id': creds.tenantId, accept: 'application/json' },
      timeoutMs: Math.max(client.opts.timeoutMs, PREFLIGHT_MIN_TIMEOUT_MS),
      retries: 2,
      retryBudgetMs: PREFLIGHT_RETRY_BUDGET_MS,
    });
    status = res.status;
    location = res.headers['location'];
    server = res.headers['server'];
  } catch (e) {
    if (e instanceof RateLimited) {
      if (e.status === 503) unavailable(baseUrl, path, 503, e.exchange.response?.headers['server']);
      const retryAfter = e.exchange.response?.headers['retry-after'];
      throw new UsageError(`preflight: the target answers 429 (too many requests${retryAfter ? `, Retry-After ${retryAfter}` : ''}) to the preflight's one request: it limits this client before the run begins`, {
        fix: 'wait until its limit resets (see its Retry-After) and that no other client shares the key, then run again with a lower FSAPI_RATE_LIMIT',
      });
    }
    if (!(e instanceof TransportError)) throw e;
    const fixes: Record<string, string> = {
      tls: 'if the target uses a private CA, set FSAPI_CA_FILE to its certificate (PEM); certificate verification cannot be switched off',
      connect: 'check FSAPI_BASE_URL (host and port) and that the server is running and reachable from here',
      timeout: 'check that the server is up; raise FSAPI_TIMEOUT_MS if it is just slow',
      reset: 'check that the base URL speaks HTTPS on that port',
    };
    throw new UsageError(`preflight: ${origin} ${e.message}`, { fix: fixes[e.kind] ?? 'check FSAPI_BASE_URL and the network path to the target' });
  }
  // A GET of a route that takes none proves nothing but that the target answers (ProbeKind).
  if (kind === 'other-method' && !UPSTREAM_DOWN.has(status)) return;
  if (status >= 500) unavailable(baseUrl, path, status, server);
  if (status >= 300 && status < 400) {
    throw new UsageError(`preflight: ${baseUrl}${path} redirects (${status}${location ? ` to ${location}` : ''}); the suite never follows redirects`, {
      fix: 'set FSAPI_BASE_URL to the final https address of the API',
    });
  }
  if (status === 404 && kind === 'declared') {
    const doubled = doubledSegment(baseUrl, path);
    if (doubled) {
      throw new UsageError(`preflight: nothing answers at ${baseUrl}${path} (404): the document's paths start with /${doubled.segment}/, and the base URL already ends with it`, {
        fix: `set FSAPI_BASE_URL to ${doubled.base}, the address the document's paths are written from (as its servers entry gives it)`,
      });
    }
    throw new UsageError(`preflight: nothing answers at ${baseUrl}${path} (404): the base URL's path looks wrong`, {
      fix: 'FSAPI_BASE_URL must be the base address of the API, ending with its version segment, e.g. https://api.example.com/v1/',
    });
  }
  if (status === 401 || status === 403) {
    const keyFix = 'check that FSAPI_API_KEY is a valid secret key for FSAPI_ENVIRONMENT and belongs to the business FSAPI_TENANT_ID';
    // A document whose scheme is not the seed's Api-Key header says the likelier cause: the target reads its key elsewhere.
    const scheme = securitySchemeNote(spec.raw);
    throw new UsageError(`preflight: the target refused the configured credentials (${status} on GET ${path})${scheme ? `; ${scheme.message}` : ''}`, {
      fix: scheme ? `${scheme.fix}; if it does read Api-Key, ${keyFix}` : keyFix,
    });
  }
}

/** A server error at the base URL: nothing behind it can be tested (a proxy answers 502/503/504 when its upstream is down). */
function unavailable(baseUrl: string, path: string, status: number, server: string | undefined): never {
  const proxy = status === 502 || status === 503 || status === 504;
  throw new UsageError(
    `preflight: GET ${baseUrl}${path} answered ${status}${server ? ` (server: ${server})` : ''}: ${proxy ? 'the server (or a proxy in front of it) cannot serve the API' : 'the API fails with a server error'}; nothing would be tested`,
    { fix: `check that the API's process behind ${new URL(baseUrl).origin} is running and healthy${proxy ? ' (a reverse proxy answers 502/503/504 when its upstream is down or too slow)' : ' (see its logs)'}, then run again` },
  );
}

/**
 * The segment a path repeats from the base URL's end (a vendor's document whose paths start with /v1/, Stripe's, asked
 * under a base URL that ends in /v1/ as the seed's does: every request would go to /v1/v1/...), and the base URL
 * without it.
 */
function doubledSegment(baseUrl: string, path: string): { segment: string; base: string } | undefined {
  const url = new URL(baseUrl);
  const segments = url.pathname.split('/').filter(Boolean);
  const last = segments.at(-1);
  if (!last || path.replace(/^\//, '').split('/')[0] !== last) return undefined;
  const rest = segments.slice(0, -1);
  return { segment: last, base: `${url.origin}/${rest.length ? `${rest.join('/')}/` : ''}` };
}
