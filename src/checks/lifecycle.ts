/**
 * Stateful depth for the operations that play no reference operation (group-only and unbound ones): no driver knows
 * them, so the suite walks their resource's lifecycle as the document offers it (src/values/resources.ts). Each
 * check creates one resource with a body valid for the create's schema, then reads it back by the id its answer
 * gave, finds it in its list, updates it and reads the change back, or deletes it and reads it gone; and deletes
 * what it created at the end where the document offers a delete. Every answer on the way is judged against the
 * document by the traffic observer (schema, status, media type) on a resource that exists, not on a made-up id.
 *
 * A create the target refuses is a refused prerequisite: the later steps are skipped, never failed. On the
 * reference profile every operation plays itself and has a driver, so no resource is walked here.
 */
import type { Operation } from '../catalogue/openapi.js';
import { seedFor } from '../harness/seed.js';
import { check, describeRequest, documentBody, fail, STATUS, summariseBody } from '../harness/assert.js';
import { parameterProblems } from '../values/request-validity.js';
import type { CheckContext, CheckDef } from '../harness/check.js';
import { walkPages } from '../harness/pages.js';
import type { HttpResponse } from '../http/client.js';
import { isObj } from '../json.js';
import { documentValue, validForParameter } from '../values/parameter-value.js';
import { resourceOfStep, type MemberStep, type Resource } from '../values/resources.js';
import { select } from '../values/answer-pointers.js';
import type { CheckFamily, PlanContext } from './plan.js';
import { bodyFromDocument, validRequest } from './requests.js';
import { documented2xx, documentedSuccesses, maxPageSize } from './support.js';
import { carryByPosition } from '../values/producers.js';
import { type RequestParts, madeUpOf, withMadeUp, type MadeUpValue } from '../http/request-parts.js';

/** What one create gave: the id that names it, and the create's own path parameters (its parent's ids). */
interface Made {
  id: string;
  /** The resource as the create's answer gave it. */
  resource: Record<string, unknown>;
  /** The create's path parameters, by name. */
  params: Record<string, string>;
  /** "POST /v1/cards answered 201", for messages. */
  what: string;
}

/** Whether the walk applies: a resource whose create plays no reference operation (its checks have no driver). */
function walked(r: Resource, plan: PlanContext): boolean {
  return plan.binding ? plan.binding.referenceOf(r.create) === undefined : !plan.isReferenceProfile;
}

const value = (v: unknown): v is string | number => (typeof v === 'string' && v !== '') || typeof v === 'number';

/**
 * The create's parent values (its path parameters) as the step will send them too: a value made up from the create's
 * own schema may break the step's (Twilio's ConferenceSid has a pattern on its reads and none on its create), so it
 * is made from the step's schema instead where that value suits the create as well; else the check skips, naming it.
 */
function parentsForStep(ctx: CheckContext, r: Resource, step: MemberStep, parts: RequestParts): RequestParts {
  const madeUp = madeUpOf(parts).filter((v) => v.in === 'path');
  const pathParams = { ...parts.pathParams };
  const remade: MadeUpValue[] = [];
  for (const [mine, theirs] of Object.entries(step.source.carry)) {
    const value = pathParams[mine];
    const theirParam = step.op.parameters.find((p) => p.in === 'path' && p.name === theirs);
    if (value === undefined || !theirParam || !madeUp.some((v) => v.name === mine) || validForParameter(ctx.spec, theirParam, value)) continue;
    const mineParam = r.create.parameters.find((p) => p.in === 'path' && p.name === mine);
    const other = documentValue(ctx.spec, theirParam, seedFor(ctx.config.seed, `${step.op.operationId}:path:${theirs}`));
    if (!other || (mineParam && !validForParameter(ctx.spec, mineParam, String(other.value)))) {
      ctx.skip(`the ${mine} made up for ${r.create.operationId} (${value}) is not valid for ${step.op.operationId}'s ${theirs}, and no value valid for both is known: give the parent an OpenAPI link or a list the suite can read`, 'binding');
    }
    pathParams[mine] = String(other.value);
    remade.push({ in: 'path', name: mine, value: String(other.value), origin: other.origin });
  }
  return withMadeUp({ ...parts, pathParams }, remade);
}

/** Creates one resource for the check, or skips it as a refused prerequisite (the create's own checks judge that). */
async function create(ctx: CheckContext, r: Resource, step: MemberStep): Promise<Made> {
  const parts = parentsForStep(ctx, r, step, await validRequest(ctx, r.create, { fresh: true }));
  const res = await ctx.call(r.create, parts);
  const what = `${describeRequest(res)} answered ${res.status}`;
  if (!STATUS.is2xx(res.status)) ctx.skip(`the create it builds on was refused: ${what}${summariseBody(res)} (FSAPI-CONTRACT-004 judges the create)`, 'prerequisite');
  const id = select(documentBody(res), step.source.select).find(value);
  if (id === undefined) ctx.skip(`${what} without ${step.source.select}, which names the ${r.noun} it created (FSAPI-CONTRACT-001 judges the answer's schema)`, 'prerequisite');
  const resource = select(documentBody(res), step.source.select.split('/').slice(0, -1).join('/'))[0];
  return { id: String(id), resource: isObj(resource) ? resource : {}, params: parts.pathParams ?? {}, what };
}

/**
 * A step's path parameters, valid for its document, or the step skipped: the id the create answered may break the
 * step's own parameter (a uuid declared, `crate_7` answered), and a request the document forbids is no step.
 */
function stepParts(ctx: CheckContext, made: Made, step: MemberStep): RequestParts {
  const parts = memberParts(made, step);
  const invalid = parameterProblems(ctx.spec, step.op, parts);
  if (invalid.length) ctx.skip(`the id the create answered does not fit ${step.op.operationId}: ${invalid.join('; ')}; the target's ids and its document disagree (fix the parameter's schema or the ids)`, 'prerequisite');
  return parts;
}

/** The path parameters of a member operation for what was made: its parents' ids carried over, and its own. */
const memberParts = (made: Made, step: MemberStep): RequestParts => {
  const pathParams: Record<string, string> = { [step.param]: made.id };
  for (const [mine, theirs] of Object.entries(step.source.carry)) if (made.params[mine] !== undefined) pathParams[theirs] = made.params[mine];
  return { pathParams };
};

/**
 * Creates a resource, runs the steps on it, and deletes it afterwards where the document offers a delete and the
 * steps did not (a failure on the way included); a delete refused there is noted, never the check's verdict.
 */
async function onFreshResource(ctx: CheckContext, r: Resource, step: MemberStep, steps: (made: Made, deleted: () => void) => Promise<void>): Promise<void> {
  const made = await create(ctx, r, step);
  let gone = false;
  try {
    await steps(made, () => (gone = true));
  } finally {
    if (!gone && r.delete) {
      try {
        // Cleanup is no check: a delete the document forbids (the create answered an id breaking the delete's
        // parameter format) is not sent; the answer that gave the id is judged against its schema elsewhere.
        const parts = memberParts(made, r.delete);
        const invalid = parameterProblems(ctx.spec, r.delete.op, parts);
        // (No return here: a return in `finally` would swallow the steps' failure.)
        if (invalid.length) {
          ctx.observe(`the ${r.noun} ${made.id} is left behind: a delete by the id the create answered would break the document (${invalid.join('; ')}), so none was sent`);
        } else {
          const res = await ctx.call(r.delete.op, parts);
          if (!STATUS.is2xx(res.status)) ctx.observe(`the ${r.noun} ${made.id} is left behind: ${describeRequest(res)} answered ${res.status}`);
        }
      } catch (e) {
        ctx.observe(`the ${r.noun} ${made.id} is left behind: ${(e as Error).message}`);
      }
    }
  }
}

/** Expects a documented success of a step on the resource just made. */
function expectSuccess(op: Operation, res: HttpResponse, made: Made, r: Resource, what: string): void {
  check(documented2xx(op, res.status), `${describeRequest(res)} answered ${res.status}${summariseBody(res)} ${what} the ${r.noun} ${made.id} (${made.what}); documented successes: ${documentedSuccesses(op)}`);
}

/** A check of the walk on one step's operation: it writes (the create), and needs the operations it calls. */
function walkCheck(op: Operation, requirement: string, variant: string, title: string, uses: Operation[], run: CheckDef['run']): CheckDef {
  // After the suite's other checks: one of them may have taken the first item of this collection's list as its value.
  return { requirement, family: 'lifecycle', group: op.group!, operation: op.operationId, variant: `lifecycle-${variant}`, title, writes: true, after: true, uses: uses.map((o) => o.operationId), run };
}

const show = (v: unknown): string => (v === undefined ? 'absent' : JSON.stringify(v).slice(0, 80));

function readBackCheck(r: Resource, read: NonNullable<Resource['read']>): CheckDef {
  return walkCheck(read.op, 'FSAPI-LIFE-001', 'read', `the ${r.noun} ${r.create.operationId} made reads back by its id, with that id`, [r.create], async (ctx) => {
    await onFreshResource(ctx, r, read, async (made) => {
      const res = await ctx.call(read.op, stepParts(ctx, made, read));
      expectSuccess(read.op, res, made, r, 'to a read of');
      if (!read.idAt) {
        ctx.observe(`${describeRequest(res)} answered ${res.status}; its schema shows no member for the id, so only the status is judged`);
        return;
      }
      const back = select(documentBody(res), read.idAt)[0];
      check(back !== undefined && String(back) === made.id, `${describeRequest(res)} answered ${res.status} with ${read.idAt} ${show(back)}, not ${show(made.id)}: the ${r.noun} that ${made.what} created does not read back`);
      ctx.observe(`${made.what}; ${describeRequest(res)} answered ${res.status} with the same ${read.idAt}`);
    });
  });
}

/** Page size for the walk: a full page where the document allows one, fewer pages to read. */
const PAGE = 100;
const PAGES = 10;

function listedCheck(r: Resource, list: NonNullable<Resource['list']>, step: MemberStep): CheckDef {
  const itemsAt = list.select.slice(0, list.select.indexOf('/*/'));
  return walkCheck(list.op, 'FSAPI-LIFE-002', 'list', `the ${r.noun} ${r.create.operationId} made is found in its list`, [r.create], async (ctx) => {
    await onFreshResource(ctx, r, step, async (made) => {
      const base = await validRequest(ctx, list.op);
      const parts: RequestParts = { ...base, pathParams: { ...base.pathParams } };
      for (const [mine, theirs] of Object.entries(carryByPosition(r.create, list.op))) if (made.params[mine] !== undefined) parts.pathParams![theirs] = made.params[mine];
      // Pages are followed as the reference pages (limit, cursor; has_more, next_cursor): through the binding's
      // list shape when the list plays a reference list, else where the document's list takes those parameters.
      const bound = ctx.binding.referenceOf(list.op)?.entry.list !== undefined;
      const takes = (name: string) => bound || list.op.parameters.some((p) => p.in === 'query' && p.name === name);
      const limit = Math.min(PAGE, maxPageSize(list.op, ctx.binding) ?? PAGE);
      const ids = (res: HttpResponse) => select(documentBody(res), list.select).filter(value).map(String);
      const w = await walkPages((q) => ctx.call(list.op, parts, { query: { ...(takes('limit') ? { limit: q.limit } : {}), ...(q.cursor && takes('cursor') ? { cursor: q.cursor } : {}) } }), {
        limit,
        maxPages: takes('cursor') ? PAGES : 1,
        stop: (page) => ids(page.res).includes(made.id),
        ...(bound ? {} : { itemsOf: (res: HttpResponse) => { const a = select(documentBody(res), itemsAt)[0]; return Array.isArray(a) ? (a as Record<string, unknown>[]) : undefined; } }),
      });
      const n = w.pages.length;
      const seen = w.pages.flatMap((p) => ids(p.res));
      if (seen.includes(made.id)) {
        ctx.observe(`${made.what}; found on page ${n} of ${describeRequest(w.pages[n - 1]!.res)}`);
        return;
      }
      if (w.stopped) {
        const { res, why } = w.stopped;
        if (why === 'status') expectSuccess(list.op, res, made, r, `to the list (page ${n + 1}) that should hold`);
        ctx.skip(`${describeRequest(res)} answered ${res.status} without the array ${itemsAt || '(body)'} the document gives its items in`, 'prerequisite');
      }
      const last = w.pages[n - 1]!;
      const pages = `${n} page${n === 1 ? '' : 's'}`;
      const where = `the ${seen.length} item${seen.length === 1 ? '' : 's'} on ${pages} of ${describeRequest(w.pages[0]!.res)}`;
      // The list is read whole when its last page says so, or when the document gives it no way to page.
      const ended = last.hasMore === false || (last.hasMore === undefined && last.nextCursor === null) ? `the last says has_more ${String(last.hasMore ?? false)}` : !list.op.parameters.some((p) => p.in === 'query' && !p.required) && !bound ? 'the document gives the list no query parameter to page it by' : undefined;
      if (ended) fail(`${made.id}, the ${r.noun} that ${made.what} created, is not among ${where} (${ended})${seen.length ? `: it lists ${seen.slice(0, 3).join(', ')}${seen.length > 3 ? ', ...' : ''}` : ''}`);
      const reached = takes('cursor') && n === PAGES ? `the walk stops at ${PAGES} pages` : 'the suite follows pages only as the reference profile pages (limit, cursor; has_more, next_cursor) or as a bound list\'s binding says';
      ctx.skip(`${made.id}, the ${r.noun} that ${made.what} created, is not among ${where}, and further pages cannot be read (${reached}): whether it is listed is not known`, 'binding');
    });
  });
}

/** Whether a value read back is the one sent: the same, the same number, or the same instant in another spelling. */
function same(sent: unknown, back: unknown): boolean {
  if (sent === back) return true;
  if (typeof sent === 'number' || typeof back === 'number') return Number(sent) === Number(back) && back !== null && back !== '';
  if (typeof sent === 'string' && typeof back === 'string' && /^\d{4}-\d\d-\d\dT/.test(sent)) return Date.parse(sent) === Date.parse(back);
  return false;
}

function updateCheck(r: Resource, update: NonNullable<Resource['update']>, read: NonNullable<Resource['read']>): CheckDef {
  return walkCheck(update.op, 'FSAPI-LIFE-003', 'update', `an update of the ${r.noun} ${r.create.operationId} made reads back as sent`, [r.create, read.op], async (ctx) => {
    await onFreshResource(ctx, r, update, async (made) => {
      const sent = bodyFromDocument(ctx, update.op, { alsoSet: update.writable });
      const body = isObj(sent.body) ? sent.body : {};
      const set = update.writable.filter((m) => body[m] !== undefined);
      if (set.length === 0) ctx.skip(`no body valid for ${update.op.operationId}'s schema sets a member its read shows (${update.writable.join(', ')}): nothing to read back`, 'binding');
      const res = await ctx.call(update.op, withMadeUp({ ...stepParts(ctx, made, update), body: sent.body }, sent.madeUp));
      expectSuccess(update.op, res, made, r, 'to a body valid for its schema, updating');
      const back = await ctx.call(read.op, stepParts(ctx, made, read));
      check(STATUS.is2xx(back.status), `after ${describeRequest(res)} answered ${res.status}, ${describeRequest(back)} answered ${back.status}${summariseBody(back)}: the updated ${r.noun} ${made.id} does not read`);
      const resource = select(documentBody(back), read.resourceAt)[0];
      const got = isObj(resource) ? resource : {};
      const differ = set.filter((m) => !same(body[m], got[m]));
      check(
        differ.length === 0,
        `${describeRequest(res)} answered ${res.status}, but ${describeRequest(back)} reads ${differ.map((m) => `${m} ${show(got[m])} where the update sent ${show(body[m])}`).join(', ')}`,
      );
      ctx.observe(`${describeRequest(res)} answered ${res.status}; ${set.join(', ')} read back as sent`);
    });
  });
}

/** Members that carry a resource's state. */
const STATE = /^(status|state)$/i;

/**
 * Why a read after a delete that still answers 2xx shows the resource deleted, or undefined when it does not: a
 * tombstone (`deleted: true`, as Stripe's), or a soft delete the document's own way, the state the delete answered
 * (and the create did not) read back (the reference profile's external accounts become `removed`).
 */
function tombstone(read: Record<string, unknown>, deleteAnswer: unknown, made: Made): string | undefined {
  if (read['deleted'] === true) return 'deleted: true';
  const answered = isObj(deleteAnswer) ? deleteAnswer : {};
  const m = Object.keys(read).find((k) => STATE.test(k) && read[k] !== undefined && same(answered[k], read[k]) && !same(made.resource[k], read[k]));
  return m ? `${m} ${show(read[m])}, as the delete answered (the create answered ${show(made.resource[m])})` : undefined;
}

function deleteCheck(r: Resource, del: NonNullable<Resource['delete']>, read: NonNullable<Resource['read']>): CheckDef {
  return walkCheck(del.op, 'FSAPI-LIFE-004', 'delete', `the ${r.noun} ${r.create.operationId} made, once deleted, reads 404 or 410 (or deleted, where deletes are soft)`, [r.create, read.op], async (ctx) => {
    await onFreshResource(ctx, r, del, async (made, deleted) => {
      const res = await ctx.call(del.op, stepParts(ctx, made, del));
      expectSuccess(del.op, res, made, r, 'to deleting');
      deleted();
      // The id names nothing any more: a 4xx the document does not list is its gap (FSAPI-CONTRACT-101), not a break.
      const back = await ctx.call(read.op, memberParts(made, read), { probe: 'unknown-id' });
      if (back.status === 404 || back.status === 410) {
        ctx.observe(`${describeRequest(res)} answered ${res.status}; ${describeRequest(back)} answered ${back.status}`);
        return;
      }
      const shown = select(documentBody(back), read.resourceAt)[0];
      const tomb = STATUS.is2xx(back.status) && isObj(shown) ? tombstone(shown, del.resourceAt === undefined ? undefined : select(documentBody(res), del.resourceAt)[0], made) : undefined;
      if (tomb) {
        ctx.observe(`${describeRequest(back)} answered ${back.status} with ${tomb}`);
        return;
      }
      fail(`after ${describeRequest(res)} answered ${res.status}, ${describeRequest(back)} answered ${back.status}${summariseBody(back)}: the deleted ${r.noun} ${made.id} still reads; expected 404 or 410`);
    });
  });
}

export const lifecycleFamily: CheckFamily = {
  name: 'resource lifecycle',
  forOperation(op, plan) {
    if (!op.group) return [];
    const r = resourceOfStep(plan.spec, op);
    if (!r || !walked(r, plan)) return [];
    const step = r.read ?? r.update ?? r.delete;
    const defs: CheckDef[] = [];
    if (r.read?.op === op) defs.push(readBackCheck(r, r.read));
    if (r.list?.op === op && step) defs.push(listedCheck(r, r.list, step));
    if (r.update?.op === op && r.read && r.update.writable.length > 0) defs.push(updateCheck(r, r.update, r.read));
    if (r.delete?.op === op && r.read) defs.push(deleteCheck(r, r.delete, r.read));
    return defs;
  },
};
