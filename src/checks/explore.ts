/**
 * The exploration phase (src/explore): for each operation that takes input, valid requests that walk its input
 * space, edges first, judged by the contract: an answer with a status the document does not list (a 500 to a
 * customer named "Zoë") fails FSAPI-CONTRACT-002, its first occurrence shrunk to the minimal request that still
 * breaks the target. Budgeted per operation (FSAPI_EXPLORE); off at 0.
 */
import { requestMediaOf, type Operation } from '../catalogue/openapi.js';
import { answeredId, check, describeRequest, PreconditionFailed } from '../harness/assert.js';
import type { CheckContext } from '../harness/check.js';
import type { WorkerConfig } from '../harness/worker-config.js';
import { isObj } from '../json.js';
import type { HttpResponse } from '../http/client.js';
import type { RequestParts } from '../http/request-parts.js';
import { seedFor } from '../harness/seed.js';
import { namesResource } from '../values/provenance.js';
import { bodyProblems, parameterProblems } from '../values/request-validity.js';
import { loadGenerator } from '../values/generate.js';
import { describeMinimal, explore, type ExploreOutcome } from '../explore/explore.js';
import { EXPLORE_VARIANT } from '../results/exploration.js';
import type { CheckFamily } from './plan.js';
import { validRequest } from './requests.js';
import { documented2xx, isCreate, isWrite, onlyEmptyBody } from './support.js';


/** Whether the operation takes input a client chooses: a body, or an optional query parameter naming no resource. */
function takesInput(op: Operation): boolean {
  // A body that can only be {} (maxProperties: 0) offers nothing to vary.
  const body = op.requestBody !== undefined && ((op.method !== 'GET' && op.method !== 'DELETE') || op.requestBody.required) && !onlyEmptyBody(op);
  return body || op.parameters.some((p) => p.in === 'query' && !p.required && !namesResource(p.name));
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

function problemsOf(ctx: CheckContext, op: Operation, parts: RequestParts): string[] {
  const body = parts.body !== undefined && requestMediaOf(op) ? bodyProblems(ctx.spec, op, parts.body).map((p) => `${p.pointer || '(body)'} ${p.message}`) : [];
  return [...parameterProblems(ctx.spec, op, parts), ...body];
}

async function exploreOperation(ctx: CheckContext, op: Operation, budget: number): Promise<{ outcome: ExploreOutcome; ms: number }> {
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
          await cleanUp(res);
          return res;
        } catch (e) {
          // A refusal that only says a made-up value names nothing is the suite's gap, as everywhere: not judged.
          if (e instanceof PreconditionFailed) return undefined;
          throw e;
        }
      },
      problems: (parts) => problemsOf(ctx, op, parts),
      keeps: (slot) => carriesLabel(slot.base, ctx.config.label) || (isWrite(op) && slot.in === 'body' && LABEL_MEMBER.test(slot.path.at(-1)!)),
    },
    (res) => (ctx.spec.responseFor(op, res.status) ? undefined : `answered ${res.status}, which ${op.operationId} does not document`),
  );
  if (created) ctx.fact('explore_created', created);
  if (cleaned) ctx.fact('explore_deleted', cleaned);
  return { outcome, ms: Math.round(performance.now() - t0) };
}

export const exploreFamily: CheckFamily = {
  name: 'exploration (valid input space)',
  forOperation(op) {
    if (!op.group || !takesInput(op)) return [];
    return [
      {
        requirement: 'FSAPI-CONTRACT-002',
        family: 'schema',
        group: op.group,
        operation: op.operationId,
        variant: EXPLORE_VARIANT,
        title: 'valid requests across its input space (edges, unicode, formats, seeded random values) are answered with documented statuses',
        writes: isWrite(op),
        explores: true,
        async run(ctx) {
          const budget = ctx.config.explore;
          const { outcome, ms } = await exploreOperation(ctx, op, budget);
          // Decided by the valid request the run built, not by the document alone: a skip of the run's (verify takes
          // it as recorded), never 'not-applicable', which only the settings and the document decide before a request.
          if (outcome.sent === 0) ctx.skip('no member of its valid request can take another value valid for the document: nothing to explore', 'prerequisite');
          ctx.fact('explore_requests', outcome.sent);
          ctx.fact('explore_shrink_requests', outcome.minimal?.shrunk.requests ?? 0);
          ctx.fact('explore_unexplored', outcome.unexplored);
          ctx.fact('explore_ms', ms);
          const m = outcome.minimal;
          if (m) {
            // The minimal request last: the reproduction replays it (src/vitest-suite/suite.ts).
            ctx.attach(m.res.exchange, m.res);
            const statuses = [...new Set(outcome.failures.map((f) => f.res.status))].join(', ');
            check(false, `${outcome.failures.length} of ${outcome.sent} explored valid requests answered ${statuses}, not documented for ${op.operationId}; minimal request: ${describeMinimal(m)}`);
          }
          if (outcome.unexplored > 0) ctx.observe(`explored ${outcome.sent} valid requests; ${outcome.unexplored} variants left unexplored by the budget of ${budget}`);
        },
      },
    ];
  },
};
