/**
 * Transport (seed, Authentication > Keys, rule 3: all requests over HTTPS): a request sent over plain HTTP is
 * not processed. The probes carry a dummy key, never the configured one, so nothing secret ever travels in
 * clear; a 401 therefore still shows the request was processed (authenticated and refused, over plain HTTP).
 */
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import { fail, notServerError } from '../harness/assert.js';
import type { CheckContext, CheckDef } from '../harness/check.js';
import { answerOf, caseAnswer, noAnswer, type Judge } from '../harness/judge.js';
import type { HttpResponse } from '../http/client.js';
import { TransportError } from '../http/transport-error.js';
import type { CheckFamily } from './plan.js';
import { pathParamsOf, simpleRead } from './support.js';

export const DUMMY_KEY = 'sk_plain_http_probe_not_a_real_key';

/** Statuses that refuse a plain-HTTP request without processing it. */
const REFUSALS = new Set([400, 403, 421, 426]);

/** The case the plain-HTTP probe is recorded as, answered or refused: the judges find it by this name. */
const PROBE_CASE = 'plain-http';

/** A refused connection: the transport errors that show nothing was processed (the probe's pass). */
const REFUSED_KINDS: readonly string[] = ['connect', 'reset'];

/**
 * Sends the probe. A refused connection is recorded as its exchange without an answer (its transport error and
 * kind kept), which a judge sees as status 0; any other transport failure ends the check as an error.
 */
async function probe(ctx: CheckContext, method: 'GET' | 'POST', op: Operation): Promise<HttpResponse> {
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
    res.exchange.case = PROBE_CASE;
    return res;
  } catch (e) {
    if (e instanceof TransportError) e.exchange.case = PROBE_CASE;
    if (e instanceof TransportError && REFUSED_KINDS.includes(e.kind)) return answerOf(e.exchange)!;
    throw e;
  }
}

/**
 * The probe's recorded answer, or undefined for a refused connection; another transport failure (a timeout) was
 * the run's error, never a verdict.
 */
function probeOutcome(answers: readonly HttpResponse[]): HttpResponse | undefined {
  const res = caseAnswer(answers, PROBE_CASE);
  if (!noAnswer(res)) return res;
  const kind = res.exchange.error_kind;
  if (kind !== undefined && REFUSED_KINDS.includes(kind)) return undefined;
  throw new Error(`the plain-HTTP probe ended in ${kind ?? 'an unnamed'} transport failure (${res.exchange.error ?? 'no message'}): nothing to judge`);
}

/** What the probe met, for the check's observation. */
function described(method: string, answers: readonly HttpResponse[]): string {
  const res = probeOutcome(answers);
  if (!res) return `${method} over plain HTTP: connection refused (${caseAnswer(answers, PROBE_CASE).exchange.error ?? 'refused'})`;
  const s = res.status;
  if (REFUSALS.has(s)) return `${method} over plain HTTP answered ${s} (refused)`;
  if (s >= 300 && s < 400) return `${method} over plain HTTP answered ${s} (a redirect; FSAPI-TRANS-003 judges it)`;
  return `${method} over plain HTTP answered ${s}`;
}

/** TRANS-002's judge: refused, a refusal status, or a redirect (TRANS-003's business) pass; anything processed fails. */
function notProcessed(method: string, path: string): Judge {
  return (answers) => {
    const res = probeOutcome(answers);
    if (!res || REFUSALS.has(res.status)) return;
    notServerError(res, 'over plain HTTP');
    if (res.status >= 300 && res.status < 400) return;
    fail(`${method} ${path} over plain HTTP answered ${res.status}: the request was processed (refuse the connection, or answer 403/400/421/426 without processing)`);
  };
}

/** TRANS-003's judge: whatever the probe met, it was not a redirect. */
function notRedirected(path: string): Judge {
  return (answers) => {
    const res = probeOutcome(answers);
    if (!res) return;
    notServerError(res, 'over plain HTTP');
    if (res.status >= 300 && res.status < 400) {
      fail(`GET ${path} over plain HTTP answered ${res.status} redirecting to ${res.headers['location'] ?? '(no Location)'}: a client following it has already sent its key in clear`);
    }
  };
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
          ctx.observe(described('GET', [await probe(ctx, 'GET', get)]));
        },
        judge: notProcessed('GET', get.path),
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
          const res = await probe(ctx, 'GET', get);
          ctx.observe(noAnswer(res) ? 'connection refused' : `answered ${res.status}`);
        },
        judge: notRedirected(get.path),
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
        ctx.observe(described('POST', [await probe(ctx, 'POST', post)]));
      },
      judge: notProcessed('POST', post.path),
    });
  }
  return defs;
}

export const transportFamily: CheckFamily = {
  name: 'transport',
  forSuite: (suite, plan) => (suite === 'transport' ? transportChecks(plan.spec) : []),
};
