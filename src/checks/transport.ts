/**
 * Transport (seed, Authentication > Keys, rule 3: all requests over HTTPS): a request sent over plain HTTP is
 * not processed. The probes carry a dummy key, never the configured one, so nothing secret ever travels in
 * clear; a 401 therefore still shows the request was processed (authenticated and refused, over plain HTTP).
 */
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import { fail, notServerError } from '../harness/assert.js';
import type { CheckContext, CheckDef } from '../harness/check.js';
import type { HttpResponse } from '../http/client.js';
import { TransportError } from '../http/transport-error.js';
import type { CheckFamily } from './plan.js';
import { pathParamsOf, simpleRead } from './support.js';

export const DUMMY_KEY = 'sk_plain_http_probe_not_a_real_key';

/** Statuses that refuse a plain-HTTP request without processing it. */
const REFUSALS = new Set([400, 403, 421, 426]);

type Outcome = { kind: 'refused'; how: string } | { kind: 'answered'; res: HttpResponse };

async function probe(ctx: CheckContext, method: 'GET' | 'POST', op: Operation): Promise<Outcome> {
  const base = ctx.config.plainHttpUrl;
  if (!base) ctx.skip('no plain-HTTP address to probe (FSAPI_PLAIN_HTTP_URL)', 'credential');
  if (!base.startsWith('http://')) ctx.skip(`the plain-HTTP address ${base} is not an http:// URL`);
  const url = new URL(op.path.replace(/^\//, ''), base.endsWith('/') ? base : `${base}/`).toString();
  const example = op.requestBody?.content.find((c) => c.mediaType === 'application/json')?.examples[0];
  try {
    const res = await ctx.send({
      method,
      path: url,
      headers: {
        accept: 'application/json',
        'Api-Key': DUMMY_KEY,
        'x-tenant-id': ctx.config.credentials.tenantId,
        ...(method === 'POST' ? { 'content-type': 'application/json', 'Idempotency-Key': ctx.idempotencyKey() } : {}),
      },
      ...(method === 'POST' ? { json: example ?? {} } : {}),
    });
    return { kind: 'answered', res };
  } catch (e) {
    if (e instanceof TransportError && (e.kind === 'connect' || e.kind === 'reset')) return { kind: 'refused', how: e.message };
    throw e;
  }
}

/** TRANS-002's verdict on one probe: refused, a refusal status, or a redirect (TRANS-003's business) pass. */
function judgeProcessed(method: string, url: string, o: Outcome): string {
  if (o.kind === 'refused') return `${method} over plain HTTP: connection refused (${o.how})`;
  const s = o.res.status;
  if (REFUSALS.has(s)) return `${method} over plain HTTP answered ${s} (refused)`;
  notServerError(o.res, 'over plain HTTP');
  if (s >= 300 && s < 400) return `${method} over plain HTTP answered ${s} (a redirect; FSAPI-TRANS-003 judges it)`;
  fail(`${method} ${url} over plain HTTP answered ${s}: the request was processed (refuse the connection, or answer 403/400/421/426 without processing)`);
}

function plainOps(spec: SpecDocument): { get: Operation | undefined; post: Operation | undefined } {
  return {
    get: simpleRead(spec),
    post: spec.operations.find((o) => o.method === 'POST' && o.path === '/customers') ?? spec.operations.find((o) => o.method === 'POST' && pathParamsOf(o).length === 0),
  };
}

function transportChecks(spec: SpecDocument): CheckDef[] {
  const { get, post } = plainOps(spec);
  const defs: CheckDef[] = [];
  if (get) {
    defs.push(
      {
        requirement: 'FSAPI-TRANS-002',
        family: 'transport',
        group: 'transport',
        operation: get.operationId,
        variant: 'plain-http-get',
        title: 'a GET over plain HTTP (dummy key) is not processed',
        needs: ['plain-http'],
        async run(ctx) {
          ctx.observe(judgeProcessed('GET', get.path, await probe(ctx, 'GET', get)));
        },
      },
      {
        requirement: 'FSAPI-TRANS-003',
        family: 'transport',
        group: 'transport',
        operation: get.operationId,
        variant: 'plain-http-no-redirect',
        title: 'a GET over plain HTTP is refused, not redirected to HTTPS',
        needs: ['plain-http'],
        async run(ctx) {
          const o = await probe(ctx, 'GET', get);
          if (o.kind === 'answered') notServerError(o.res, 'over plain HTTP');
          if (o.kind === 'answered' && o.res.status >= 300 && o.res.status < 400) {
            fail(`GET ${get.path} over plain HTTP answered ${o.res.status} redirecting to ${o.res.headers['location'] ?? '(no Location)'}: a client following it has already sent its key in clear`);
          }
          ctx.observe(o.kind === 'refused' ? 'connection refused' : `answered ${o.res.status}`);
        },
      },
    );
  }
  if (post) {
    defs.push({
      requirement: 'FSAPI-TRANS-002',
      family: 'transport',
      group: 'transport',
      operation: post.operationId,
      variant: 'plain-http-post',
      title: 'a POST over plain HTTP (dummy key) is not processed',
      needs: ['plain-http'],
      writes: true,
      async run(ctx) {
        if (ctx.config.environment === 'live') ctx.skip('the plain-HTTP POST probe is not sent to a live target', 'live-environment');
        ctx.observe(judgeProcessed('POST', post.path, await probe(ctx, 'POST', post)));
      },
    });
  }
  return defs;
}

export const transportFamily: CheckFamily = {
  name: 'transport',
  forSuite: (suite, plan) => (suite === 'transport' ? transportChecks(plan.spec) : []),
};
