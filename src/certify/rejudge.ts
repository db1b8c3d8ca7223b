/**
 * Re-judging a run from its recorded evidence, offline, with the check as this suite version plans it (never the
 * fields the signer wrote about it):
 * - a check the run's settings skip before any request (capabilities, waivers, a credential not configured, a live
 *   target, a document without its operation) is derived skipped, with that reason, and must be recorded so;
 * - a check with a judge is judged again by that same function on the answers rebuilt from its exchanges (or from
 *   the exchanges of the check it names in `judgesEvidenceOf`: the exploration's sibling judges what it explored);
 * - an observed-traffic check is judged again by the same evaluators over every recorded answer to its operation;
 * - a skip or an error the run recorded after sending requests is held against its evidence: an error needs a
 *   transport failure in it (or answers its judge gives the same error on), a skip answers its judge does not fail;
 * - the rest (flows judged inside their run, INFO observations) are listed, by id, with why.
 * Whether evidence was cut is derived from the answers' sizes and the recorded count of exchanges not kept.
 */
import type { Catalogue } from '../binding/catalogue-in-use.js';
import { judgeTraffic, OBSERVED_VARIANTS } from '../checks/traffic.js';
import type { CheckDef } from '../harness/check.js';
import { answerOf, judgeOutcome, type Outcome } from '../harness/judge.js';
import { bindCall } from '../harness/bound-call.js';
import { preconditionFailure, type PreconditionSettings } from '../harness/preconditions.js';
import type { Probe } from '../http/request-parts.js';
import type { HttpResponse } from '../http/client.js';
import type { CheckResult, CheckStatus, RecordedExchange, RunReport } from '../results/model.js';
import { plural } from '../plural.js';
import type { PlannedRun } from './planned-run.js';

export interface RejudgedCheck {
  id: string;
  recorded: CheckStatus;
  /** The status verify derived, or undefined when the check cannot be re-judged offline (`reason` says why). */
  rejudged?: CheckStatus;
  reason?: string;
  /** Only the probe's answer was re-judged: the run's comparison of the target's state before and after is its own. */
  answerOnly?: boolean;
  /** When the re-judgement differs: what differs. */
  difference?: string;
}

export interface Rejudgement {
  checks: RejudgedCheck[];
  rejudged: number;
  /** Of those, re-judged on the probe's answer only (their state comparison is not re-judged). */
  answerOnly: number;
  /** The checks of the plan (every one recorded). */
  planned: number;
  /** Every check not re-judged, by id, with why. */
  notRejudged: { id: string; reason: string }[];
  firstDifference?: { check: string; message: string };
}

/** Why a check judges inside its run (a sequence of requests and state between them), not from a judge: by variant, then family. */
const INLINE_REASON: Record<string, string> = {
  'idempotency/replay-marker': 'an INFO observation: it records what the target does, it judges nothing',
  flow: 'a flow judges state across several requests and the resources it made along the way, inside its run',
  observation: 'an INFO observation: it records what the target does, it judges nothing',
  transport: 'judges the connection itself (TLS, plain HTTP), which an HTTP exchange does not record',
};

const inlineReason = (c: CheckResult, variant: string): string => INLINE_REASON[`${c.family}/${variant}`] ?? INLINE_REASON[c.family] ?? `judges inside its run (${c.family} ${variant})`;

const exchangeKey = (x: RecordedExchange) => `${x.started_at} ${x.request.method} ${x.request.url}`;

/** A recorded answer the evidence cut (provenance.ts holds the mark to the answer's size): a finding on it could be the cut's. */
const maybeCut = (x: RecordedExchange): boolean => x.response?.body_truncated === true;

/** Which credential a skip's reason names (the run's messages name the setting), to hold it against the settings. */
const CREDENTIAL_NAMED: [RegExp, keyof PreconditionSettings['has']][] = [
  [/FSAPI_SECOND_|second business/, 'second_tenant'],
  [/FSAPI_PUBLIC_KEY/, 'public_key'],
  [/FSAPI_REVOKED_API_KEY/, 'revoked_key'],
  [/FSAPI_LIVE_API_KEY/, 'live_key'],
  [/FSAPI_WEBHOOK_/, 'webhooks'],
  [/FSAPI_PLAIN_HTTP_URL/, 'plainHttp'],
];

export interface RejudgeInputs {
  report: RunReport;
  catalogue: Catalogue;
  planned: PlannedRun;
  settings: PreconditionSettings;
  /** Checks whose evidence lost part of what the run's judge saw, with how (src/certify/provenance.ts). */
  partial: ReadonlyMap<string, string>;
}

/** A group's recorded answers by operation, each rebuilt once (findings attach an exchange to several checks). */
type Traffic = Map<string, { res: HttpResponse; probe?: Probe }[]>;

function trafficOf(checks: readonly CheckResult[]): Map<string, Traffic> {
  const seen = new Map<string, Set<string>>();
  const out = new Map<string, Traffic>();
  for (const c of checks) {
    const keys = seen.get(c.group) ?? seen.set(c.group, new Set()).get(c.group)!;
    const group = out.get(c.group) ?? out.set(c.group, new Map()).get(c.group)!;
    for (const x of c.exchanges) {
      if (!x.operation || maybeCut(x)) continue;
      const key = exchangeKey(x);
      if (keys.has(key)) continue;
      keys.add(key);
      const res = answerOf(x);
      if (!res) continue;
      const list = group.get(x.operation) ?? group.set(x.operation, []).get(x.operation)!;
      list.push({ res, ...(x.probe ? { probe: x.probe as Probe } : {}) });
    }
  }
  return out;
}

export function rejudgeRun(i: RejudgeInputs): Rejudgement {
  const { report } = i;
  const traffic = trafficOf(report.checks);
  const out: RejudgedCheck[] = [];
  let firstDifference: Rejudgement['firstDifference'];
  for (const c of report.checks) {
    const r = rejudgeOne(c, i.planned.checks.get(c.id)!.def, i, traffic.get(c.group));
    if (r.difference && !firstDifference) firstDifference = { check: c.id, message: r.difference };
    out.push(r);
  }
  return {
    checks: out,
    rejudged: out.filter((r) => r.rejudged !== undefined).length,
    answerOnly: out.filter((r) => r.answerOnly).length,
    planned: i.planned.checks.size,
    notRejudged: out.filter((r) => r.rejudged === undefined).map((r) => ({ id: r.id, reason: r.reason! })),
    ...(firstDifference ? { firstDifference } : {}),
  };
}

/** The status each check counts with: derived where re-judged, as recorded where not (and listed). */
export function judgedChecks(report: RunReport, r: Rejudgement): CheckResult[] {
  return report.checks.map((c, k) => ({ ...c, status: r.checks[k]!.rejudged ?? c.status }));
}

const differs = (c: CheckResult, rejudged: CheckStatus, difference: string): RejudgedCheck => ({ id: c.id, recorded: c.status, rejudged, difference });

function rejudgeOne(c: CheckResult, def: CheckDef, i: RejudgeInputs, traffic: Traffic | undefined): RejudgedCheck {
  const base = { id: c.id, recorded: c.status };
  const not = (reason: string): RejudgedCheck => ({ ...base, reason });
  const { catalogue, settings } = i;
  const level = catalogue.requirements.get(def.requirement).level;
  // Skipped before any request: the run's settings say so, or they do not.
  const before = preconditionFailure(def, settings, catalogue.spec, catalogue.binding);
  if (before) {
    if (c.status !== 'skipped' || c.skip_cause !== before.cause || c.exchanges.length > 0) {
      return differs(c, 'skipped', `recorded ${c.status}${c.skip_cause ? ` (${c.skip_cause})` : ''}, but the run's settings skip it before any request: ${before.reason} (${before.cause})`);
    }
    return { ...base, rejudged: 'skipped' };
  }
  if (c.status === 'skipped') return rejudgeSkip(c, def, i, traffic);
  if (level === 'INFO' && (c.status === 'failed' || c.status === 'warning')) return differs(c, 'error', `recorded ${c.status}, but an INFO check cannot fail (it records what the target does)`);
  if (c.status === 'error') return rejudgeError(c, def, i);
  if (OBSERVED_VARIANTS.has(def.variant) && def.operation) return rejudgeTraffic(c, def.operation, catalogue, traffic);
  if (!def.judge) return not(inlineReason(c, def.variant));
  const o = judge(c, def, i);
  if (!o) return not('no answer recorded');
  const partial = i.partial.get(c.id) ?? (def.judgesEvidenceOf ? i.partial.get(def.judgesEvidenceOf) : undefined);
  const sameFailure = (o.status === 'failed' || o.status === 'warning') && o.status === c.status && (c.message ?? '').startsWith(o.message ?? '');
  if (def.comparesState) {
    // The judge covers the probe's answer; a failure of the run's own state comparison stands as recorded.
    if (o.status === 'error') return not('no answer to its probe recorded');
    if ((o.status === 'failed' || o.status === 'warning') && !sameFailure) {
      if (partial) return not(`${partial}, and judged on what was kept it gives ${o.status}: ${o.message ?? ''}`);
      return { ...differs(c, o.status, `recorded ${c.status}, re-judged ${o.status}: ${o.message ?? ''}`), answerOnly: true };
    }
    return { ...base, rejudged: c.status, answerOnly: true };
  }
  if (o.status !== c.status || ((o.status === 'failed' || o.status === 'warning') && !sameFailure)) {
    if (partial) return not(`${partial}, and judged on what was kept it gives ${o.status}${o.message ? `: ${o.message}` : ''}`);
    return o.status !== c.status
      ? differs(c, o.status, `recorded ${c.status}, re-judged ${o.status}${o.message ? `: ${o.message}` : ''}`)
      : differs(c, o.status, `recorded message ${JSON.stringify(c.message)}, re-judged ${JSON.stringify(o.message)}`);
  }
  return { ...base, rejudged: o.status };
}

/** The check's judge on its recorded answers and facts, at its planned level; undefined when nothing was answered. */
function judge(c: CheckResult, def: CheckDef, i: RejudgeInputs): Outcome | undefined {
  const source = def.judgesEvidenceOf ? i.report.checks.find((x) => x.id === def.judgesEvidenceOf) : c;
  const answers = (source?.exchanges ?? []).flatMap((x) => viewed(answerOf(x), i.catalogue) ?? []);
  if (answers.length === 0) return undefined;
  return judgeOutcome(def.judge!, answers, i.catalogue.requirements.get(def.requirement).level, i.report.run.strict, c.facts);
}

/**
 * A skip after the run began: a credential or live-environment skip must name a setting the run did not have; any
 * skip must not hide answers its judge fails (unless its evidence was cut); what else it rests on stays the run's.
 */
function rejudgeSkip(c: CheckResult, def: CheckDef, i: RejudgeInputs, traffic: Traffic | undefined): RejudgedCheck {
  const base = { id: c.id, recorded: c.status };
  const cause = c.skip_cause;
  const message = c.message ?? '';
  if (cause === 'waived' || cause === 'capabilities' || cause === 'not-applicable') {
    return differs(c, 'passed', `recorded skipped (${cause}: ${message}), but the run's settings and document do not leave it out: only they decide that, before any request`);
  }
  if (cause === 'credential') {
    const named = CREDENTIAL_NAMED.find(([re]) => re.test(message));
    if (!named || i.settings.has[named[1]]) return differs(c, 'passed', `recorded skipped for a credential (${message}), but the run had ${named ? 'it' : 'every credential its checks need'} (run.settings.credentials)`);
  }
  if (cause === 'live-environment' && !(i.settings.environment === 'live' && !i.settings.allowLiveWrites)) {
    return differs(c, 'passed', `recorded skipped as a live environment's (${message}), but the run was not a live one without --allow-live-writes`);
  }
  if (OBSERVED_VARIANTS.has(def.variant) && def.operation) {
    const seen = trafficAnswers(def.operation, traffic);
    const op = i.catalogue.spec.byId.get(def.operation);
    const applicable = op ? judgeTraffic(i.catalogue.spec, op, def.requirement, seen).applicable : 0;
    if (applicable > 0) return differs(c, 'passed', `recorded skipped (${message}), but ${plural(applicable, 'recorded answer')} to ${def.operation} ${applicable === 1 ? 'is one' : 'are ones'} it applies to`);
    return { ...base, rejudged: 'skipped' };
  }
  if (!def.judge) return { ...base, reason: `skipped by the run (${cause ?? 'no cause'}: ${message}); taken as recorded` };
  const o = judge(c, def, i);
  if (!o) return { ...base, reason: `skipped by the run before any answer (${cause ?? 'no cause'}): ${message}` };
  if (o.status === 'skipped') return { ...base, rejudged: 'skipped' };
  if ((o.status === 'failed' || o.status === 'warning') && !i.partial.has(c.id) && !(def.judgesEvidenceOf && i.partial.has(def.judgesEvidenceOf)) && !def.comparesState) {
    return differs(c, o.status, `recorded skipped (${cause ?? 'no cause'}: ${message}), but its recorded answers fail its judge: ${o.message ?? ''}`);
  }
  return { ...base, reason: `skipped by the run after ${plural(c.exchanges.length, 'exchange')} (${cause ?? 'no cause'}: ${message}); what it skipped on is the run's` };
}

/**
 * An error is the target's when the evidence shows it: a transport failure, or 429/503 answers for a rate-limited
 * one. Otherwise its judge decides: on answers it fails, the error hides a failure; on none, it is no error.
 */
function rejudgeError(c: CheckResult, def: CheckDef, i: RejudgeInputs): RejudgedCheck {
  const base = { id: c.id, recorded: c.status };
  const transport = c.exchanges.some((x) => x.error !== undefined && x.response === undefined);
  const throttled = c.exchanges.some((x) => x.response?.status === 429 || x.response?.status === 503);
  if (transport || (c.cause === 'rate-limited' && throttled)) return { ...base, reason: `errored on a transport failure or throttling its evidence shows: ${c.message ?? ''}` };
  const o = def.judge ? judge(c, def, i) : undefined;
  if (o?.status === 'error') return { ...base, rejudged: 'error' };
  if (o) return differs(c, o.status, `recorded error (${c.message ?? ''}), but its recorded answers give ${o.status}${o.message ? `: ${o.message}` : ''}`);
  return differs(c, 'passed', `recorded error (${c.message ?? ''}), but its evidence shows no transport failure and no answer to judge it on`);
}

/**
 * An answer as the check read it: a bound vendor operation's answer in the reference's terms, through the same
 * binding (the observed-traffic checks judge the raw answer, as the live observer does).
 */
function viewed(res: HttpResponse | undefined, catalogue: Catalogue): HttpResponse | undefined {
  const { binding } = catalogue;
  const op = res?.exchange.operation ? catalogue.spec.byId.get(res.exchange.operation) : undefined;
  if (!res || !op || (binding.isIdentity && !binding.boundErrors)) return res;
  try {
    return bindCall(binding, {}, op, {}, {}).view(res);
  } catch {
    return res;
  }
}

/** The recorded answers to an operation of the suite, but those the evidence may have cut. */
const trafficAnswers = (operationId: string, traffic: Traffic | undefined): { res: HttpResponse; probe?: Probe }[] => traffic?.get(operationId) ?? [];

function rejudgeTraffic(c: CheckResult, operationId: string, catalogue: Catalogue, traffic: Traffic | undefined): RejudgedCheck {
  const base = { id: c.id, recorded: c.status };
  const op = catalogue.spec.byId.get(operationId);
  if (!op) return { ...base, reason: 'its operation is not in the document' };
  const answers = trafficAnswers(operationId, traffic);
  let judged: ReturnType<typeof judgeTraffic>;
  try {
    judged = judgeTraffic(catalogue.spec, op, c.requirement, answers);
  } catch (e) {
    return { ...base, reason: `the document prevents judging: ${(e as Error).message}` };
  }
  const failedNow = judged.findings.length > 0;
  const failedThen = c.status === 'failed' || c.status === 'warning';
  const level = catalogue.requirements.get(c.requirement).level;
  if (failedNow && !failedThen) {
    const f = judged.findings[0]!;
    return differs(c, level === 'MUST' || level === 'CONTRACT' ? 'failed' : 'warning', `recorded ${c.status}, but the recorded answer to ${f.res.exchange.request.method} ${f.res.exchange.request.url} gives: ${f.message}`);
  }
  if (failedThen && !judged.findings.some((f) => (c.message ?? '').startsWith(f.message))) {
    return differs(c, 'passed', `recorded ${c.status} (${c.message ?? ''}), but no recorded answer gives that finding`);
  }
  return { ...base, rejudged: c.status };
}

