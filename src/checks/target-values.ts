/**
 * Values the target itself returned: the runtime half of the value sources (src/values/producers.ts). A parameter's
 * producers are asked in order (a link's, then the collection's list, then its create, a write sent only where
 * writes are allowed), each at most once per suite and business: the answer is shared by every check of the suite
 * that needs it, and each of them carries the exchange that gave the value as evidence.
 */
import { requestMediaOf, type Operation, type Parameter } from '../catalogue/openapi.js';
import { CheckSkipped, STATUS, describeRequest, documentBody } from '../harness/assert.js';
import type { CheckContext } from '../harness/check.js';
import { seedFor } from '../harness/seed.js';
import type { World } from '../harness/world.js';
import type { RecordedExchange } from '../results/model.js';
import { generateValid } from '../values/generate.js';
import { valueSources, type ValueSource } from '../values/producers.js';
import { select } from '../values/answer-pointers.js';
import { validForParameter } from '../values/parameter-value.js';
import { describeSchema } from '../values/request-validity.js';
import type { RequestParts } from '../http/request-parts.js';

/** What a producer's one call gave: its answer body, or why it gives nothing. */
type Answer = { body: unknown; exchange: RecordedExchange; what: string } | { why: string };

const answers = new WeakMap<World, Map<string, Promise<Answer>>>();

export interface TargetValue {
  value: string | number;
  source: ValueSource;
}

/**
 * A value for the parameter from the target's own answers, given the values already chosen for the operation's
 * earlier parameters (`known`: a nested list takes its parent's), or the reasons none could be had.
 */
export async function targetValue(
  ctx: CheckContext,
  op: Operation,
  p: Parameter,
  known: Record<string, string>,
  world: World,
  as: 'primary' | 'second',
): Promise<TargetValue | { why: string[] }> {
  const why: string[] = [];
  for (const source of valueSources(ctx.spec).of(op.operationId, p.name, p.in)) {
    const producer = ctx.spec.byId.get(source.producer);
    if (!producer) continue;
    const pathParams: Record<string, string> = {};
    for (const [mine, theirs] of Object.entries(source.carry)) if (known[theirs] !== undefined) pathParams[mine] = known[theirs];
    const missing = producer.parameters.filter((x) => x.in === 'path' && pathParams[x.name] === undefined).map((x) => x.name);
    if (missing.length) {
      why.push(`${source.producer} needs ${missing.join(', ')}`);
      continue;
    }
    const answer = await ask(ctx, producer, pathParams, world, as);
    if ('why' in answer) {
      why.push(answer.why);
      continue;
    }
    ctx.attach(answer.exchange);
    const given = select(answer.body, source.select).filter((v): v is string | number => (typeof v === 'string' && v !== '') || typeof v === 'number');
    // A value that breaks the parameter's schema (its format, pattern, enum, length) is not sent as a valid one:
    // the next source is tried (a list's `acme_corp` is no `format: uuid`).
    const value = given.find((v) => validForParameter(ctx.spec, p, String(v)));
    if (value !== undefined) return { value, source };
    why.push(given.length ? `${answer.what} gave ${JSON.stringify(String(given[0]).slice(0, 40))}, which breaks the schema of ${p.name}${describeSchema(p.schema)}` : `${answer.what} gave no ${source.select.split('/').at(-1)}`);
  }
  return { why };
}

/** One call of a producer in this suite and business, shared by every check that asks. */
function ask(ctx: CheckContext, producer: Operation, pathParams: Record<string, string>, world: World, as: 'primary' | 'second'): Promise<Answer> {
  let memo = answers.get(world);
  if (!memo) answers.set(world, (memo = new Map()));
  const key = `${producer.operationId} ${JSON.stringify(pathParams)}`;
  let p = memo.get(key);
  if (!p) memo.set(key, (p = call(ctx, producer, pathParams, as)));
  return p;
}

async function call(ctx: CheckContext, producer: Operation, pathParams: Record<string, string>, as: 'primary' | 'second'): Promise<Answer> {
  const parts: RequestParts = { pathParams };
  // A create takes a body; so does any operation whose document requires one (a list filtered by a body).
  if (producer.requestBody && (producer.method === 'POST' || producer.requestBody.required)) {
    const media = requestMediaOf(producer);
    const made = generateValid(ctx.spec, media?.schema, seedFor(ctx.config.seed, `${producer.operationId}:producer-body`));
    if (!made.ok) return { why: `no valid body for ${producer.operationId} (${made.problems[0]?.pointer} ${made.problems[0]?.message})` };
    parts.body = made.value;
  }
  try {
    const res = await ctx.call(producer, parts, { as });
    const what = describeRequest(res);
    if (!STATUS.is2xx(res.status)) return { why: `${what} answered ${res.status}` };
    // The raw answer, in the document's own terms (a bound operation's view is the reference's).
    return { body: documentBody(res), exchange: res.exchange, what };
  } catch (e) {
    // A producer the run may not call (live writes, the capabilities file) gives nothing: the next source is tried.
    if (e instanceof CheckSkipped) return { why: `${producer.operationId}: ${e.message}` };
    throw e;
  }
}
