/**
 * Idempotency: the seed requires an Idempotency-Key on every POST so that a retried write does not create a
 * duplicate (Endpoints, rule 1), whatever the spec in use declares; the IETF draft adds the error statuses
 * (400 missing, 422 reused with another body, 409 in flight) and the key's scope and comparison.
 * Every check owns a fresh scope, so what it counts is its own doing.
 */
import { answersTo, judgeSkips, lastPair, probeAnswer } from '../harness/judge.js';
import type { Binding } from '../binding/binding.js';
import { recordedEffects } from './recorded-effects.js';
import type { Operation } from '../catalogue/openapi.js';
import { check, describeRequest, expectStatus, fail, answeredId, notServerError, STATUS, summariseBody } from '../harness/assert.js';
import type { CheckContext, CheckDef } from '../harness/check.js';
import type { HttpResponse } from '../http/client.js';
import { PARALLEL_BURST_CASE } from '../http/exchange.js';
import { delay } from '../http/rate-limiter.js';
import type { CheckFamily } from './plan.js';
import { referencePartsOf, vendorParts } from './requests.js';
import { EFFECTS_AFTER, EFFECTS_BEFORE, effectsOf, isCreate, onlyEmptyBody, requireSuccess, requireVisible, scoped, skipEffects, type Scoped } from './support.js';

type Def = Omit<CheckDef, 'family' | 'group' | 'operation' | 'writes'>;

/** Reads the effect count, or skips the rest of the check saying what was judged before. */
async function countOrSkip(ctx: CheckContext, s: Scoped, judged: string, parts = s.parts): Promise<number> {
  if (!s.count) skipEffects(ctx, judged, s.why);
  return s.count(parts);
}

function times(n: number): string {
  return n === 1 ? 'once' : `${n} times`;
}

/** What the first request did to the resource it names, as its operation's kind says (a freeze creates nothing). */
export function firstDid(kind: 'create' | 'action' | 'read' | 'remove', first: HttpResponse, id: string): string {
  if (kind === 'create') return `created ${id}`;
  if (kind === 'remove') return `removed ${id}`;
  const state = (first.json as { status?: unknown } | undefined)?.status;
  if (kind === 'action') return typeof state === 'string' ? `moved ${id} to ${state}` : `acted on ${id}`;
  return `answered with ${id}`;
}

/** Headers that mark a replay: any header of the replay, absent from or different on the first answer, that names idempotency or replay. */
export function replayMarkers(first: HttpResponse, replay: HttpResponse): string[] {
  return Object.entries(replay.headers)
    .filter(([k, v]) => /idempot|replay/i.test(k) && first.headers[k] !== v)
    .map(([k, v]) => `${k}: ${v}`);
}

/** A POST without Idempotency-Key is refused, not processed, and not with a server error. */
function refusedWithoutKey(answers: readonly HttpResponse[]): void {
  const res = probeAnswer(answers, ['no-idempotency-key']);
  check(!STATUS.is2xx(res.status), `${describeRequest(res)} without Idempotency-Key was processed: ${res.status}${summariseBody(res)}`);
  notServerError(res, 'without Idempotency-Key');
}

function noKey(op: Operation): Def[] {
  return [
    {
      requirement: 'FSAPI-IDEM-001',
      judge: refusedWithoutKey,
      comparesState: true,
      variant: 'no-key',
      title: 'a POST without Idempotency-Key is not processed and changes nothing',
      async run(ctx) {
        const s = await scoped(ctx, op, { fresh: true });
        const before = s.count ? await s.count() : undefined;
        const res = await ctx.call(op, s.parts, { idempotencyKey: null, probe: 'no-idempotency-key' });
        refusedWithoutKey([res]);
        if (before === undefined) skipEffects(ctx, `refused with ${res.status}`, s.why);
        const after = await s.count!();
        check(effectsOf(ctx, before, after, 1) === 0, `the POST without Idempotency-Key was answered ${res.status} but took effect: ${op.operationId} effects went from ${before} to ${after}`);
      },
    },
    {
      requirement: 'FSAPI-IDEM-101',
      variant: 'no-key-400',
      title: 'a POST without Idempotency-Key is answered 400',
      async run(ctx) {
        const s = await scoped(ctx, op, { fresh: true });
        await ctx.call(op, s.parts, { idempotencyKey: null, probe: 'no-idempotency-key' });
      },
      judge: (answers) => expectStatus(probeAnswer(answers, ['no-idempotency-key']), 400),
    },
  ];
}

function replay(op: Operation, delayed: boolean): Def {
  const when = delayed ? ' after the replay delay' : '';
  /** The retry answers as the first request did: the same status and resource. */
  const judgeAnswers = (answers: readonly HttpResponse[]) => {
    const [first, second] = lastPair(answers, op.operationId, op.method);
    requireSuccess(judgeSkips, first);
    check(second.status === first.status, `the retry${when} with the same key was answered ${second.status}${summariseBody(second)}; the first request was answered ${first.status}`);
    const id = answeredId(first);
    if (id !== undefined) check(answeredId(second) === id, `the retry${when} with the same key answered ${answeredId(second) ?? 'no id'}; the first request ${firstDid(isCreate(op) ? 'create' : 'action', first, id)}`);
  };
  return {
    judge: judgeAnswers,
    comparesState: true,
    requirement: 'FSAPI-IDEM-002',
    variant: delayed ? 'replay-delayed' : 'replay',
    title: delayed
      ? `a retry after the replay delay (FSAPI_REPLAY_DELAY_MS) with the same key and body answers the same and ${isCreate(op) ? 'creates nothing new' : 'changes nothing more'}`
      : 'a retry with the same key and body answers the same status and resource and takes effect once',
    // The wait is configurable up to 10 minutes; the check's own time limit follows.
    ...(delayed ? { timeoutMs: 660_000, waits: true } : {}),
    async run(ctx) {
      const s = await scoped(ctx, op, { fresh: true });
      const before = s.count ? await s.count() : undefined;
      const key = ctx.idempotencyKey();
      const first = await ctx.call(op, s.parts, { idempotencyKey: key });
      requireSuccess(ctx, first);
      // A deliberate wait: the requirement is about a key some time after its first use (retention), not a race.
      if (delayed) await delay(ctx.config.replayDelayMs, ctx.signal);
      const second = await ctx.call(op, s.parts, { idempotencyKey: key });
      judgeAnswers([first, second]);
      const id = answeredId(first);
      const after = await countOrSkip(ctx, s, `the retry${when} answered the same status${id ? ' and id' : ''}`);
      const n = effectsOf(ctx, before!, after, 2);
      requireVisible(ctx, n, 1);
      check(n === 1, `two requests with one key took effect ${times(n)} (expected once)${when ? ` (retry${when})` : ''}`);
    },
  };
}

/** The same key with another body is not processed like the first. */
function notProcessed(first: HttpResponse, second: HttpResponse): void {
  check(!STATUS.is2xx(second.status), `the same key with a different body was answered ${second.status}${second.status === first.status ? ' like the first request (a replay or a new success)' : ''}${summariseBody(second)}`);
}

function differentBody(op: Operation): Def {
  return {
    judge(answers) {
      const [first, second] = lastPair(answers, op.operationId, op.method);
      requireSuccess(judgeSkips, first);
      notProcessed(first, second);
      expectStatus(second, 422);
    },
    comparesState: true,
    requirement: 'FSAPI-IDEM-102',
    variant: 'different-body',
    title: 'the same key with a different body is refused with 422 and changes nothing',
    // Decided by the document before any request, so that verify derives the skip as the run does.
    ...(onlyEmptyBody(op) ? { inapplicable: `${op.operationId} takes only an empty object (its body schema has maxProperties: 0): there is no different valid body to send with the same key` } : {}),
    async run(ctx) {
      const s = await scoped(ctx, op, { fresh: true });
      const vary = s.driver?.vary;
      if (!vary) return ctx.skip(`no way to build a different body for ${op.operationId} in the same scope (${s.driver ? 'its driver has no vary(): give it one (src/drivers/)' : s.why})`, 'binding');
      const varied = vendorParts(ctx, op, vary.call(s.driver, referencePartsOf(s.parts), s.scope));
      // The effect count is read before and after, never between: the second request follows the first at once.
      const before = s.count ? await s.count() : undefined;
      const key = ctx.idempotencyKey();
      const first = await ctx.call(op, s.parts, { idempotencyKey: key });
      requireSuccess(ctx, first);
      const second = await ctx.call(op, varied, { idempotencyKey: key, probe: 'reused-idempotency-key' });
      notProcessed(first, second);
      if (before === undefined) skipEffects(ctx, `refused with ${second.status}`, s.why);
      // vary() keeps the request in its scope, so the scope's count shows either request taking effect.
      const n = effectsOf(ctx, before, await s.count!(), 2);
      requireVisible(ctx, n, 1);
      check(n === 1, `the same key with a different body was answered ${second.status}, but the two requests took effect ${times(n)} (expected once)`);
      expectStatus(second, 422);
    },
  };
}

/** N identical requests with one key, sent together; recorded as such, since which is answered how is the timing's. */
async function burst(ctx: CheckContext, op: Operation, s: Scoped): Promise<HttpResponse[]> {
  const key = ctx.idempotencyKey();
  const n = ctx.config.idempotencyParallel;
  const answers = await Promise.all(Array.from({ length: n }, () => ctx.call(op, s.parts, { idempotencyKey: key })));
  for (const r of answers) r.exchange.case = PARALLEL_BURST_CASE;
  return answers;
}

function parallel(op: Operation, binding: Binding | undefined): Def[] {
  return [
    {
      requirement: 'FSAPI-IDEM-003',
      variant: 'parallel',
      title: 'identical requests sent in parallel with one key take effect exactly once',
      async run(ctx) {
        const s = await scoped(ctx, op, { fresh: true });
        const count = s.count;
        if (!count) return ctx.skip(`nothing to judge without seeing the effects: ${s.why} (FSAPI-IDEM-103 judges the answers)`, 'binding');
        // The driver's counts (a list walked and filtered to the scope), each read recorded as its case: the judge
        // counts again from those reads; the facts keep the numbers for a reader of the report.
        ctx.fact(EFFECTS_BEFORE, await count(s.parts, EFFECTS_BEFORE));
        const answers = await burst(ctx, op, s);
        if (answers.some((r) => STATUS.is2xx(r.status))) ctx.fact(EFFECTS_AFTER, await count(s.parts, EFFECTS_AFTER));
      },
      judge(recorded, facts) {
        const answers = answersTo(recorded, op.operationId, op.method);
        const ok = answers.filter((r) => STATUS.is2xx(r.status));
        if (ok.length === 0) judgeSkips.skip(`no request of the burst succeeded (${statusTally(answers)}); FSAPI-CONTRACT-004 judges the valid request`, 'prerequisite');
        const sent = { op, exchange: answers[0]!.exchange };
        const n = effectsOf(judgeSkips, recordedEffects(recorded, facts, EFFECTS_BEFORE, sent, binding), recordedEffects(recorded, facts, EFFECTS_AFTER, sent, binding), answers.length);
        requireVisible(judgeSkips, n, ok.length);
        check(n === 1, `${answers.length} parallel requests with one key took effect ${times(n)} (answers: ${statusTally(answers)})`);
      },
    },
    {
      requirement: 'FSAPI-IDEM-103',
      variant: 'parallel-answers',
      title: 'each answer of a parallel burst with one key is 409 or a success naming the one resource',
      async run(ctx) {
        await burst(ctx, op, await scoped(ctx, op, { fresh: true }));
      },
      judge(recorded) {
        const answers = answersTo(recorded, op.operationId, op.method);
        if (!answers.some((r) => STATUS.is2xx(r.status))) judgeSkips.skip(`no request of the burst succeeded (${statusTally(answers)}): no success to compare duplicates with; FSAPI-CONTRACT-004 judges the valid request`, 'prerequisite');
        const others = answers.filter((r) => r.status !== 409 && !STATUS.is2xx(r.status));
        if (others.length) fail(`an answer of the burst was ${others[0]!.status}${summariseBody(others[0]!)} (answers: ${statusTally(answers)}); a duplicate in flight is 409, a replay repeats the success`);
        const ids = [...new Set(answers.filter((r) => STATUS.is2xx(r.status)).map(answeredId).filter((x): x is string => x !== undefined))];
        check(ids.length <= 1, `the successes of one key name ${ids.length} different resources (${ids.slice(0, 4).join(', ')}${ids.length > 4 ? ', ...' : ''}); answers: ${statusTally(answers)}`);
      },
    },
  ];
}

function statusTally(answers: HttpResponse[]): string {
  const t = new Map<number, number>();
  for (const r of answers) t.set(r.status, (t.get(r.status) ?? 0) + 1);
  return [...t].map(([s, n]) => `${n}x${s}`).join(', ');
}

/** The second business's request with the first one's key value is its own, not a replay. */
function ownResource(first: HttpResponse, second: HttpResponse): void {
  check(STATUS.is2xx(second.status), `the second business's request with the first business's key value was answered ${second.status}${summariseBody(second)}: the key is not scoped to the business`);
  const id = answeredId(first);
  if (id !== undefined) check(answeredId(second) !== id, `the second business's request with the same key value was answered with the first business's resource ${id} (a replay across businesses)`);
  const marked = replayMarkers(first, second);
  check(marked.length === 0, `the second business's request with the same key value is marked as a replay (${marked.join('; ')})`);
}

function otherTenant(op: Operation): Def {
  return {
    judge(answers) {
      const [first, second] = lastPair(answers, op.operationId, op.method);
      requireSuccess(judgeSkips, first);
      ownResource(first, second);
    },
    comparesState: true,
    requirement: 'FSAPI-IDEM-104',
    variant: 'other-tenant',
    title: `the same key value from the second business ${isCreate(op) ? 'creates' : 'acts on'} that business's own resource, not a replay`,
    needs: ['second-tenant'],
    async run(ctx) {
      const mine = await scoped(ctx, op, { fresh: true });
      const theirs = await scoped(ctx, op, { fresh: true, as: 'second' });
      const before = theirs.count ? await theirs.count() : undefined;
      const key = ctx.idempotencyKey();
      const first = await ctx.call(op, mine.parts, { idempotencyKey: key });
      requireSuccess(ctx, first);
      const second = await ctx.call(op, theirs.parts, { idempotencyKey: key, as: 'second' });
      ownResource(first, second);
      if (before === undefined) skipEffects(ctx, `answered ${second.status} with its own resource`, theirs.why);
      const n = effectsOf(ctx, before, await theirs.count!(), 1);
      requireVisible(ctx, n, 1);
      check(n === 1, `the second business's request took effect ${times(n)} in its own scope (expected once)`);
    },
  };
}

function exactKeys(op: Operation, variant: 'key-case' | 'key-long'): Def {
  const how = variant === 'key-case' ? 'a key differing only in letter case' : 'a long key differing only in its last character';
  /** Two keys that differ are two requests: the second is a success of its own. */
  const twoResources = (first: HttpResponse, second: HttpResponse) => {
    check(STATUS.is2xx(second.status), `a request with ${how} was answered ${second.status}${summariseBody(second)}: the two keys were taken for one`);
    const id = answeredId(first);
    if (id !== undefined) check(answeredId(second) !== id, `a request with ${how} was answered with the first key's resource ${id}: the two keys were taken for one`);
  };
  return {
    judge(answers) {
      const [first, second] = lastPair(answers, op.operationId, op.method);
      requireSuccess(judgeSkips, first);
      twoResources(first, second);
    },
    comparesState: true,
    requirement: 'FSAPI-IDEM-105',
    variant,
    title:
      variant === 'key-case'
        ? 'two keys that differ only in letter case create two resources'
        : 'two 120-character keys that differ only in the last character create two resources',
    async run(ctx) {
      const a = await scoped(ctx, op, { fresh: true });
      const b = await scoped(ctx, op, { fresh: true });
      const base = ctx.idempotencyKey();
      let k1: string;
      let k2: string;
      if (variant === 'key-case') {
        k1 = base.toLowerCase();
        k2 = base.toUpperCase();
      } else {
        const long = `${base}-${ctx.idempotencyKey()}-${ctx.idempotencyKey()}-${ctx.idempotencyKey()}`.slice(0, 119);
        k1 = `${long}0`;
        k2 = `${long}1`;
      }
      const beforeA = a.count ? await a.count() : undefined;
      const beforeB = b.count ? await b.count() : undefined;
      const first = await ctx.call(op, a.parts, { idempotencyKey: k1 });
      requireSuccess(ctx, first);
      const second = await ctx.call(op, b.parts, { idempotencyKey: k2 });
      twoResources(first, second);
      if (beforeA === undefined || beforeB === undefined) skipEffects(ctx, 'both requests were answered with their own resource', a.why);
      const n = effectsOf(ctx, beforeA, await a.count!(), 1) + effectsOf(ctx, beforeB, await b.count!(), 1);
      if (n < 2) return ctx.skip(`two successes with their own ids, but only ${n} of the two objects is visible to the effect count; duplicates cannot be judged`);
      check(n === 2, `two requests with ${variant === 'key-case' ? 'keys differing only in case' : 'long keys differing in the last character'} took effect ${times(n)} (expected twice)`);
    },
  };
}

function replayMarker(op: Operation): Def {
  return {
    requirement: 'FSAPI-IDEM-201',
    variant: 'replay-marker',
    title: 'which header, if any, marks a replayed response',
    async run(ctx) {
      const s = await scoped(ctx, op, { fresh: true });
      const key = ctx.idempotencyKey();
      const first = await ctx.call(op, s.parts, { idempotencyKey: key });
      if (!STATUS.is2xx(first.status)) {
        ctx.observe(`no replay to inspect: the first ${op.operationId} was answered ${first.status}`);
        return;
      }
      const second = await ctx.call(op, s.parts, { idempotencyKey: key });
      const marks = replayMarkers(first, second);
      ctx.observe(
        marks.length
          ? `a replay of ${op.operationId} (${second.status}) is marked with ${marks.join('; ')}`
          : `a replay of ${op.operationId} (${second.status}) carries no replay-marker header (none naming idempotency or replay)`,
      );
    },
  };
}

export const idempotencyFamily: CheckFamily = {
  name: 'idempotency',
  forOperation(op, plan) {
    // The seed requires the key on every POST, whether or not the spec in use declares the header.
    if (!op.group || op.method !== 'POST') return [];
    const defs: Def[] = [...noKey(op), replay(op, false), replay(op, true), differentBody(op), ...parallel(op, plan.binding), otherTenant(op)];
    if (isCreate(op)) defs.push(exactKeys(op, 'key-case'), exactKeys(op, 'key-long'));
    // The marker is the same for every POST of a target; one observation per group is enough.
    const firstPost = plan.spec.operations.find((o) => o.group === op.group && o.method === 'POST');
    if (firstPost === op) defs.push(replayMarker(op));
    return defs.map((d) => ({ ...d, family: 'idempotency' as const, group: op.group!, operation: op.operationId, writes: true }));
  },
};

