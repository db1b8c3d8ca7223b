/**
 * Re-judging a run from its recorded evidence, offline: each check that declares a judge is judged again by that
 * same function on the answers rebuilt from its exchanges; the observed-traffic checks by the same evaluators over
 * the recorded traffic of their operation. Then the counts and the verdict are computed again from what was judged.
 */
import type { Catalogue } from '../binding/catalogue.js';
import { judgeTraffic, OBSERVED_VARIANTS } from '../checks/traffic.js';
import { planChecks } from '../checks/planner.js';
import type { CheckDef } from '../harness/check.js';
import { answerOf, judgeOutcome } from '../harness/judge.js';
import { bindCall } from '../harness/bound-call.js';
import type { Probe } from '../http/request-parts.js';
import type { HttpResponse } from '../http/client.js';
import type { CheckResult, CheckStatus, RecordedExchange, RunReport, Verdict } from '../results/model.js';
import { buildCoverage, requirementCoverage, type Absent } from '../results/coverage.js';
import { computeVerdict, countStatuses } from '../results/verdict.js';

export interface RejudgedCheck {
  id: string;
  recorded: CheckStatus;
  /** Re-judged status, or undefined when the check cannot be re-judged offline (`reason` says why). */
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
  total: number;
  /** Why the others could not be re-judged, with how many. */
  notRejudged: { reason: string; count: number }[];
  firstDifference?: { check: string; message: string };
  recomputed: { verdict: Verdict; counts: RunReport['counts']; must: NonNullable<RunReport['coverage']>['must'] | undefined };
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

export async function rejudgeRun(report: RunReport, catalogue: Catalogue): Promise<Rejudgement> {
  const planned = new Map<string, CheckDef>();
  for (const p of await planChecks(catalogue, report.run.groups)) planned.set(p.id, p.def);
  // The recorded traffic of each group, once per exchange (findings attach an exchange to several checks).
  const traffic = new Map<string, Map<string, RecordedExchange>>();
  for (const c of report.checks) {
    const g = traffic.get(c.group) ?? traffic.set(c.group, new Map()).get(c.group)!;
    for (const x of c.exchanges) if (x.operation) g.set(exchangeKey(x), x);
  }
  const out: RejudgedCheck[] = [];
  let firstDifference: Rejudgement['firstDifference'];
  for (const c of report.checks) {
    const r = rejudgeOne(c, planned.get(c.id), report, catalogue, traffic.get(c.group));
    if (r.difference && !firstDifference) firstDifference = { check: c.id, message: r.difference };
    out.push(r);
  }
  const judged: CheckResult[] = report.checks.map((c, i) => ({ ...c, status: out[i]!.rejudged ?? c.status }));
  const counts = countStatuses(judged);
  let must: Rejudgement['recomputed']['must'];
  let coverage;
  if (report.coverage) {
    const recorded = new Map(report.coverage.requirements.map((r) => [r.id, r]));
    // Why a requirement has no check is the run's configuration, not evidence: it is taken as recorded.
    const absent = (id: string): Absent => {
      const r = recorded.get(id);
      return r ? { status: r.status, ...(r.cause ? { cause: r.cause } : {}), ...(r.reason ? { reason: r.reason } : {}) } : { status: 'not-applicable' };
    };
    coverage = buildCoverage(requirementCoverage(judged, catalogue.requirements.all, { waivers: report.run.waivers ?? [], absent }), report.coverage.operations);
    must = coverage.must;
  }
  const verdict = computeVerdict(judged, { incomplete: report.run.incomplete_reason !== undefined, ...(coverage ? { coverage } : {}) });
  const notRejudged = new Map<string, number>();
  for (const r of out) if (r.rejudged === undefined) notRejudged.set(r.reason!, (notRejudged.get(r.reason!) ?? 0) + 1);
  return {
    checks: out,
    rejudged: out.filter((r) => r.rejudged !== undefined).length,
    answerOnly: out.filter((r) => r.answerOnly).length,
    total: out.length,
    notRejudged: [...notRejudged].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count),
    ...(firstDifference ? { firstDifference } : {}),
    recomputed: { verdict, counts, must },
  };
}

function rejudgeOne(c: CheckResult, def: CheckDef | undefined, report: RunReport, catalogue: Catalogue, traffic: Map<string, RecordedExchange> | undefined): RejudgedCheck {
  const base = { id: c.id, recorded: c.status };
  const not = (reason: string): RejudgedCheck => ({ ...base, reason });
  if (!def) return not('no such check in this suite version for this document (the run and the verifier differ)');
  if (c.status === 'error') return not('the check could not complete (error): nothing was judged');
  if (OBSERVED_VARIANTS.has(def.variant) && def.operation) return rejudgeTraffic(c, def.operation, catalogue, traffic);
  if (!def.judge) return not(inlineReason(c, def.variant));
  const answers = c.exchanges.flatMap((x) => viewed(answerOf(x), catalogue) ?? []);
  if (answers.length === 0) return not(c.status === 'skipped' ? 'skipped before any answer: nothing was judged' : 'no answer recorded');
  const o = judgeOutcome(def.judge, answers, c.level, report.run.strict, c.facts);
  const cut = c.exchanges.some((x) => x.response?.body_truncated);
  // More than 20 exchanges: the evidence kept the first and last ones (the run's judge saw them all).
  const dropped = /\(\d+ more exchanges not kept\)$/.test(c.message ?? '');
  if (def.comparesState) {
    // The judge covers the probe's answer; a failure or skip of the run's own state comparison stands as recorded.
    if (o.status === 'error') return not(c.status === 'skipped' ? 'skipped before its probe was sent: nothing was judged' : 'no answer to its probe recorded');
    const judgedFailed = o.status === 'failed' || o.status === 'warning';
    if (judgedFailed && (o.status !== c.status || !(c.message ?? '').startsWith(o.message ?? ''))) {
      if (dropped) return not('some of its exchanges were not kept (the evidence keeps 20 per check)');
      if (!cut) return { ...base, rejudged: o.status, answerOnly: true, difference: `recorded ${c.status}, re-judged ${o.status}: ${o.message ?? ''}` };
      return not('the answer it judged was cut at the 4 KiB evidence cap');
    }
    return { ...base, rejudged: c.status, answerOnly: true };
  }
  if (o.status !== c.status) {
    if (cut) return not('the answer it judged was cut at the 4 KiB evidence cap');
    if (dropped) return not('some of its exchanges were not kept (the evidence keeps 20 per check)');
    return { ...base, rejudged: o.status, difference: `recorded ${c.status}, re-judged ${o.status}${o.message ? `: ${o.message}` : ''}` };
  }
  if ((o.status === 'failed' || o.status === 'warning') && o.message && !(c.message ?? '').startsWith(o.message) && !cut && !dropped) {
    return { ...base, rejudged: o.status, difference: `recorded message ${JSON.stringify(c.message)}, re-judged ${JSON.stringify(o.message)}` };
  }
  return { ...base, rejudged: o.status };
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

function rejudgeTraffic(c: CheckResult, operationId: string, catalogue: Catalogue, traffic: Map<string, RecordedExchange> | undefined): RejudgedCheck {
  const base = { id: c.id, recorded: c.status };
  const op = catalogue.spec.byId.get(operationId);
  if (!op) return { ...base, reason: 'its operation is not in the document' };
  if (c.status === 'skipped') return { ...base, reason: 'skipped: no observed answer applied to it' };
  const answers: { res: HttpResponse; probe?: Probe }[] = [];
  for (const x of traffic?.values() ?? []) {
    if (x.operation !== operationId || x.response?.body_truncated) continue;
    const res = answerOf(x);
    if (res) answers.push({ res, ...(x.probe ? { probe: x.probe as Probe } : {}) });
  }
  let judged: ReturnType<typeof judgeTraffic>;
  try {
    judged = judgeTraffic(catalogue.spec, op, c.requirement, answers);
  } catch (e) {
    return { ...base, reason: `the document prevents judging: ${(e as Error).message}` };
  }
  const failedNow = judged.findings.length > 0;
  const failedThen = c.status === 'failed' || c.status === 'warning';
  if (failedNow && !failedThen) {
    const f = judged.findings[0]!;
    return { ...base, rejudged: c.level === 'MUST' || c.level === 'CONTRACT' ? 'failed' : 'warning', difference: `recorded ${c.status}, but the recorded answer to ${f.res.exchange.request.method} ${f.res.exchange.request.url} gives: ${f.message}` };
  }
  if (failedThen && !judged.findings.some((f) => (c.message ?? '').startsWith(f.message))) {
    return { ...base, rejudged: 'passed', difference: `recorded ${c.status} (${c.message ?? ''}), but no recorded answer gives that finding` };
  }
  return { ...base, rejudged: c.status };
}
