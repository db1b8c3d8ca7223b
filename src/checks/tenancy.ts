/**
 * Tenancy: a key acts only for its own business (seed, Authentication > Keys, rules 1-2, and Request headers).
 * With a second business configured, each business's objects are read with the other's credentials (never
 * served) and every list is walked as both (never a foreign item); and the configured key with the second
 * business's x-tenant-id never sees the second business's data.
 */
import { answersTo, judgeSkips, lastPair, probeAnswer } from '../harness/judge.js';
import { recordedWalk } from '../harness/pages.js';
import type { Operation } from '../catalogue/openapi.js';
import { check, describeRequest, fail, notServerError, STATUS, summariseBody } from '../harness/assert.js';
import type { CheckDef } from '../harness/check.js';
import type { HttpResponse } from '../http/client.js';
import { described, fillList, walk, walkedItems } from './lists.js';
import type { CheckFamily } from './plan.js';
import { validRequest } from './requests.js';
import { isGetById, isList, pagesAsReference, pathParamsOf } from './support.js';

const PAGES = 5;
const LIMIT = 2;

/** Ids an object (or list page) carries at its top level: its id and every *_id reference. */
export function idsOf(json: unknown): Set<string> {
  const out = new Set<string>();
  const add = (o: unknown) => {
    if (typeof o !== 'object' || o === null || Array.isArray(o)) return;
    for (const [k, v] of Object.entries(o)) if ((k === 'id' || k.endsWith('_id')) && typeof v === 'string' && v.length >= 6) out.add(v);
  };
  const data = (json as { data?: unknown } | undefined)?.data;
  if (Array.isArray(data)) data.forEach(add);
  else add(json);
  return out;
}

/** String values of an object that a refusal has no reason to repeat (not the ids named in the request). */
/** Members every object of a kind shares (its type's name, its state): not the first business's data. */
const SHARED_MEMBERS = new Set(['object', 'type', 'kind', 'status', 'state']);

function distinctiveValues(json: unknown, requestUrl: string): string[] {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return [];
  return Object.entries(json)
    .filter(([k]) => !SHARED_MEMBERS.has(k))
    .map(([, v]) => v)
    .filter((v): v is string => typeof v === 'string' && v.length >= 8 && !requestUrl.includes(encodeURIComponent(v)) && !requestUrl.includes(v));
}

/** The object the check asks the other business for must first be readable by its own. */
function readableByOwner(own: HttpResponse): void {
  if (!STATUS.is2xx(own.status)) judgeSkips.skip(`the object cannot be read by its own business: ${describeRequest(own)} answered ${own.status} (FSAPI-CONTRACT-004 judges that)`, 'prerequisite');
}

/** Whether a recorded request carried the second business's key (redacted under its setting's name). */
const bySecond = (r: HttpResponse): boolean => Object.values(r.exchange.request.headers).some((v) => v.includes('FSAPI_SECOND_API_KEY'));

/** The ids a recorded request names in its path (the values of its operation's path parameters), as idsOfRequest reads them from its parts. */
function idsOfUrl(op: Operation, url: string): Set<string> {
  const template = op.path.split('/').filter(Boolean);
  const segments = new URL(url).pathname.split('/').filter(Boolean).slice(-template.length);
  return new Set(template.flatMap((t, i) => (/^\{.+\}$/.test(t) && (segments[i] ?? '').length >= 6 ? [decodeURIComponent(segments[i]!)] : [])));
}

function byIdCheck(op: Operation): CheckDef {
  return {
    requirement: 'FSAPI-TEN-001',
    family: 'tenancy',
    group: op.group!,
    operation: op.operationId,
    variant: 'foreign-object',
    title: "the first business's object read with the second business's credentials is 403 or 404 and reveals nothing",
    needs: ['second-tenant'],
    async run(ctx) {
      // The first business's own object: a made-up id names nobody's.
      const parts = await validRequest(ctx, op, { real: true });
      const own = await ctx.call(op, parts);
      readableByOwner(own);
      await ctx.call(op, parts, { as: 'second', probe: 'foreign-object' });
    },
    judge(answers) {
      const [own, res] = lastPair(answers, op.operationId, op.method);
      readableByOwner(own);
      if (STATUS.is2xx(res.status)) fail(`${describeRequest(res)} with the second business's credentials answered ${res.status}: the first business's object was served`);
      check(res.status === 403 || res.status === 404, `${describeRequest(res)} with the second business's credentials answered ${res.status}${summariseBody(res)}; expected 403 or 404`);
      const leaked = distinctiveValues(own.json, res.exchange.request.url).filter((v) => res.text.includes(v));
      check(leaked.length === 0, `the ${res.status} answer to the second business repeats the first business's data (${leaked.slice(0, 3).join(', ')})`);
    },
  };
}

function listCheck(op: Operation): CheckDef {
  return {
    requirement: 'FSAPI-TEN-001',
    family: 'tenancy',
    group: op.group!,
    operation: op.operationId,
    variant: 'foreign-items',
    title: `walking ${PAGES} pages of ${LIMIT} as each business never lists the other business's objects`,
    needs: ['second-tenant'],
    async run(ctx) {
      const mine = await validRequest(ctx, op, { real: true });
      const theirs = await validRequest(ctx, op, { as: 'second', real: true });
      // Enough objects on each side that the walks reach a second page (where cursors and merges go wrong).
      await Promise.all([fillList(ctx, op, mine, LIMIT * 2 + 1), fillList(ctx, op, theirs, LIMIT * 2 + 1, 'second')]);
      const [a, b] = await Promise.all([walk(ctx, op, mine, { limit: LIMIT, maxPages: PAGES }), walk(ctx, op, theirs, { limit: LIMIT, maxPages: PAGES, as: 'second' })]);
      // A list under the first business's object (its customer's documents), asked for by the second business.
      if (pathParamsOf(op).length > 0 && a.pages.length > 0 && b.pages.length > 0) await ctx.call(op, mine, { as: 'second', probe: 'foreign-object' });
      ctx.observe(`${walkedItems(a).length} items on ${a.pages.length} pages as the first business, ${walkedItems(b).length} on ${b.pages.length} as the second; none foreign`);
    },
    judge(answers) {
      // The two walks are the answers to pages of LIMIT (filling asked for more at once), told apart by whose key
      // the request carried (recorded redacted, under the name of its setting).
      const pages = answersTo(answers, op.operationId, op.method).filter((r) => !r.exchange.probe && new URL(r.exchange.request.url).searchParams.get('limit') === String(LIMIT));
      const a = described(recordedWalk(pages.filter((r) => !bySecond(r))));
      const b = described(recordedWalk(pages.filter(bySecond)));
      const mine = pages.find((r) => !bySecond(r));
      const idsOfMine = mine ? idsOfUrl(op, mine.exchange.request.url) : new Set<string>();
      if (a.pages.length === 0) judgeSkips.skip(`the first business's list cannot be read: ${a.stopped ?? 'no page'}`, 'prerequisite');
      if (b.pages.length === 0) judgeSkips.skip(`the second business's list cannot be read: ${b.stopped ?? 'no page'}`, 'prerequisite');
      const itemsA = walkedItems(a);
      const itemsB = walkedItems(b);
      const knownA = new Set([...itemsA.map((i) => i['id']).filter((x): x is string => typeof x === 'string'), ...idsOfMine]);
      const theirsFirst = pages.find(bySecond);
      const knownB = new Set([...itemsB.map((i) => i['id']).filter((x): x is string => typeof x === 'string'), ...(theirsFirst ? idsOfUrl(op, theirsFirst.exchange.request.url) : [])]);
      const foreignIn = (items: Record<string, unknown>[], other: Set<string>) => items.find((i) => [...idsOf(i)].some((id) => other.has(id)));
      const inB = foreignIn(itemsB, knownA);
      if (inB) fail(`the second business's list (${b.pages.length} pages) holds ${String(inB['id'] ?? JSON.stringify(inB).slice(0, 80))}, which belongs to the first business`);
      const inA = foreignIn(itemsA, knownB);
      if (inA) fail(`the first business's list (${a.pages.length} pages) holds ${String(inA['id'] ?? JSON.stringify(inA).slice(0, 80))}, which belongs to the second business`);
      if (pathParamsOf(op).length > 0) {
        const res = probeAnswer(answers, ['foreign-object']);
        notServerError(res, "with the second business's credentials");
        const served = idsOf(res.json);
        const leaked = [...served].filter((id) => knownA.has(id) && !idsOfMine.has(id));
        if (STATUS.is2xx(res.status) && leaked.length > 0) fail(`${describeRequest(res)} with the second business's credentials listed the first business's objects (${leaked.slice(0, 3).join(', ')})`);
      }
    },
  };
}

function readableBySecond(ref: HttpResponse): void {
  if (!STATUS.is2xx(ref.status)) judgeSkips.skip(`the second business cannot read this itself: ${describeRequest(ref)} answered ${ref.status}`, 'prerequisite');
}

function headerCheck(op: Operation): CheckDef {
  return {
    requirement: 'FSAPI-TEN-002',
    family: 'tenancy',
    group: op.group!,
    operation: op.operationId,
    variant: 'foreign-tenant-header',
    title: "the configured key with the second business's x-tenant-id does not see the second business's data",
    needs: ['second-tenant'],
    async run(ctx) {
      const parts = await validRequest(ctx, op, { as: 'second', real: true });
      if (isList(op)) await fillList(ctx, op, parts, 1, 'second');
      const ref = await ctx.call(op, parts, { as: 'second' });
      readableBySecond(ref);
      await ctx.call(op, parts, { headers: { 'x-tenant-id': ctx.config.credentials.second!.tenantId }, probe: 'foreign-tenant' });
    },
    judge(answers) {
      const [ref, res] = lastPair(answers, op.operationId, op.method);
      readableBySecond(ref);
      // The second business's tenant id, as the probe sent it (recorded; a tenant id is no secret).
      const tenant = Object.entries(res.exchange.request.headers).find(([k]) => k.toLowerCase() === 'x-tenant-id')?.[1];
      const theirs = [...idsOf(ref.json)].filter((id) => id !== tenant);
      notServerError(res, "with the configured key and the second business's x-tenant-id");
      if (!STATUS.is2xx(res.status)) return;
      if (theirs.length === 0) judgeSkips.skip(`answered ${res.status}, but the second business's own view names no object to look for`);
      const seen = theirs.filter((id) => res.text.includes(id));
      check(seen.length === 0, `${describeRequest(res)} with the configured key and the second business's x-tenant-id answered ${res.status} with the second business's data (${seen.slice(0, 3).join(', ')})`);
    },
  };
}

export const tenancyFamily: CheckFamily = {
  name: 'tenancy',
  forOperation(op, plan) {
    if (!op.group || op.method !== 'GET') return [];
    const defs: CheckDef[] = [];
    if (isGetById(op)) defs.push(byIdCheck(op));
    if (pagesAsReference(op, plan.binding)) defs.push(listCheck(op));
    defs.push(headerCheck(op));
    return defs;
  },
};
