/**
 * A check's judgement as a pure function of its recorded exchanges: the live run and `verify` (src/certify) call the
 * same function, the run on the answers it received, `verify` on the answers rebuilt from the evidence. A check that
 * declares `judge` only sends requests in `run`; whatever it concludes comes from here.
 */
import { mediaTypeOf, parseBody } from '../http/body.js';
import type { HttpResponse } from '../http/client.js';
import { isBlockingLevel } from '../catalogue/levels.js';
import type { Level } from '../catalogue/requirements.js';
import { RateLimited } from '../http/transport-error.js';
import type { CheckResult, CheckStatus, Facts, RecordedExchange, SkipCause } from '../results/model.js';
import { CheckFailure, CheckSkipped } from './assert.js';
import { UnsupportedPattern } from '../catalogue/linear-pattern.js';

/**
 * The answers of a check's exchanges, in the order they were recorded, and the facts its run recorded (what it read
 * through a driver: CheckResult.facts). An exchange that got no answer (a refused connection) is there as status 0
 * (`noAnswer`): only a check that sends in order to be refused gets past one to its judge.
 */
export type Judge = (answers: readonly HttpResponse[], facts: Facts) => void;

/** A numeric fact the run recorded; none is the run's omission, not a verdict. */
export function numericFact(facts: Facts, name: string): number {
  const v = facts[name];
  if (typeof v !== 'number') throw new Error(`no ${name} recorded to judge`);
  return v;
}

/** A text fact the run recorded; none is the run's omission, not a verdict. */
export function textFact(facts: Facts, name: string): string {
  const v = facts[name];
  if (typeof v !== 'string') throw new Error(`no ${name} recorded to judge`);
  return v;
}

/** The last answer: the decisive one of a check that sends its probe last. */
export function lastAnswer(answers: readonly HttpResponse[]): HttpResponse {
  const res = answers[answers.length - 1];
  // No answer recorded: the run would have stopped at the transport error before judging.
  if (!res) throw new Error('no answer recorded to judge');
  return res;
}

/** The last answer to a probe (what the request broke on purpose, recorded with its exchange). */
export function probeAnswer(answers: readonly HttpResponse[], probes: readonly string[]): HttpResponse {
  for (let i = answers.length - 1; i >= 0; i--) if (probes.includes(answers[i]!.exchange.probe ?? '')) return answers[i]!;
  throw new Error(`no answer to a ${probes.join(' or ')} probe recorded to judge`);
}

/** The answers to one operation of the document (its own requests, not the state reads around them). */
export function answersTo(answers: readonly HttpResponse[], operationId: string, method: string): HttpResponse[] {
  return answers.filter((r) => r.exchange.operation === operationId && r.exchange.request.method === method);
}

/** The last two answers to an operation: a first request and the one that repeats or varies it. */
export function lastPair(answers: readonly HttpResponse[], operationId: string, method: string): [HttpResponse, HttpResponse] {
  const mine = answersTo(answers, operationId, method);
  if (mine.length < 2) throw new Error(`fewer than two answers to ${operationId} recorded to judge`);
  return [mine[mine.length - 2]!, mine[mine.length - 1]!];
}

/** The recorded answer to a flow's case (the last one of that name), or undefined when it was not sent. */
export function caseAnswerIf(answers: readonly HttpResponse[], name: string): HttpResponse | undefined {
  return answers.findLast((r) => r.exchange.case === name);
}

/** The recorded answer to a flow's case; none is a run that stopped early, not a verdict. */
export function caseAnswer(answers: readonly HttpResponse[], name: string): HttpResponse {
  const res = caseAnswerIf(answers, name);
  if (!res) throw new Error(`no answer to the ${name} recorded to judge`);
  return res;
}

/** ctx.skip for a judge, which has no context: the same CheckSkipped. */
export const judgeSkips: { skip(reason: string, cause?: SkipCause): never } = { skip(reason, cause) {
  throw new CheckSkipped(reason, cause);
} };

/** Whether an answer is the stand-in for an exchange that got none (its transport error in `exchange.error`). */
export const noAnswer = (res: HttpResponse): boolean => res.status === 0;

/**
 * An answer rebuilt from its recorded exchange, as the HTTP client built it (body as recorded: redacted, maybe cut);
 * for an exchange that ended in a transport error before any answer, a stand-in of status 0 without headers or body.
 */
export function answerOf(x: RecordedExchange): HttpResponse | undefined {
  const r = x.response;
  if (!r) return x.error === undefined ? undefined : { status: 0, headers: {}, text: '', json: undefined, contentType: '', sizeBytes: 0, durationMs: x.duration_ms, exchange: x };
  const text = r.body ?? '';
  const { json, jsonError } = parseBody(text);
  return {
    status: r.status,
    headers: r.headers,
    text,
    json,
    ...(jsonError ? { jsonError } : {}),
    contentType: mediaTypeOf(r.headers['content-type']),
    sizeBytes: r.size_bytes,
    durationMs: x.duration_ms,
    exchange: x,
  };
}

export interface Outcome {
  status: CheckStatus;
  message?: string;
  cause?: CheckResult['cause'];
  skipCause?: SkipCause;
}

/**
 * What a check's end means: nothing thrown is `passed`; a CheckFailure is `failed` (or `warning` at SHOULD/PROFILE
 * without --strict); a skip is `skipped`; anything else `error`. One rule for the run and for `verify`.
 */
export function outcomeOf(e: unknown, level: Level, strict: boolean): Outcome {
  if (e === undefined) return { status: 'passed' };
  if (e instanceof CheckSkipped) return { status: 'skipped', message: e.message, ...(e.skipCause ? { skipCause: e.skipCause } : {}) };
  // The suite cannot run one of the document's patterns in bounded time: a gap of the suite, named, never a failure.
  if (e instanceof UnsupportedPattern) return { status: 'skipped', message: e.message };
  if (e instanceof CheckFailure && level !== 'INFO') return { status: isBlockingLevel(level) || strict ? 'failed' : 'warning', message: e.message };
  if (e instanceof RateLimited) return { status: 'error', cause: 'rate-limited', message: e.message };
  const err = e as Error;
  return { status: 'error', message: e instanceof CheckFailure ? `an INFO check cannot fail: ${err.message}` : `${err.name === 'TransportError' ? '' : `${err.name}: `}${err.message}` };
}

/** Runs a judge and says what it concluded. */
export function judgeOutcome(judge: Judge, answers: readonly HttpResponse[], level: Level, strict: boolean, facts: Facts = {}): Outcome {
  try {
    judge(answers, facts);
    return outcomeOf(undefined, level, strict);
  } catch (e) {
    return outcomeOf(e, level, strict);
  }
}
