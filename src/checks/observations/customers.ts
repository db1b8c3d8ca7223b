/** Gap observations on customers: what the target does with the seed's customer fields (FSAPI-GAP-...). */
import type { Operation } from '../../catalogue/openapi.js';
import { answeredId, STATUS } from '../../harness/assert.js';
import type { CheckContext } from '../../harness/check.js';
import { delay } from '../../http/rate-limiter.js';
import { mergedSchema } from '../../catalogue/schema-walker.js';
import { validRequest } from '../requests.js';
import { isGetById, jsonBodyOf, pathParamsOf } from '../support.js';
import { isObj, type JsonObject } from '../../json.js';
import { shape, SEED_CUSTOMER_FIELDS, SEED_ADDRESS_FIELDS, without, type Obs } from './shared.js';

/** A fresh valid create request of the customer: each observation sends its own. */
type Fresh = (ctx: CheckContext) => ReturnType<typeof validRequest>;

export function customerObservations(create: Operation): Obs[] {
  const fresh: Fresh = (ctx) => validRequest(ctx, create, { fresh: true });
  return [...fieldObservations(create, fresh), ...refusalObservations(create, fresh), ...retentionObservations(create, fresh)];
}

/** Which fields and values a create takes, and what it answers. */
function fieldObservations(create: Operation, fresh: Fresh): Obs[] {
  return [
    {
      requirement: 'FSAPI-GAP-001',
      operation: create.operationId,
      variant: 'required-fields',
      title: 'which customer and address fields the target requires',
      writes: true,
      async run(ctx) {
        const refused: string[] = [];
        const accepted: string[] = [];
        const paths = [...SEED_CUSTOMER_FIELDS.map((f) => [f]), ...SEED_ADDRESS_FIELDS.map((f) => ['address', f])];
        for (const path of paths) {
          const parts = await fresh(ctx);
          const body = parts.body as JsonObject;
          const parent = path.length > 1 ? body[path[0]!] : body;
          if (!isObj(parent) || !(path[path.length - 1]! in parent)) continue;
          const res = await ctx.call(create, { ...parts, body: without(body, path) }, { probe: 'invalid-body' });
          (STATUS.is2xx(res.status) ? accepted : refused).push(`${path.join('.')}${STATUS.is2xx(res.status) ? '' : ` (${res.status})`}`);
        }
        ctx.observe(`omitting ${refused.join(', ') || 'no field'} was refused; omitting ${accepted.join(', ') || 'no field'} was accepted`);
      },
    },
    {
      requirement: 'FSAPI-GAP-002',
      operation: create.operationId,
      variant: 'type-and-gender-values',
      title: 'whether type "business" and each gender value are accepted',
      writes: true,
      async run(ctx) {
        const schema = mergedSchema(ctx.spec, jsonBodyOf(create)?.schema);
        const gender = mergedSchema(ctx.spec, (schema?.['properties'] as JsonObject | undefined)?.['gender'] as JsonObject | undefined);
        const genders = Array.isArray(gender?.['enum']) ? (gender['enum'] as unknown[]).map(String) : ['female', 'male', 'non_binary', 'undisclosed'];
        const results: string[] = [];
        for (const [field, value] of [['type', 'business'], ...genders.map((g) => ['gender', g])] as [string, string][]) {
          const parts = await fresh(ctx);
          const res = await ctx.call(create, { ...parts, body: { ...(parts.body as JsonObject), [field]: value } });
          results.push(`${field} ${value} → ${res.status}`);
        }
        ctx.observe(results.join('; '));
      },
    },
    {
      requirement: 'FSAPI-GAP-003',
      operation: create.operationId,
      variant: 'create-response',
      title: 'the status, media type and fields of a created customer',
      writes: true,
      async run(ctx) {
        const res = await ctx.call(create, await fresh(ctx));
        ctx.observe(`${create.method} ${create.path} answered ${shape(res, false)}${isObj(res.json) ? ` with fields ${Object.keys(res.json).join(', ')}` : ''}${res.headers['location'] ? ' and a Location header' : ''}`);
      },
    },
  ];
}

/** How the target refuses: its error bodies, the idempotency statuses, a body too large. */
function refusalObservations(create: Operation, fresh: Fresh): Obs[] {
  return [
    {
      requirement: 'FSAPI-GAP-007',
      operation: create.operationId,
      variant: 'error-bodies',
      title: 'the media type and members of the 400, 401, 404 and 422 bodies',
      writes: true,
      async run(ctx) {
        const seen: string[] = [];
        const parts = await fresh(ctx);
        const malformed = await ctx.call(create, parts, { rawBody: '{"first_name": ', probe: 'malformed-body' });
        seen.push(`malformed JSON → ${shape(malformed)}`);
        const noKey = await ctx.call(create, parts, { headers: { 'Api-Key': undefined }, probe: 'no-key' });
        seen.push(`no Api-Key → ${shape(noKey)}`);
        const getById = ctx.spec.operations.find((o) => isGetById(o) && o.path.startsWith(`${create.path}/{`) && pathParamsOf(o).length === 1);
        if (getById) {
          const unknown = await ctx.call(getById, { pathParams: { [pathParamsOf(getById)[0]!.name]: `cus_fsapiUnknown${ctx.faker.string.alphanumeric(10)}` } }, { probe: 'unknown-id' });
          seen.push(`unknown id → ${shape(unknown)}`);
        }
        const key = ctx.idempotencyKey();
        const first = await ctx.call(create, parts, { idempotencyKey: key });
        if (STATUS.is2xx(first.status)) {
          const other = await fresh(ctx);
          const reused = await ctx.call(create, other, { idempotencyKey: key, probe: 'reused-idempotency-key' });
          seen.push(`reused Idempotency-Key with another body → ${shape(reused)}`);
        }
        ctx.observe(seen.join('; '));
      },
    },
    {
      requirement: 'FSAPI-GAP-008',
      operation: create.operationId,
      variant: 'idempotency-statuses',
      title: 'the status for a missing Idempotency-Key and for a key reused with another body',
      writes: true,
      async run(ctx) {
        const a = await fresh(ctx);
        const missing = await ctx.call(create, a, { idempotencyKey: null, probe: 'no-idempotency-key' });
        const key = ctx.idempotencyKey();
        const first = await ctx.call(create, await fresh(ctx), { idempotencyKey: key });
        const reused = STATUS.is2xx(first.status) ? await ctx.call(create, await fresh(ctx), { idempotencyKey: key, probe: 'reused-idempotency-key' }) : undefined;
        ctx.observe(`missing Idempotency-Key → ${shape(missing, false)}; ${reused ? `the same key with another body → ${shape(reused, false)}` : `no reuse observed (the first request was answered ${first.status})`}`);
      },
    },
    {
      requirement: 'FSAPI-GAP-010',
      operation: create.operationId,
      variant: 'size-limit',
      title: 'the status for a 2 MiB request body',
      writes: true,
      async run(ctx) {
        const parts = await fresh(ctx);
        const res = await ctx.call(create, parts, { rawBody: JSON.stringify({ ...(parts.body as JsonObject), fsapi_padding: 'x'.repeat(2 * 1024 * 1024) }), probe: 'oversized-body' });
        ctx.observe(`a 2 MiB body to ${create.method} ${create.path} → ${shape(res, false)}`);
      },
    },
  ];
}

/** How long the target keeps an idempotency key, at least. */
function retentionObservations(create: Operation, fresh: Fresh): Obs[] {
  return [
    {
      requirement: 'FSAPI-GAP-011',
      operation: create.operationId,
      variant: 'key-retention',
      title: 'whether a replay after the replay delay still replays (a lower bound on retention)',
      writes: true,
      timeoutMs: 660_000,
      waits: true,
      async run(ctx) {
        const parts = await fresh(ctx);
        const key = ctx.idempotencyKey();
        const first = await ctx.call(create, parts, { idempotencyKey: key });
        if (!STATUS.is2xx(first.status)) {
          ctx.observe(`no replay observed: the first request was answered ${first.status}`);
          return;
        }
        const wait = ctx.config.replayDelayMs;
        // A deliberate wait: retention is a matter of time. Cancellable, as the delayed replay's is: an interrupted
        // run does not sit out up to FSAPI_REPLAY_DELAY_MS (10 minutes at most) for it.
        await delay(wait, ctx.signal);
        const again = await ctx.call(create, parts, { idempotencyKey: key });
        const same = again.status === first.status && answeredId(again) === answeredId(first);
        ctx.observe(same ? `a replay ${wait} ms after the first request still replayed (keys are kept at least ${wait} ms)` : `a replay ${wait} ms later was answered ${again.status} with ${answeredId(again) ?? 'no id'}, not the first answer (${first.status}, ${answeredId(first) ?? 'no id'})`);
      },
    },
  ];
}
