/**
 * Observations on the seed's gaps (FSAPI-GAP-001..016, INFO): where the seed says "not shown", these checks
 * make the requests that show what the target chose and record it in one sentence for the gap report.
 * They never fail: only a transport problem (or a prerequisite that cannot be built) makes one error.
 */
import type { SuiteSlug } from '../catalogue/groups.js';
import { isGroupSlug } from '../catalogue/groups.js';
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import { CheckSkipped, answeredId, listItems, STATUS } from '../harness/assert.js';
import type { CheckContext, CheckDef } from '../harness/check.js';
import type { HttpResponse } from '../http/client.js';
import { delay } from '../http/rate-limiter.js';
import { mergedSchema as resolveSchema } from '../catalogue/schema-walker.js';
import type { CheckFamily } from './plan.js';
import { validRequest } from './requests.js';
import { credentialHeaders, isGetById, isWrite, jsonBodyOf, opsOfGroup, pathParamsOf, simpleRead } from './support.js';
import { isObj, type Json } from '../json.js';
import type { RequestParts } from '../http/request-parts.js';
import { FAIL_FIRST_MARKER, type ReceivedDelivery } from '../webhooks/delivery.js';

/** A prerequisite the world or a driver could not build: an observation notes it (only transport problems error). */
const isSetupProblem = (e: unknown): boolean => e instanceof Error && (e.name === 'PreconditionFailed' || e.name === 'EffectsUnobservable');

/** "201 application/json" or "400 application/problem+json {type,title,status}". */
function shape(res: HttpResponse, members = true): string {
  const keys = isObj(res.json) ? Object.keys(res.json) : [];
  return `${res.status} ${res.contentType || '(no Content-Type)'}${members && keys.length ? ` {${keys.join(',')}}` : ''}`;
}

/** The seed's own operations (POST /customers, GET /accounts), found by method and path in the spec in use. */
function seedOp(spec: SpecDocument, method: string, path: string): Operation | undefined {
  return spec.operations.find((o) => o.method === method && o.path === path);
}

const SEED_CUSTOMER_FIELDS = ['first_name', 'last_name', 'middle_name', 'email', 'phone', 'type', 'gender', 'date_of_birth', 'address'];
const SEED_ADDRESS_FIELDS = ['address_line1', 'city', 'country', 'postal_code', 'state'];

function without(body: unknown, path: string[]): unknown {
  const copy = structuredClone(body) as Json;
  let o: unknown = copy;
  for (const seg of path.slice(0, -1)) o = isObj(o) ? o[seg] : undefined;
  if (isObj(o)) delete o[path[path.length - 1]!];
  return copy;
}

type Obs = Omit<CheckDef, 'requirement' | 'family' | 'group'> & { requirement: `FSAPI-GAP-${string}` };

function customerObservations(create: Operation): Obs[] {
  const fresh = (ctx: CheckContext) => validRequest(ctx, create, { fresh: true });
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
          const body = parts.body as Json;
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
        const schema = resolveSchema(ctx.spec, jsonBodyOf(create)?.schema);
        const gender = resolveSchema(ctx.spec, (schema?.['properties'] as Json | undefined)?.['gender'] as Json | undefined);
        const genders = Array.isArray(gender?.['enum']) ? (gender['enum'] as unknown[]).map(String) : ['female', 'male', 'non_binary', 'undisclosed'];
        const results: string[] = [];
        for (const [field, value] of [['type', 'business'], ...genders.map((g) => ['gender', g])] as [string, string][]) {
          const parts = await fresh(ctx);
          const res = await ctx.call(create, { ...parts, body: { ...(parts.body as Json), [field]: value } });
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
        const res = await ctx.call(create, parts, { rawBody: JSON.stringify({ ...(parts.body as Json), fsapi_padding: 'x'.repeat(2 * 1024 * 1024) }), probe: 'oversized-body' });
        ctx.observe(`a 2 MiB body to ${create.method} ${create.path} → ${shape(res, false)}`);
      },
    },
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

function accountObservations(list: Operation, create: Operation | undefined): Obs[] {
  return [
    {
      requirement: 'FSAPI-GAP-004',
      operation: list.operationId,
      variant: 'list-accounts-shape',
      title: 'the envelope, account fields and customer_id filtering of GET /accounts',
      async run(ctx) {
        const account = await ctx.world.account().catch(() => undefined);
        const all = await ctx.call(list, await validRequest(ctx, list));
        const items = listItems(all);
        const first = items?.[0];
        let filtering = 'customer_id filtering not tried';
        const cid = account?.['customer_id'];
        if (typeof cid === 'string') {
          const only = await ctx.call(list, {}, { query: { customer_id: cid } });
          const got = listItems(only);
          filtering = !STATUS.is2xx(only.status)
            ? `?customer_id answered ${only.status}`
            : got && got.every((i) => i['customer_id'] === cid)
              ? `?customer_id narrows the list (${got.length} of that customer's, ${items?.length ?? 0} unfiltered)`
              : `?customer_id does not narrow the list (${got?.length ?? 0} items, not all of that customer)`;
        }
        ctx.observe(`${shape(all)}${first ? `; an account has ${Object.keys(first).join(', ')}` : '; no account listed'}; ${filtering}`);
      },
    },
    {
      requirement: 'FSAPI-GAP-005',
      operation: list.operationId,
      variant: 'pagination-style',
      title: 'the pagination members of lists and the largest accepted limit',
      async run(ctx) {
        const base = await validRequest(ctx, list);
        const res = await ctx.call(list, base);
        const members = isObj(res.json) ? Object.keys(res.json).filter((k) => /cursor|more|page|next|prev|links|total|offset|limit/i.test(k)) : [];
        const tried: string[] = [];
        let largest: number | undefined;
        for (const limit of [20, 100, 101, 1000, 100_000]) {
          const r = await ctx.call(list, base, { query: { limit } });
          tried.push(`limit=${limit} → ${r.status}${STATUS.is2xx(r.status) ? ` (${listItems(r)?.length ?? '?'} items)` : ''}`);
          if (STATUS.is2xx(r.status)) largest = limit;
        }
        ctx.observe(`pagination members: ${members.join(', ') || 'none'}; ${tried.join(', ')}; largest accepted: ${largest ?? 'none'}`);
      },
    },
    {
      requirement: 'FSAPI-GAP-006',
      operation: list.operationId,
      variant: 'tenant-header-required',
      title: 'the status of GET /accounts and POST /customers without x-tenant-id',
      ...(create ? { writes: true, uses: [create.operationId] } : {}),
      async run(ctx) {
        const get = await ctx.call(list, await validRequest(ctx, list), { headers: { 'x-tenant-id': undefined }, probe: 'no-tenant' });
        let post = 'POST /customers not in the spec in use';
        if (create) {
          const res = await ctx.call(create, await validRequest(ctx, create, { fresh: true }), { headers: { 'x-tenant-id': undefined }, probe: 'no-tenant' });
          post = `${create.method} ${create.path} → ${shape(res, false)}`;
        }
        ctx.observe(`without x-tenant-id: ${list.method} ${list.path} → ${shape(get, false)}; ${post}`);
      },
    },
    {
      requirement: 'FSAPI-GAP-009',
      operation: list.operationId,
      variant: 'rate-limit-headers',
      title: 'rate-limit headers announced on responses',
      async run(ctx) {
        const parts = await validRequest(ctx, list);
        const seen = new Map<string, string>();
        for (let i = 0; i < 3; i++) {
          const res = await ctx.call(list, parts);
          for (const [k, v] of Object.entries(res.headers)) if (/^(x-)?rate-?limit|^retry-after$/i.test(k)) seen.set(k, v);
        }
        ctx.observe(seen.size ? `rate-limit headers: ${[...seen].map(([k, v]) => `${k}: ${v}`).join('; ')}` : `no RateLimit-*, X-RateLimit-* or Retry-After header on 3 requests to ${list.method} ${list.path}`);
      },
    },
  ];
}

function webhookObservations(spec: SpecDocument): Obs[] {
  const events = spec.byId.get('listWebhookEvents') ?? spec.operations.find((o) => o.method === 'GET' && o.path === '/webhooks/events');
  const deliveries = spec.byId.get('listWebhookDeliveries') ?? spec.operations.find((o) => o.method === 'GET' && o.path === '/webhooks/deliveries');
  const defs: Obs[] = [
    {
      requirement: 'FSAPI-GAP-012',
      variant: 'signature-headers',
      title: 'the signature-related headers of a webhook delivery',
      needs: ['webhooks'],
      writes: true,
      async run(ctx) {
        const customer = await ctx.world.customer();
        const url = new URL(ctx.config.receiver!.inspectUrl);
        // Only this object's deliveries: the receiver holds the whole run's, which can be megabytes.
        url.searchParams.set('object_id', String(customer['id']));
        url.searchParams.set('min', '1');
        url.searchParams.set('timeout_ms', String(ctx.config.webhookWaitMs));
        const got = await ctx.send({ method: 'GET', path: url.toString(), timeoutMs: ctx.config.webhookWaitMs + 10_000, unpaced: true });
        const list = Array.isArray(got.json) ? (got.json as { headers?: Record<string, string> }[]) : [];
        const d = list[0];
        if (!d?.headers) {
          ctx.observe(`no delivery reached the receiver within ${ctx.config.webhookWaitMs} ms`);
          return;
        }
        const sig = Object.entries(d.headers).filter(([k]) => /webhook|signature|timestamp|svix|hmac|digest/i.test(k));
        ctx.observe(
          sig.length
            ? `delivery headers: ${sig.map(([k, v]) => `${k}: ${/signature/i.test(k) ? `${v.split(',')[0]},<${v.length} characters>` : v}`).join('; ')}`
            : `a delivery arrived without any signature-related header (headers: ${Object.keys(d.headers).join(', ')})`,
        );
      },
    },
  ];
  if (events) {
    defs.push({
      requirement: 'FSAPI-GAP-013',
      operation: events.operationId,
      variant: 'event-types-and-retries',
      title: 'the event types seen and the delay before a failed delivery is retried',
      writes: true,
      async run(ctx) {
        await ctx.world.customer();
        const ev = await ctx.call(events, {}, { query: { limit: 100 } });
        const types = [...new Set((listItems(ev) ?? []).map((e) => e['type']).filter((t): t is string => typeof t === 'string'))].sort();
        let retry = 'no delivery history to read';
        if (ctx.config.receiver) {
          // The receiver fails the first attempt of an object marked fail-first: the retry shows the delay.
          const marked = await ctx.world.newCustomer({ metadata: { [ctx.config.label.metadataKey]: ctx.config.label.metadataValue, fsapi_webhook: FAIL_FIRST_MARKER } });
          const url = new URL(ctx.config.receiver.inspectUrl);
          url.searchParams.set('object_id', String(marked['id']));
          url.searchParams.set('min', '2');
          url.searchParams.set('timeout_ms', String(ctx.config.webhookWaitMs));
          const got = await ctx.send({ method: 'GET', path: url.toString(), timeoutMs: ctx.config.webhookWaitMs + 10_000, unpaced: true });
          const attempts = Array.isArray(got.json) ? (got.json as ReceivedDelivery[]) : [];
          retry =
            attempts.length >= 2
              ? `a delivery the receiver failed (${attempts[0]!.answered}) was retried after ${Date.parse(attempts[1]!.received_at) - Date.parse(attempts[0]!.received_at)} ms`
              : `a delivery the receiver failed was ${attempts.length ? 'not retried' : 'never received'} within ${ctx.config.webhookWaitMs} ms`;
        } else if (deliveries) {
          const dl = await ctx.call(deliveries, {}, { query: { limit: 100 } });
          const delays = (listItems(dl) ?? [])
            .map((d) => (Array.isArray(d['attempts']) ? (d['attempts'] as Json[]) : []))
            .filter((a) => a.length >= 2)
            .map((a) => Date.parse(String(a[1]!['attempted_at'])) - Date.parse(String(a[0]!['attempted_at'])))
            .filter((n) => Number.isFinite(n));
          retry = delays.length ? `retries in the delivery history followed a failed attempt after ${Math.min(...delays)}..${Math.max(...delays)} ms` : 'no retried delivery in the history';
        }
        ctx.observe(`event types seen: ${types.join(', ') || 'none'} (${events.method} ${events.path} answered ${ev.status}); ${retry}`);
      },
    });
  }
  return defs;
}

function versionObservation(spec: SpecDocument): Obs[] {
  const read = simpleRead(spec);
  if (!read) return [];
  return [
    {
      requirement: 'FSAPI-GAP-014',
      operation: read.operationId,
      variant: 'version-headers',
      title: 'API-Version, Deprecation and Sunset headers',
      async run(ctx) {
        const res = await ctx.send({ method: 'GET', path: read.path.replace(/^\//, ''), headers: credentialHeaders(ctx) });
        const seen = Object.entries(res.headers).filter(([k, v]) => /version|deprecation|sunset/i.test(k) || (k === 'link' && /deprecation|sunset|successor/i.test(v)));
        ctx.observe(seen.length ? `version headers: ${seen.map(([k, v]) => `${k}: ${v}`).join('; ')}` : `no API-Version, Deprecation or Sunset header on ${read.method} ${read.path} (${res.status})`);
      },
    },
  ];
}

/** Per group: the statuses its resources show, and which of its operations answer at all. */
function groupObservations(group: string, spec: SpecDocument): Obs[] {
  const ops = opsOfGroup(spec, group);
  const reads = ops.filter((o) => o.method === 'GET');
  const defs: Obs[] = [];
  if (reads.length) {
    defs.push({
      requirement: 'FSAPI-GAP-015',
      variant: 'statuses-seen',
      title: `the status values seen on the ${group} resources`,
      async run(ctx) {
        const byObject = new Map<string, Set<string>>();
        for (const op of reads) {
          let parts: RequestParts;
          try {
            parts = await validRequest(ctx, op);
          } catch (e) {
            if (e instanceof CheckSkipped || isSetupProblem(e)) continue;
            throw e;
          }
          const res = await ctx.call(op, parts, { query: op.parameters.some((p) => p.name === 'limit') ? { limit: 100 } : {} });
          const objects = listItems(res) ?? (isObj(res.json) ? [res.json] : []);
          for (const o of objects) {
            if (typeof o['status'] !== 'string') continue;
            const kind = typeof o['object'] === 'string' ? o['object'] : op.operationId;
            if (!byObject.has(kind)) byObject.set(kind, new Set());
            byObject.get(kind)!.add(o['status']);
          }
        }
        ctx.observe(byObject.size ? [...byObject].map(([k, s]) => `${k}: ${[...s].sort().join(', ')}`).join('; ') : `no status member on the ${group} objects read`);
      },
    });
  }
  defs.push({
    requirement: 'FSAPI-GAP-016',
    variant: 'operations-answering',
    title: `which ${group} operations of the spec in use answer other than 404`,
    writes: ops.some(isWrite),
    async run(ctx) {
      const answers: string[] = [];
      let served = 0;
      for (const op of ops) {
        let parts: RequestParts = {};
        try {
          // A write on an existing object gets one of its own; a write on a collection needs no prerequisite.
          if (!isWrite(op) || pathParamsOf(op).length > 0) parts = await validRequest(ctx, op, { fresh: isWrite(op) });
        } catch (e) {
          if (e instanceof CheckSkipped || isSetupProblem(e)) {
            answers.push(`${op.operationId} not tried (${(e as Error).message.slice(0, 80)})`);
            continue;
          }
          throw e;
        }
        // Writes carry an empty object: enough to find the route, without creating anything where validation runs.
        const res = await ctx.call(op, jsonBodyOf(op) ? { ...parts, body: {} } : parts, { ...(jsonBodyOf(op) ? { probe: 'empty-body' as const } : {}) });
        if (res.status !== 404) served++;
        answers.push(`${op.operationId} ${res.status}`);
      }
      ctx.observe(`${served} of ${ops.length} operations answered other than 404: ${answers.join(', ')}`);
    },
  });
  return defs;
}

/** Observations never fail, and a prerequisite that cannot be built is itself what they record. */
const asChecks = (group: SuiteSlug, obs: Obs[]): CheckDef[] =>
  obs.map((o) => ({
    ...o,
    family: 'observation' as const,
    group,
    async run(ctx) {
      try {
        await o.run(ctx);
      } catch (e) {
        if (!isSetupProblem(e)) throw e;
        ctx.observe(`not observed: a prerequisite could not be built (${(e as Error).message})`);
      }
    },
  }));

export const observationFamily: CheckFamily = {
  name: 'gap observations',
  forSuite(suite, plan) {
    const { spec } = plan;
    const out: CheckDef[] = [];
    if (suite === 'customers') {
      const create = seedOp(spec, 'POST', '/customers');
      if (create) out.push(...asChecks(suite, customerObservations(create)));
    }
    if (suite === 'accounts') {
      const list = seedOp(spec, 'GET', '/accounts');
      if (list) out.push(...asChecks(suite, accountObservations(list, seedOp(spec, 'POST', '/customers'))));
    }
    if (suite === 'webhooks') out.push(...asChecks(suite, webhookObservations(spec)));
    if (suite === 'versioning') out.push(...asChecks(suite, versionObservation(spec)));
    if (isGroupSlug(suite)) out.push(...asChecks(suite, groupObservations(suite, spec)));
    return out;
  },
};
