/**
 * Request headers and media types: x-tenant-id required and bound to the key's business (profile), request
 * bodies as JSON (seed, Endpoints), and what a body in another media type or malformed JSON gets (RFC 9110).
 * Every write here owns a fresh scope; "not processed" is judged by its effects.
 */
import { requestMediaOf, type Operation } from '../catalogue/openapi.js';
import { lastAnswer, probeAnswer } from '../harness/judge.js';
import { check, describeRequest, expectStatus, fail, STATUS, summariseBody } from '../harness/assert.js';
import type { CheckContext, CheckDef } from '../harness/check.js';
import type { HttpResponse } from '../http/client.js';
import type { CheckFamily } from './plan.js';
import { validRequest } from './requests.js';
import {
  expectUnchanged,
  isCreate,
  isWrite,
  jsonBodyOf,
  scoped,
  skipEffects,
  stateProbe,
  type StateProbe,
} from './support.js';
import type { RequestParts } from '../http/request-parts.js';

type Def = Omit<CheckDef, 'family' | 'group' | 'operation'>;

/** The answer of a request that must be refused: not processed (no 2xx), and the exact status. */
function refusedWith(res: HttpResponse, what: string, status: number): void {
  check(!STATUS.is2xx(res.status), `${describeRequest(res)} ${what} was processed: ${res.status}${summariseBody(res)}`);
  expectStatus(res, status);
}

/** The judge of a refusedUnprocessed check: its probe's answer (a write's state comparison stays the run's). */
const refusalJudge = (op: Operation, probe: string, what: string, status: number): Pick<Def, 'judge' | 'comparesState'> => ({
  judge: (answers) => refusedWith(probeAnswer(answers, [probe]), what, status),
  ...(isWrite(op) ? { comparesState: true } : {}),
});

/** A request that must be refused and not processed: not 2xx, effects unchanged (writes), then the exact status. */
async function refusedUnprocessed(
  ctx: CheckContext,
  op: Operation,
  send: (parts: RequestParts) => Promise<HttpResponse>,
  what: string,
  status: number,
): Promise<void> {
  if (!isWrite(op)) {
    const res = await send(await validRequest(ctx, op));
    refusedWith(res, what, status);
    return;
  }
  const s = await scoped(ctx, op, { fresh: true });
  const probe: StateProbe | string = stateProbe(ctx, s);
  const before = typeof probe === 'string' ? undefined : await probe.read();
  const res = await send(s.parts);
  check(!STATUS.is2xx(res.status), `${describeRequest(res)} ${what} was processed: ${res.status}${summariseBody(res)}`);
  if (typeof probe !== 'string') await expectUnchanged(probe, before!, `${what} (answered ${res.status})`);
  refusedWith(res, what, status);
  if (typeof probe === 'string') skipEffects(ctx, `refused with ${res.status}`, probe);
}

function tenantChecks(op: Operation): Def[] {
  return [
    {
      requirement: 'FSAPI-TEN-101',
      variant: 'no-tenant',
      title: 'a request without x-tenant-id is refused with 400 and not processed',
      writes: isWrite(op),
      run: (ctx) => refusedUnprocessed(ctx, op, (parts) => ctx.call(op, parts, { headers: { 'x-tenant-id': undefined }, probe: 'no-tenant' }), 'without x-tenant-id', 400),
      ...refusalJudge(op, 'no-tenant', 'without x-tenant-id', 400),
    },
    {
      requirement: 'FSAPI-TEN-102',
      variant: 'foreign-tenant',
      title: "the configured key with the second business's x-tenant-id is refused with 403",
      needs: ['second-tenant'],
      writes: isWrite(op),
      async run(ctx) {
        // The second business's own objects, so that a target trusting the header would find and serve them.
        const parts = await validRequest(ctx, op, { fresh: isWrite(op), as: 'second' });
        const other = ctx.config.credentials.second!.tenantId;
        await ctx.call(op, parts, { headers: { 'x-tenant-id': other }, probe: 'foreign-tenant' });
      },
      judge: (answers) => expectStatus(lastAnswer(answers), 403, "status for the second business's x-tenant-id with the configured key"),
    },
  ];
}

/**
 * The JSON-specific probes apply to operations whose body is JSON; an operation that takes a form (Stripe's,
 * Twilio's writes) has them skipped with the reason, not dropped. The seed's own rules (Api-Key, Idempotency-Key)
 * apply to every operation, whatever its media type. Decided from the document when the checks are planned, so
 * the skip comes before any request and `verify` derives it.
 */
function jsonOnly(op: Operation, json: boolean): { inapplicable?: string } {
  return json ? {} : { inapplicable: `${op.operationId} takes ${requestMediaOf(op)?.mediaType ?? 'no'} request bodies, not JSON: this JSON-specific probe does not apply` };
}

function mediaChecks(op: Operation): Def[] {
  const defs: Def[] = [];
  const body = requestMediaOf(op) !== undefined && (op.method !== 'GET' && op.method !== 'DELETE' || op.requestBody?.required === true);
  const json = jsonBodyOf(op) !== undefined;
  if (body && isWrite(op)) {
    defs.push({
      requirement: 'FSAPI-MEDIA-002',
      variant: 'json-body',
      title: 'a valid JSON body sent as application/json is read as JSON (not refused as media or as malformed)',
      writes: true,
      ...jsonOnly(op, op.requestBody?.content.some((c) => c.mediaType === 'application/json') === true),
      async run(ctx) {
        const parts = await validRequest(ctx, op, { fresh: true });
        await ctx.call(op, parts, { headers: { 'content-type': 'application/json' } });
      },
      judge(answers) {
        const res = lastAnswer(answers);
        // Accepted = read and judged on its content: any 2xx, or a business refusal (404/409/422). Which 2xx is
        // documented is FSAPI-CONTRACT-004's question.
        check(res.status !== 415 && res.status !== 400 && res.status < 500, `${describeRequest(res)} with a valid JSON body answered ${res.status}: the JSON body was not accepted${summariseBody(res)}`);
      },
    });
  }
  if (isCreate(op) && body) {
    defs.push(
      {
        requirement: 'FSAPI-MEDIA-101',
        variant: 'text-plain',
        title: 'a valid body labelled text/plain is refused with 415 and creates nothing',
        writes: true,
        ...refusalJudge(op, 'wrong-media-type', 'with a body labelled text/plain', 415),
        ...jsonOnly(op, json),
        async run(ctx) {
          await refusedUnprocessed(
            ctx,
            op,
            (parts) => ctx.call(op, parts, { rawBody: JSON.stringify(parts.body ?? {}), headers: { 'content-type': 'text/plain' }, probe: 'wrong-media-type' }),
            'with a body labelled text/plain',
            415,
          );
        },
      },
      {
        requirement: 'FSAPI-MEDIA-102',
        variant: 'truncated-json',
        title: 'a truncated JSON body is refused with 400',
        writes: true,
        ...jsonOnly(op, json),
        async run(ctx) {
          const parts = await validRequest(ctx, op, { fresh: true });
          const text = JSON.stringify(parts.body ?? {});
          await ctx.call(op, parts, { rawBody: text.slice(0, Math.max(1, Math.floor(text.length / 2))), probe: 'malformed-body' });
        },
        judge(answers) {
          const res = lastAnswer(answers);
          if (res.status >= 500) fail(`${describeRequest(res)} with truncated JSON caused a server error: ${res.status}${summariseBody(res)}`);
          expectStatus(res, 400, 'status for truncated JSON');
        },
      },
    );
  }
  return defs;
}

export const headersFamily: CheckFamily = {
  name: 'headers and media types',
  forOperation(op) {
    if (!op.group) return [];
    return [...tenantChecks(op), ...mediaChecks(op)].map((d) => ({ ...d, family: 'headers' as const, group: op.group!, operation: op.operationId }));
  },
};
