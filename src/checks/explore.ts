/**
 * The exploration phase (src/explore): for each operation that takes input, valid requests that walk its input
 * space, edges first, judged by the contract: an answer with a status the document does not list (a 500 to a
 * customer named "Zoë") fails FSAPI-CONTRACT-002; a server error, documented or not, fails FSAPI-CONTRACT-102 (a
 * sibling check that reads the same exploration); each first occurrence shrunk to the minimal request that still
 * breaks the target. A documented 400 or 422 refusing an explored request is shrunk to the value that draws it and
 * shown as a suggestion, never a verdict. Budgeted per operation (FSAPI_EXPLORE) and over the run
 * (FSAPI_EXPLORE_TOTAL, shared out when the run is planned); off at 0.
 */
import { requestMediaOf, type Operation, type SpecDocument } from '../catalogue/openapi.js';
import { answeredId, CheckFailure, CheckSkipped, describeRequest, PreconditionFailed } from '../harness/assert.js';
import type { Judge } from '../harness/judge.js';
import type { Facts } from '../results/model.js';
import { checkId } from '../harness/check.js';
import type { CheckContext } from '../harness/check.js';
import type { WorkerConfig } from '../harness/worker-config.js';
import { isObj } from '../json.js';
import type { HttpResponse } from '../http/client.js';
import type { RequestParts } from '../http/request-parts.js';
import { seedFor } from '../harness/seed.js';
import { bodyProblems, parameterProblems } from '../values/request-validity.js';
import { loadGenerator } from '../values/generate.js';
import { describeChanges, describeMinimal, describeTrigger, explore, type ExploreOutcome, type Judgement, type Minimal } from '../explore/explore.js';
import { clientChosen, inputSlots, slotName, type Slot } from '../explore/input-space.js';
import { planVariants } from '../explore/variants.js';
import { EXPLORE_5XX_VARIANT, EXPLORE_VARIANT } from '../results/exploration.js';
import type { RefusedValue } from '../results/model.js';
import type { CheckFamily } from './plan.js';
import { validRequest } from './requests.js';
import { documented2xx, isCreate, isWrite, onlyEmptyBody } from './support.js';


/** Whether the operation takes input a client chooses: a body, or an optional query parameter naming no resource. */
function takesInput(op: Operation): boolean {
  // A body that can only be {} (maxProperties: 0) offers nothing to vary.
  const body = op.requestBody !== undefined && ((op.method !== 'GET' && op.method !== 'DELETE') || op.requestBody.required) && !onlyEmptyBody(op);
  return body || op.parameters.some((p) => p.in === 'query' && !p.required && clientChosen(p.name));
}

/**
 * The members the run labels what it writes by (an e-mail address, the metadata): a write that set them to an
 * explored value would take the label off an object the run made (an update's e-mail, say), so they are kept.
 */
const LABEL_MEMBER = /^(e-?mail(_?address)?|metadata)$/i;

/**
 * Whether a member's value is the run's label: an e-mail in the label's domain, the label's metadata value, or the
 * object holding it. Exploration leaves it as it is, so what a run creates stays findable by its label (an explored
 * customer with another e-mail domain and no metadata could not be told apart from the vendor's own).
 */
function carriesLabel(value: unknown, label: WorkerConfig['label']): boolean {
  if (value === label.metadataValue) return true;
  if (typeof value === 'string') return value.toLowerCase().endsWith(`@${label.emailDomain}`);
  return isObj(value) && value[label.metadataKey] === label.metadataValue;
}

/** The document's delete of what a create made (`DELETE {path}/{id}`), where it offers one. */
function deleteOf(ctx: CheckContext, op: Operation): { op: Operation; param: string } | undefined {
  if (!isCreate(op)) return undefined;
  for (const o of ctx.spec.operations) {
    const m = o.method === 'DELETE' && o.path.startsWith(`${op.path}/`) ? /^\/\{([^}/]+)\}$/.exec(o.path.slice(op.path.length)) : null;
    if (m) return { op: o, param: m[1]! };
  }
  return undefined;
}

function problemsOf(spec: SpecDocument, op: Operation, parts: RequestParts): string[] {
  const body = parts.body !== undefined && requestMediaOf(op) ? bodyProblems(spec, op, parts.body).map((p) => `${p.pointer || '(body)'} ${p.message}`) : [];
  return [...parameterProblems(spec, op, parts), ...body];
}

/** The members an exploration of `op` leaves as they are: those that carry the run's label, and on a write any e-mail or metadata. */
const keepsOf =
  (op: Operation, label: WorkerConfig['label']) =>
  (slot: Slot): boolean =>
    carriesLabel(slot.base, label) || (isWrite(op) && slot.in === 'body' && LABEL_MEMBER.test(slot.path.at(-1)!));

/**
 * The requests an exploration of `op` sends before any shrinking, in order: the variants of the valid request it
 * started from, for the run's seed and label, up to its budget. They do not depend on the answers, so verify derives
 * them from the package and requires each in the check's evidence (src/certify/explored-requests.ts). The generator
 * must be loaded (loadGenerator).
 */
export function plannedExploredRequests(spec: SpecDocument, op: Operation, base: RequestParts, runSeed: number, label: WorkerConfig['label'], budget: number): RequestParts[] {
  const keeps = keepsOf(op, label);
  const slots = inputSlots(spec, op, base).filter((s) => !keeps(s));
  const plan = planVariants(spec, base, slots, seedFor(runSeed, `${op.operationId}:explore`), (parts) => problemsOf(spec, op, parts).length === 0);
  const out: RequestParts[] = [];
  for (const v of plan.variants) {
    if (out.length >= budget) break;
    out.push(v.parts);
  }
  return out;
}

/**
 * A server error: the server erred, not the client (RFC 9110 15.6), documented or not. Not 503: back-pressure (a
 * temporary overload, RFC 9110 15.6.4), which the client waits out as it does 429 and never hands to a judge; one
 * that outlasts its retries makes the check an error of cause rate-limited, not a finding.
 */
export const isServerError = (status: number): boolean => status >= 500 && status <= 599 && status !== 503;

/** The statuses that refuse a request's content (RFC 9110 15.5.1, 15.5.21); a 404 or 409 speaks of state, not of a value. */
const REFUSES_CONTENT = new Set([400, 422]);

type ExploreJudgement = 'undocumented' | 'serverError' | 'refused';

function judgementsFor(ctx: CheckContext, op: Operation): Record<ExploreJudgement, Judgement> {
  return {
    undocumented: { why: (res) => (ctx.spec.responseFor(op, res.status) ? undefined : `answered ${res.status}, which ${op.operationId} does not document`) },
    serverError: { why: (res) => (isServerError(res.status) ? `answered ${res.status}` : undefined) },
    // Shrunk to the one change on the request the target accepted, the rest as it was: the value that draws it.
    refused: { why: (res) => (REFUSES_CONTENT.has(res.status) && ctx.spec.responseFor(op, res.status) ? `refused with ${res.status}` : undefined), changeOnly: true },
  };
}

/** The case of every explored request and every shrinking one (exchange.case), as the judges read them. */
const EXPLORED_CASE = 'explored';

/** The recorded answers to the operation's explored requests (not the valid request they vary, nor a clean-up). */
function exploredAnswers(answers: readonly HttpResponse[], op: Operation): HttpResponse[] {
  // The minimal request is attached once more at the end (the reproduction replays the last): counted once.
  const seen = new Set<string>();
  return answers.filter((r) => {
    const key = `${r.exchange.started_at} ${r.exchange.request.method} ${r.exchange.request.url}`;
    if (r.exchange.case !== EXPLORED_CASE || r.exchange.operation !== op.operationId || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const statusList = (answers: readonly HttpResponse[]): number[] => [...new Set(answers.map((r) => r.status))];

/** The minimal request the run's shrinking found, as it recorded it (a judge cannot shrink: it reads). */
const minimalOf = (facts: Facts): string => (typeof facts['explore_minimal'] === 'string' ? `; minimal request: ${facts['explore_minimal']}` : '');

/** FSAPI-CONTRACT-002 over the exploration: every explored answer's status is one the document lists. */
function undocumentedJudge(spec: SpecDocument, op: Operation): Judge {
  return (answers, facts) => {
    const explored = exploredAnswers(answers, op);
    const bad = explored.filter((r) => !spec.responseFor(op, r.status));
    if (bad.length) throw new CheckFailure(`${bad.length} of ${explored.length} explored valid requests (the shrinking's among them) answered ${statusList(bad).join(', ')}, not documented for ${op.operationId}${minimalOf(facts)}`);
  };
}

/** "500 (documented), 502 (not documented)". */
const serverErrorStatuses = (spec: SpecDocument, op: Operation, answers: readonly HttpResponse[]): string =>
  statusList(answers).map((s) => `${s} (${spec.responseFor(op, s) ? 'documented' : 'not documented'})`).join(', ');

/**
 * FSAPI-CONTRACT-102 over the explored answers, documented or not: in the run the server errors it attaches, in
 * verify every explored answer of the exploring check's evidence; the counts come from the facts the run recorded.
 */
function serverErrorJudge(spec: SpecDocument, op: Operation): Judge {
  return (answers, facts) => {
    const bad = exploredAnswers(answers, op).filter((r) => isServerError(r.status));
    if (!bad.length) return;
    const counted = typeof facts['server_errors'] === 'number' && typeof facts['explored'] === 'number' ? `${facts['server_errors']} of ${facts['explored']}` : `${bad.length}`;
    const statuses = typeof facts['server_error_statuses'] === 'string' ? facts['server_error_statuses'] : serverErrorStatuses(spec, op, bad);
    throw new CheckFailure(`${counted} explored valid requests (the shrinking's among them) answered a server error: ${statuses}${minimalOf(facts)}`);
  };
}

/** The problem body's title and detail, where the answer has them. */
function problemText(m: Minimal): Pick<RefusedValue, 'title' | 'detail'> {
  const j = m.res.json;
  if (!isObj(j)) return {};
  return { ...(typeof j['title'] === 'string' ? { title: j['title'] } : {}), ...(typeof j['detail'] === 'string' ? { detail: j['detail'] } : {}) };
}

function refusedValue(outcome: ExploreOutcome<ExploreJudgement>): RefusedValue | undefined {
  const { refused } = outcome.found;
  const m = refused.minimal;
  if (!m) return undefined;
  const trigger = describeTrigger(m);
  const only = m.shrunk.changes.length === 1 ? m.shrunk.changes[0]! : undefined;
  return {
    request: `${describeChanges(m)}${trigger ? `; ${trigger}` : ''}`,
    ...(only ? { member: slotName(only.slot) } : {}),
    status: m.res.status,
    ...problemText(m),
    refused: refused.failures.length,
    explored: outcome.sent,
  };
}

async function exploreOperation(ctx: CheckContext, op: Operation, budget: number, answered: HttpResponse[]): Promise<{ outcome: ExploreOutcome<ExploreJudgement>; ms: number }> {
  const t0 = performance.now();
  // Random rounds, optional members and oneOf branches are made by the generator, loaded where it is first needed.
  await loadGenerator();
  // Writes change state: a fresh scope keeps the shared prerequisites as other checks expect them.
  const base = await validRequest(ctx, op, { fresh: isWrite(op) });
  const remove = deleteOf(ctx, op);
  let created = 0;
  let cleaned = 0;
  const cleanUp = async (res: HttpResponse) => {
    const id = res.status >= 200 && res.status < 300 ? answeredId(res) : undefined;
    if (!remove || id === undefined) return;
    created++;
    const parts = { pathParams: { ...(base.pathParams ?? {}), [remove.param]: id } };
    // A delete the document forbids (an id that breaks its parameter's format) is not sent: what it made stays.
    if (parameterProblems(ctx.spec, remove.op, parts).length) return;
    cleaned++;
    await ctx.call(remove.op, parts).catch(() => undefined);
  };
  // The valid request itself first: the exploration varies a request the target accepts (FSAPI-CONTRACT-004 judges it).
  const first = await ctx.call(op, base);
  if (!documented2xx(op, first.status)) ctx.skip(`${describeRequest(first)} answered ${first.status} to the valid request the exploration starts from (FSAPI-CONTRACT-004 judges it): nothing to explore from`, 'prerequisite');
  await cleanUp(first);
  const outcome = await explore(
    ctx.spec,
    op,
    base,
    seedFor(ctx.config.seed, `${op.operationId}:explore`),
    budget,
    {
      async send(parts) {
        try {
          const res = await ctx.call(op, parts);
          // The judges (and verify's re-judging) tell the explored answers from the valid request and the clean-up.
          res.exchange.case = EXPLORED_CASE;
          answered.push(res);
          await cleanUp(res);
          return res;
        } catch (e) {
          // A refusal that only says a made-up value names nothing is the suite's gap, as everywhere: not judged.
          if (e instanceof PreconditionFailed) return undefined;
          throw e;
        }
      },
      problems: (parts) => problemsOf(ctx.spec, op, parts),
      keeps: keepsOf(op, ctx.config.label),
    },
    judgementsFor(ctx, op),
  );
  if (created) ctx.fact('explore_created', created);
  if (cleaned) ctx.fact('explore_deleted', cleaned);
  return { outcome, ms: Math.round(performance.now() - t0) };
}

/** The exploration of one operation, recorded for its sibling check whatever its end (a skip, an error). */
async function exploreRecorded(ctx: CheckContext, op: Operation, budget: number): Promise<{ outcome: ExploreOutcome<ExploreJudgement>; ms: number }> {
  // Every explored answer, the shrinking's too: the sibling judges them all, as verify does on this check's evidence.
  const answered: HttpResponse[] = [];
  const serverErrors = () => answered.filter((r) => isServerError(r.status));
  let explored: { outcome: ExploreOutcome<ExploreJudgement>; ms: number };
  try {
    explored = await exploreOperation(ctx, op, budget, answered);
  } catch (e) {
    ctx.explorations.record(op.operationId, { answered: answered.length, serverErrors: serverErrors(), unfinished: `${e instanceof CheckSkipped ? 'skipped' : 'ended'}: ${(e as Error).message}` });
    throw e;
  }
  const { outcome } = explored;
  const minimal = outcome.found.serverError.minimal;
  ctx.explorations.record(op.operationId, { answered: answered.length, serverErrors: serverErrors(), ...(minimal ? { minimal } : {}), ...(outcome.sent ? {} : { unfinished: NOTHING_TO_EXPLORE }) });
  return explored;
}

const NOTHING_TO_EXPLORE = 'no member of its valid request can take another value valid for the document: nothing to explore';

export const exploreFamily: CheckFamily = {
  name: 'exploration (valid input space)',
  forOperation(op, { spec }) {
    if (!op.group || !takesInput(op)) return [];
    const explores = {
      family: 'schema',
      group: op.group,
      operation: op.operationId,
      writes: isWrite(op),
      explores: true,
    } as const;
    const sibling = checkId({ requirement: 'FSAPI-CONTRACT-002', operation: op.operationId, group: op.group, variant: EXPLORE_VARIANT });
    return [
      {
        ...explores,
        requirement: 'FSAPI-CONTRACT-002',
        variant: EXPLORE_VARIANT,
        title: 'valid requests across its input space (edges, unicode, formats, seeded random values) are answered with documented statuses',
        async run(ctx) {
          // The run's total, shared out when it was planned, may hold each operation to less than FSAPI_EXPLORE.
          const budget = Math.min(ctx.config.explore, ctx.config.exploreAllocation.perOperation);
          const { outcome, ms } = await exploreRecorded(ctx, op, budget);
          // Decided by the valid request the run built, not by the document alone: a skip of the run's (verify takes
          // it as recorded), never 'not-applicable', which only the settings and the document decide before a request.
          if (outcome.sent === 0) ctx.skip(NOTHING_TO_EXPLORE, 'prerequisite');
          ctx.fact('explore_requests', outcome.sent);
          ctx.fact('explore_shrink_requests', outcome.shrinkRequests);
          ctx.fact('explore_unexplored', outcome.unexplored);
          ctx.fact('explore_ms', ms);
          if (budget < ctx.config.explore) ctx.fact('explore_held_by_total', budget);
          const refused = refusedValue(outcome);
          if (refused) ctx.refusedValue(refused);
          const m = outcome.found.undocumented.minimal;
          if (m) {
            // The minimal request last: the reproduction replays it (src/vitest-suite/suite.ts). The judge fails it.
            ctx.attach(m.res.exchange, m.res);
            ctx.fact('explore_minimal', describeMinimal(m));
          }
          if (outcome.unexplored > 0) ctx.observe(`explored ${outcome.sent} valid requests; ${outcome.unexplored} variants left unexplored by the budget of ${budget}`);
        },
        judge: undocumentedJudge(spec, op),
      },
      {
        ...explores,
        requirement: 'FSAPI-CONTRACT-102',
        variant: EXPLORE_5XX_VARIANT,
        title: 'valid requests across its input space are never answered with a server error, documented or not',
        // It reads the exploration its sibling sent, once every concurrent check of the suite is done.
        last: true,
        async run(ctx) {
          const r = ctx.explorations.get(op.operationId);
          if (!r) return ctx.skip(`the exploration of ${op.operationId} (${sibling}) did not run in this suite`, 'prerequisite');
          const [first] = r.serverErrors;
          if (first) {
            // The first server error, then the minimal request last: the reproduction replays it. The judge fails it.
            ctx.attach(first.exchange, first);
            if (r.minimal && r.minimal.res !== first) ctx.attach(r.minimal.res.exchange, r.minimal.res);
            ctx.fact('explored', r.answered);
            ctx.fact('server_errors', r.serverErrors.length);
            ctx.fact('server_error_statuses', serverErrorStatuses(ctx.spec, op, r.serverErrors));
            if (r.minimal) ctx.fact('explore_minimal', describeMinimal(r.minimal));
            return;
          }
          if (r.unfinished) return ctx.skip(`the exploration of ${op.operationId} (${sibling}) reached no verdict: ${r.unfinished}`, 'prerequisite');
          ctx.observe(`${r.answered} explored valid requests, none answered with a server error`);
        },
        // Judged in the run on the server errors it attaches; verify judges the exploring check's evidence instead,
        // every explored answer, so a passing one is re-judged too.
        judge: serverErrorJudge(spec, op),
        judgesEvidenceOf: sibling,
      },
    ];
  },
};
