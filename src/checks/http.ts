/**
 * HTTP semantics (RFC 9110: 404, 405 with Allow), resource limits (OWASP API4: 413, capped page sizes),
 * pagination (profile: cursor envelope) and the existence of every endpoint group (seed, Endpoint groups).
 */
import type { SuiteSlug } from '../catalogue/groups.js';
import { isGroupSlug } from '../catalogue/groups.js';
import type { Binding } from '../binding/binding.js';
import { pathParamOf } from '../binding/load.js';
import type { Operation, Parameter, SpecDocument } from '../catalogue/openapi.js';
import type { CheckContext } from '../harness/check.js';
import { seedFor } from '../harness/seed.js';
import { isObj } from '../json.js';
import { validForParameter } from '../values/parameter-value.js';
import { generateValid, inlineForeignRefs, loadGenerator } from '../values/generate.js';
import { describeSchema } from '../values/request-validity.js';
import { check, describeRequest, expectStatus, fail, STATUS, summariseBody } from '../harness/assert.js';
import type { CheckDef } from '../harness/check.js';
import { answersTo, caseAnswerIf, judgeSkips, lastAnswer, probeAnswer } from '../harness/judge.js';
import { parseBody } from '../http/body.js';
import { recordedEffects } from './recorded-effects.js';
import type { HttpResponse } from '../http/client.js';
import { described, fillList, itemKey, walk, walkedItems } from './lists.js';
import { recordedWalk } from '../harness/pages.js';
import type { CheckFamily } from './plan.js';
import { driverFor, validRequest } from './requests.js';
import { operationsMatching } from '../results/coverage.js';
import { creatorOf, credentialHeaders, EFFECTS_AFTER, EFFECTS_BEFORE, EFFECTS_UNSEEN, effectsOf, isCreate, isGetById, limitParamOf, maxPageSize, opsOfGroup, pagesAsReference, pathParamsOf, scoped, skipEffects, undeclaredPageSize } from './support.js';

const TWO_MIB = 2 * 1024 * 1024;
const ABSURD_LIMIT = 100_000;

function groupChecks(suite: SuiteSlug, spec: SpecDocument): CheckDef[] {
  if (!isGroupSlug(suite)) return [];
  const ops = opsOfGroup(spec, suite);
  if (ops.length === 0) return [];
  const defs: CheckDef[] = [
    {
      requirement: 'FSAPI-HTTP-001',
      family: 'http',
      group: suite,
      variant: 'unknown-path',
      title: 'an unknown path under the base URL answers 404',
      async run(ctx) {
        await ctx.send({ method: 'GET', path: `fsapi-conformance-no-such-path-${ctx.faker.string.alphanumeric(10).toLowerCase()}`, headers: credentialHeaders(ctx) });
      },
      judge: (answers) => expectStatus(lastAnswer(answers), 404, 'status for an unknown path'),
    },
  ];

  // PUT on each collection (a path without parameters) of the group: no operation documents PUT in the profile.
  const collections = [...new Set(ops.filter((o) => pathParamsOf(o).length === 0).map((o) => o.path))];
  const operationsAt = operationsMatching(spec.operations, '/');
  for (const path of collections) {
    const documented = spec.operations.filter((o) => o.path === path).map((o) => o.method);
    // A PUT another path's template also matches (`/accounts/{address}` for `/accounts/import`) is documented there:
    // a router may take it for that operation, so a 4xx of that operation is no wrong answer to an undocumented method.
    if (documented.includes('PUT') || operationsAt('PUT', `https://target${path}`).length > 0) continue;
    defs.push({
      requirement: 'FSAPI-HTTP-002',
      family: 'http',
      group: suite,
      variant: `put${path.replace(/\//g, '-')}`,
      title: `PUT ${path} answers 405 with Allow: ${documented.join(', ')}`,
      writes: true,
      async run(ctx) {
        await ctx.send({
          method: 'PUT',
          path: path.replace(/^\//, ''),
          headers: { ...credentialHeaders(ctx), 'content-type': 'application/json', 'Idempotency-Key': ctx.idempotencyKey() },
          json: {},
        });
      },
      judge(answers) {
        const res = lastAnswer(answers);
        expectStatus(res, 405, `status for PUT ${path}`);
        const allow = res.headers['allow'];
        check(allow !== undefined && allow.trim() !== '', `405 for PUT ${path} without an Allow header (RFC 9110 section 15.5.6 requires one)`);
        const listed = new Set(allow.split(',').map((m) => m.trim().toUpperCase()));
        const missing = documented.filter((m) => !listed.has(m));
        check(missing.length === 0, `Allow: ${allow} for ${path} lacks the documented ${missing.join(', ')}`);
      },
    });
  }

  const read = ops.find((o) => o.method === 'GET' && pathParamsOf(o).length === 0 && !o.parameters.some((p) => p.in === 'query' && p.required)) ?? ops.find((o) => o.method === 'GET');
  if (read) {
    defs.push({
      requirement: 'FSAPI-GRP-001',
      family: 'http',
      group: suite,
      operation: read.operationId,
      variant: 'group-read',
      title: 'a read of the group answers 2xx',
      async run(ctx) {
        await ctx.call(read, await validRequest(ctx, read));
      },
      judge(answers) {
        const res = lastAnswer(answers);
        check(STATUS.is2xx(res.status), `${describeRequest(res)}, a read of the ${suite} group, answered ${res.status}${summariseBody(res)}`);
      },
    });
  }
  return defs;
}

/** The path parameter naming the resource an operation reads: the one its reference operation's id plays, else by its name. */
function idParamOf(op: Operation, binding: Binding | undefined): ReturnType<typeof pathParamsOf>[number] | undefined {
  const own = pathParamsOf(op);
  const bound = binding?.referenceOf(op);
  const refId = bound ? [...pathParamsOf(bound.ref)].reverse().find((p) => /(^id$|_id$)/.test(p.name)) : undefined;
  const vendorName = bound && refId ? pathParamOf(bound.entry, refId.name, op) : undefined;
  return own.find((p) => p.name === vendorName) ?? [...own].reverse().find((p) => /(^id$|_id$|[a-z]Id$|ID$)/.test(p.name));
}

function unknownIdCheck(op: Operation, binding: Binding | undefined): CheckDef | undefined {
  const idParam = idParamOf(op, binding);
  if (!idParam) return undefined;
  return {
    requirement: 'FSAPI-HTTP-003',
    family: 'http',
    group: op.group!,
    operation: op.operationId,
    variant: 'unknown-id',
    title: `a well-formed unknown ${idParam.name} answers 404`,
    async run(ctx) {
      const parts = await validRequest(ctx, op);
      const known = parts.pathParams?.[idParam.name];
      if (!known) return ctx.skip(`no valid ${idParam.name} to model an unknown one on`);
      const unknown = await unknownLike(ctx, idParam, known);
      await ctx.call(op, { ...parts, pathParams: { ...parts.pathParams, [idParam.name]: unknown } }, { probe: 'unknown-id' });
    },
    // The unknown id is in the request line the message starts with.
    judge: (answers) => expectStatus(probeAnswer(answers, ['unknown-id']), 404, `status for an unknown ${idParam.name}`),
  };
}

/**
 * An id found nowhere, in the form of a known one: same prefix and length, another random tail (a vendor's prefix
 * is its own, cus_, CUST-, ...: an id without it is malformed, not unknown). Where that breaks the parameter's
 * schema (a `format: uuid`, a pattern), one made from the schema instead: a target that checks formats first
 * answers a malformed id 400 or 422, which says nothing of unknown ids.
 */
async function unknownLike(ctx: CheckContext, p: Parameter, known: string): Promise<string> {
  const prefix = /^[A-Za-z]+[_-]/.exec(known)?.[0] ?? '';
  const modelled = `${prefix}${ctx.faker.string.alphanumeric(Math.max(8, known.length - prefix.length))}`;
  if (validForParameter(ctx.spec, p, modelled)) return modelled;
  if (isObj(p.schema) && p.schema['format'] === 'uuid') return ctx.faker.string.uuid();
  await loadGenerator();
  for (let i = 0; i < 5; i++) {
    const made = generateValid(ctx.spec, inlineForeignRefs(ctx.spec, p.schema), seedFor(ctx.config.seed, `${p.name}:unknown:${i}:${known}`));
    const value = made.ok && (typeof made.value === 'string' || typeof made.value === 'number') ? String(made.value) : undefined;
    if (value !== undefined && value !== known && validForParameter(ctx.spec, p, value)) return value;
  }
  return ctx.skip(`no unknown ${p.name} valid for its schema${describeSchema(p.schema)} could be made: give the parameter a pattern or format the suite can fill`, 'binding');
}

/**
 * The body the 2 MiB probe wrapped (recorded cut at the evidence cap): the members before its padding, which it
 * serialised last, so a judge reads the request the driver built and counts its effects again.
 */
export const bodyBeforePadding = (text: string): unknown => {
  const at = text.indexOf(`"${PADDING}":`);
  if (at < 0) return undefined;
  const head = text.slice(0, at).replace(/,\s*$/, '');
  return parseBody(`${head}}`).json;
};

const PADDING = 'fsapi_padding';

function oversizedCheck(op: Operation, binding: Binding | undefined): CheckDef {
  return {
    requirement: 'FSAPI-LIMIT-001',
    family: 'http',
    group: op.group!,
    operation: op.operationId,
    variant: 'two-mib-body',
    title: 'a 2 MiB body is refused with 413 and creates nothing',
    writes: true,
    async run(ctx) {
      const s = await scoped(ctx, op, { fresh: true });
      // The driver's counts, each read recorded as its case (the judge counts again from them), or why there are
      // none; the facts keep the numbers for a reader of the report.
      if (s.count) ctx.fact(EFFECTS_BEFORE, await s.count(s.parts, EFFECTS_BEFORE));
      else ctx.fact(EFFECTS_UNSEEN, s.why);
      const body = { ...(s.parts.body as Record<string, unknown>), [PADDING]: 'x'.repeat(TWO_MIB) };
      await ctx.call(op, s.parts, { rawBody: JSON.stringify(body), probe: 'oversized-body' });
      if (s.count) ctx.fact(EFFECTS_AFTER, await s.count(s.parts, EFFECTS_AFTER));
    },
    judge(answers, facts) {
      const res = probeAnswer(answers, ['oversized-body']);
      check(!STATUS.is2xx(res.status), `${describeRequest(res)} with a 2 MiB body was processed: ${res.status}`);
      // Whether effects were read is what the evidence shows (the reads of case effects_before), not the fact.
      const seen = caseAnswerIf(answers, EFFECTS_BEFORE) !== undefined;
      const unseen = facts[EFFECTS_UNSEEN];
      if (seen && unseen !== undefined) fail(`the recorded fact ${EFFECTS_UNSEEN} (${JSON.stringify(unseen)}) disagrees with the effect reads recorded`);
      if (seen) {
        const sent = { op, exchange: res.exchange, body: (text: string) => bodyBeforePadding(text) };
        const before = recordedEffects(answers, facts, EFFECTS_BEFORE, sent, binding);
        const after = recordedEffects(answers, facts, EFFECTS_AFTER, sent, binding);
        check(effectsOf(judgeSkips, before, after, 1) === 0, `the 2 MiB body was answered ${res.status} but took effect (${before} before, ${after} after)`);
      } else if (unseen === undefined) {
        throw new Error(`neither an effects read nor why there is none (${EFFECTS_UNSEEN}) recorded to judge`);
      }
      expectStatus(res, 413, 'status for a 2 MiB body');
      if (!seen) skipEffects(judgeSkips, `refused with ${res.status}`, String(unseen));
    },
  };
}

/** How many items a list answer's `data` holds, if it has one. */
function pageItems(res: HttpResponse): number | undefined {
  const j = res.json as { data?: unknown } | undefined;
  return Array.isArray(j?.data) ? j.data.length : undefined;
}

function absurdLimitCheck(op: Operation, spec: SpecDocument, binding: Binding | undefined): CheckDef {
  // One list is made to hold more objects than a page may: a child collection of a fresh parent (documents of one customer).
  const creator = creatorOf(spec, op);
  const overfill = creator !== undefined && pathParamsOf(op).length > 0;
  return {
    requirement: 'FSAPI-LIMIT-002',
    family: 'http',
    group: op.group!,
    operation: op.operationId,
    variant: 'absurd-limit',
    title: `limit=${ABSURD_LIMIT} is refused (4xx) or capped at the documented maximum`,
    ...(overfill ? { writes: true, uses: [creator.operationId], timeoutMs: 120_000 } : { leansOnRun: true }),
    async run(ctx) {
      const max = maxPageSize(op, ctx.binding) ?? 100;
      let parts = await validRequest(ctx, op);
      let existing: number | undefined;
      if (overfill && driverFor(ctx, creator)) {
        const make = await scoped(ctx, creator, { fresh: true });
        parts = { ...parts, pathParams: { ...parts.pathParams, ...make.parts.pathParams } };
        existing = max + 1;
        for (let done = 0; done < existing; done += 10) {
          const batch = await Promise.all(Array.from({ length: Math.min(10, existing - done) }, () => ctx.call(creator, make.parts)));
          const bad = batch.find((r) => !STATUS.is2xx(r.status));
          if (bad) ctx.skip(`could not fill the list with ${existing} objects: ${describeRequest(bad)} answered ${bad.status}${summariseBody(bad)}`);
        }
      }
      const res = await ctx.call(op, parts, { query: { limit: ABSURD_LIMIT }, probe: 'over-limit' });
      const items = pageItems(res);
      ctx.observe(STATUS.is4xx(res.status) ? `limit=${ABSURD_LIMIT} refused with ${res.status}` : `limit=${ABSURD_LIMIT} answered ${res.status} with ${items ?? 'no'} items${existing !== undefined ? ` of ${existing}` : ''}`);
    },
    judge(answers) {
      const res = probeAnswer(answers, ['over-limit']);
      if (STATUS.is4xx(res.status)) return;
      const max = maxPageSize(op, binding) ?? 100;
      // The list was filled with one more object than a page may hold when the check made its own (its creates are its evidence).
      const existing = creator && answersTo(answers, creator.operationId, creator.method).length > 0 ? max + 1 : undefined;
      check(STATUS.is2xx(res.status), `${describeRequest(res)} answered ${res.status}${summariseBody(res)}; expected a 4xx or a capped page`);
      const items = pageItems(res);
      if (items === undefined) judgeSkips.skip(`${res.status} without a data array: the page size cannot be judged`);
      check(items <= max, `limit=${ABSURD_LIMIT} was served with ${items} items, more than the documented maximum ${max}`);
      const j = res.json as { has_more?: unknown } | undefined;
      if (existing !== undefined && items === max) check(j?.has_more === true, `a page of ${items} of the ${existing} objects says has_more ${JSON.stringify(j?.has_more)}`);
    },
  };
}

function paginationCheck(op: Operation, binding: Binding | undefined): CheckDef {
  const limitParam = limitParamOf(op, binding);
  return {
    requirement: 'FSAPI-PAGE-001',
    family: 'http',
    group: op.group!,
    operation: op.operationId,
    variant: 'walk-limit-1',
    title: 'five pages of limit=1 repeat no object, respect the limit, advance the cursor and end with has_more false',
    async run(ctx) {
      const parts = await validRequest(ctx, op);
      await fillList(ctx, op, parts, 3);
      const w = await walk(ctx, op, parts, { limit: 1, maxPages: 5 });
      ctx.observe(`${w.pages.length} pages, ${new Set(walkedItems(w).map(itemKey)).size} distinct objects`);
    },
    judge(answers) {
      // The walk's pages are the answers to limit=1 (filling the list asked for more at once).
      // The page-size parameter as sent: a bound list's own name for it.
      const w = described(recordedWalk(answersTo(answers, op.operationId, op.method).filter((r) => new URL(r.exchange.request.url).searchParams.get(limitParam) === '1')));
      // A list that does not answer is not paginated either.
      if (w.pages.length === 0) fail(`the first page of limit=1 cannot be read: ${w.stopped ?? 'no page'}`);
      const seen = new Map<string, number>();
      const cursors = new Set<string>();
      w.pages.forEach((p, i) => {
        const n = i + 1;
        check(p.items.length <= 1, `page ${n} of limit=1 holds ${p.items.length} items`);
        check(p.hasMore !== undefined, `page ${n} has no boolean has_more`);
        for (const item of p.items) {
          const key = itemKey(item);
          const first = seen.get(key);
          if (first !== undefined) fail(`${key.slice(0, 60)} appears on page ${first} and again on page ${n}`);
          seen.set(key, n);
        }
        if (p.hasMore) {
          check(typeof p.nextCursor === 'string' && p.nextCursor.length > 0, `page ${n} says has_more true without a next_cursor`);
          check(!cursors.has(p.nextCursor), `page ${n} hands out next_cursor ${p.nextCursor} again: the cursor does not advance`);
          cursors.add(p.nextCursor);
          if (n < w.pages.length) check(w.pages[n]!.items.length > 0, `page ${n} says has_more true but page ${n + 1} is empty`);
        } else {
          check(n === w.pages.length, `page ${n} says has_more false but the walk went on`);
          check(p.nextCursor === null || p.nextCursor === undefined, `the last page (${n}) still hands out next_cursor ${String(p.nextCursor)}`);
        }
      });
      if (w.stopped) fail(`the walk stopped on page ${w.pages.length + 1}: ${w.stopped}`);
      if (seen.size < 2) judgeSkips.skip(`the list holds ${seen.size} object${seen.size === 1 ? '' : 's'}: nothing to paginate`);
    },
  };
}

export const httpFamily: CheckFamily = {
  name: 'HTTP semantics, limits and pagination',
  forOperation(op, plan) {
    if (!op.group) return [];
    const defs: CheckDef[] = [];
    if (isGetById(op)) {
      const c = unknownIdCheck(op, plan.binding);
      if (c) defs.push(c);
    }
    // LIMIT-001 on the seed's own create (POST /customers), whatever the spec in use calls it.
    if (isCreate(op) && (op.operationId === 'createCustomer' || op.path === '/customers')) defs.push(oversizedCheck(op, plan.binding));
    if (pagesAsReference(op, plan.binding)) {
      const undeclared = undeclaredPageSize(op, plan.binding);
      const applies = undeclared ? { inapplicable: undeclared } : {};
      defs.push({ ...absurdLimitCheck(op, plan.spec, plan.binding), ...applies }, { ...paginationCheck(op, plan.binding), ...applies });
    }
    return defs;
  },
  forSuite: (suite, plan) => groupChecks(suite, plan.spec),
};
