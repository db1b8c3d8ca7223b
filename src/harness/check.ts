import type { Faker } from '@faker-js/faker';
import type { Binding } from '../binding/binding.js';
import type { SuiteSlug } from '../catalogue/groups.js';
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import type { Requirement, RequirementCatalogue } from '../catalogue/requirements.js';
import { citeSource } from '../catalogue/requirements.js';
import type { HttpResponse, RequestSpec } from '../http/client.js';
import type { Redactor } from '../http/redact.js';
import type { CheckResult, Family, RecordedExchange, RefusedValue, SkipCause } from '../results/model.js';
import type { ExplorationLedger } from './explorations.js';
import { answerOf, outcomeOf, type Judge, type Outcome } from './judge.js';
import { spinIfTestAsks } from './test-spin.js';
import type { TrafficObserver } from './observer.js';
import type { CallOptions, RequestParts } from '../http/request-parts.js';
import type { WorkerConfig } from './worker-config.js';
import type { World } from './world.js';
import type { ReceivedDelivery } from '../webhooks/delivery.js';

/** Credentials or data a check needs; without them it is skipped with the reason, never dropped. */
export type Need = 'second-tenant' | 'public-key' | 'live-key' | 'revoked-key' | 'webhooks' | 'plain-http';

/**
 * A check is data plus a small function (test262 style): the metadata says what and why, `run` says how.
 * Level and clause are not repeated here: they come from the requirement catalogue, the one source of truth.
 */
export interface CheckDef {
  requirement: string;
  family: Family;
  group: SuiteSlug;
  /** operationId of the operation under test, when there is one. */
  operation?: string;
  /** Short stable slug that tells this check apart from its siblings ("no-key", "replay"). */
  variant: string;
  /** What is checked, in a few words; the test name is `<requirement> [<level>] <operation>: <title>`. */
  title: string;
  needs?: Need[];
  /** Other operations the check calls; it is skipped when the spec in use or the capabilities lack one. */
  uses?: string[];
  /** Sends a request meant to create or change data (skipped in live unless --allow-live-writes). */
  writes?: boolean;
  /**
   * Why the check does not apply to its operation, when the document says so at planning time (a JSON-specific probe
   * of an operation that takes a form): it is skipped as not applicable, before any request, and verify derives it.
   */
  inapplicable?: string;
  /** Depends on the reference profile's own rules (sandbox magic values); skipped for a vendor spec. */
  referenceOnly?: boolean;
  /** Belongs to the exploration phase: skipped before any request when the run's budget is 0 (--explore 0). */
  explores?: boolean;
  /** Runs after every concurrent check of its suite (checks over all observed traffic). */
  last?: boolean;
  /**
   * Runs once the suite's other checks are done, concurrently with its like and before the `last` ones: it updates or
   * deletes what it made, in collections whose first listed item the others may share as a value.
   */
  after?: boolean;
  /** Holds its slot through a deliberate wait (the replay delay): started first, so the wait overlaps other checks. */
  waits?: boolean;
  /**
   * Judges data it does not make itself (a list filled by the run's other checks): alone in its suite it may find
   * nothing to judge, so selfcheck proves a fault with another suite's check where one caught it too.
   */
  leansOnRun?: boolean;
  timeoutMs?: number;
  /** Sends the check's requests; with `judge`, only that. */
  run(ctx: CheckContext): Promise<void>;
  /**
   * The judgement, a pure function of the check's answers (src/harness/judge.ts): run after `run` on the answers
   * received, and again offline by `verify` on the recorded ones. A check without one judges inside `run` and cannot
   * be re-judged offline.
   */
  judge?: Judge;
  /**
   * The id of a check whose recorded evidence `verify` judges with this check's judge (the exploration's sibling judges
   * the answers the exploring check sent and recorded); in the run the judge reads this check's own evidence.
   */
  judgesEvidenceOf?: string;
  /**
   * The run also compares the target's state before and after the probe, read by its own requests through a
   * driver: `judge` covers the probe's answer, not that comparison (verify says so).
   */
  comparesState?: boolean;
}

// Re-exported for branches written before these moved to src/http/request-parts.ts; new code imports them there.
export type { CallOptions, RequestParts };

export interface CheckContext {
  readonly def: CheckDef;
  readonly requirement: Requirement;
  readonly op: Operation | undefined;
  readonly spec: SpecDocument;
  /** How the spec in use plays the reference operations (src/binding): drivers and flows speak the reference's terms. */
  readonly binding: Binding;
  readonly config: WorkerConfig;
  /** Prerequisite resources of the configured business, created on first use and shared in the suite. */
  readonly world: World;
  /** The same for the second business (only with `needs: ['second-tenant']`). */
  readonly secondWorld: World;
  /** Seeded per check: the same seed gives the same data whatever the order checks run in. */
  readonly faker: Faker;
  readonly signal: AbortSignal;
  /** Judgements on every response this suite received, by operation (for the observed-traffic checks). */
  readonly observed: TrafficObserver;
  /**
   * Calls an operation with default headers. By reference operationId, `parts` are in the reference's terms and are
   * translated by the binding; by Operation, they are the operation's own. Either way a bound operation's answer
   * reads in the reference's terms (`json`); the evidence keeps the raw exchange.
   */
  /** Calls an operation of the spec in use with default headers (Api-Key, x-tenant-id, JSON, a fresh Idempotency-Key on POST). */
  call(op: Operation | string, parts?: RequestParts, opts?: CallOptions): Promise<HttpResponse>;
  /** A raw request (probes outside the spec). Recorded as evidence like every other. */
  send(spec: RequestSpec): Promise<HttpResponse>;
  /** A fresh idempotency key, unique to this run, this check and this call. */
  idempotencyKey(): string;
  /** The operation of the spec in use that plays a reference operationId (skips the check when none does). */
  operation(id: string): Operation;
  skip(reason: string, cause?: SkipCause): never;
  /** Records what was observed (INFO checks: the gap report; other checks: extra context). */
  observe(text: string): void;
  /**
   * Adds an exchange recorded elsewhere (e.g. by the traffic observer, or the World's create of what the check
   * follows) to this check's evidence; with its answer as a call returned it (a bound operation's view), its judge
   * reads that, as it reads its own calls' answers.
   */
  attach(x: RecordedExchange, answer?: HttpResponse): void;
  /**
   * Records a delivery the run's webhook receiver got (the request the target sent, redacted as every exchange is)
   * as this check's evidence, once however often the check reads it: its judge sees what arrived.
   */
  recordDelivery(d: ReceivedDelivery): void;
  /** Records a value the run read (an effect count through a driver) for the check's judge, kept in the result's facts. */
  fact(name: string, value: number | string): void;
  /** The suite's explorations by operation: the exploration check records what it found, its sibling checks read it. */
  readonly explorations: ExplorationLedger;
  /** Records a value the document allows that the target refused (an exploration's suggestion; never a verdict). */
  refusedValue(v: RefusedValue): void;
}

export function checkId(def: Pick<CheckDef, 'requirement' | 'operation' | 'group' | 'variant'>): string {
  return `${def.requirement} ${def.operation ?? def.group} ${def.variant}`;
}

export function testName(def: CheckDef, req: Requirement): string {
  return `${def.requirement} [${req.level}] ${def.operation ?? def.group}: ${def.title}`;
}

/** Exchanges a check's evidence keeps (a full run's largest check sends about 100: a list walked page by page). */
export const MAX_EXCHANGES = 128;

/** Evidence of one check: its exchanges, capped (first and last kept) so a report stays bounded. */
export class EvidenceLog {
  readonly exchanges: RecordedExchange[] = [];
  dropped = 0;
  /** Every exchange in order, the ones the cap drops from the evidence too: a judge sees all the check received. */
  private readonly all: RecordedExchange[] = [];
  /** The answers as the check received them (whole bodies), for its judge; the evidence keeps them redacted and cut. */
  private readonly live = new WeakMap<RecordedExchange, HttpResponse>();
  answered = (res: HttpResponse): HttpResponse => {
    this.live.set(res.exchange, res);
    return res;
  };
  /** The answers in order, for a judge. */
  answers(): HttpResponse[] {
    return this.all.flatMap((x) => this.live.get(x) ?? answerOf(x) ?? []);
  }
  add = (x: RecordedExchange): void => {
    this.all.push(x);
    if (this.exchanges.length < MAX_EXCHANGES) {
      this.exchanges.push(x);
      return;
    }
    // Keep the first half as they were; slide the second half so the last exchanges (usually decisive) stay.
    this.exchanges.splice(MAX_EXCHANGES / 2, 1);
    this.exchanges.push(x);
    this.dropped++;
  };
}

/** A refusal as the report keeps it: its texts pass the redactor, as every message does. */
const redactedRefusal = (v: RefusedValue, r: Redactor): RefusedValue => ({
  ...v,
  request: r.text(v.request),
  ...(v.title !== undefined ? { title: r.text(v.title) } : {}),
  ...(v.detail !== undefined ? { detail: r.text(v.detail) } : {}),
});

/**
 * Runs one check and turns whatever happened into a CheckResult: a CheckFailure is `failed` (or `warning` at
 * SHOULD/PROFILE without --strict), a skip is `skipped` with its reason, anything else is `error`.
 * Every message passes the redactor.
 */
export async function executeCheck(
  def: CheckDef,
  ctx: CheckContext,
  env: { requirements: RequirementCatalogue; strict: boolean; redactor: Redactor; evidence: EvidenceLog; observations: string[]; facts?: Record<string, number | string>; refused?: RefusedValue[] },
): Promise<CheckResult> {
  const req = env.requirements.get(def.requirement);
  const t0 = performance.now();
  let outcome: Outcome;
  try {
    spinIfTestAsks(checkId(def));
    await def.run(ctx);
    def.judge?.(env.evidence.answers(), env.facts ?? {});
    outcome = outcomeOf(undefined, req.level, env.strict);
    if (env.observations.length) outcome.message = env.observations.join('; ');
  } catch (e) {
    outcome = outcomeOf(e, req.level, env.strict);
  }
  const { status, message, cause, skipCause } = outcome;
  const evidence = env.evidence.exchanges;
  const result: CheckResult = {
    id: checkId(def),
    name: testName(def, req),
    requirement: def.requirement,
    level: req.level,
    group: def.group,
    family: def.family,
    ...(def.operation ? { operation: def.operation } : {}),
    clause: citeSource(req.source),
    title: def.title,
    status,
    ...(cause ? { cause } : {}),
    ...(message ? { message: env.redactor.text(message) } : {}),
    ...(skipCause ? { skip_cause: skipCause } : {}),
    ...(req.level === 'INFO' && env.observations.length ? { observation: env.redactor.text(env.observations.join('; ')) } : {}),
    duration_ms: Math.round(performance.now() - t0),
    exchanges: evidence,
    ...(env.facts && Object.keys(env.facts).length ? { facts: { ...env.facts } } : {}),
    ...(env.refused?.[0] ? { refused_value: redactedRefusal(env.refused[0], env.redactor) } : {}),
  };
  if (env.evidence.dropped) {
    result.exchanges_not_kept = env.evidence.dropped;
    result.message = `${result.message ?? ''}${result.message ? ' ' : ''}(${env.evidence.dropped} more exchanges not kept)`;
  }
  return result;
}
