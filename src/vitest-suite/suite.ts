import { describe, inject, test } from 'vitest';
import type { SuiteSlug } from '../catalogue/groups.js';
import type { Operation } from '../catalogue/openapi.js';
import { genericChecks } from '../checks/index.js';
import { isExplorationVariant } from '../results/exploration.js';
import { evaluatorsFor } from '../checks/traffic.js';
import type { CheckResult } from '../results/model.js';
import { createWorld } from '../world/index.js';
import { CheckSkipped, describeRequest, PreconditionFailed } from '../harness/assert.js';
import { madeUpRefusal } from '../values/made-up.js';
import { bindCall } from '../harness/bound-call.js';
import { checkId, EvidenceLog, executeCheck, testName, type CheckContext, type CheckDef } from '../harness/check.js';
import type { HttpResponse } from '../http/client.js';
import type { RecordedExchange, RefusedValue } from '../results/model.js';
import { CreatedTally } from './created.js';
import { withRetries } from '../harness/retry.js';
import { TrafficObserver } from '../harness/observer.js';
import { ExplorationLedger } from '../harness/explorations.js';
import { requestTotalsReporter } from '../harness/request-totals.js';
import { checkActivityReporter } from '../harness/checks-in-progress.js';
import { preconditionFailure, preconditionSettingsOf } from '../harness/preconditions.js';
import { operationRequest, releaseFaker, seededFaker, sendRecorded, workerRuntime, type OperationRequest, type WorkerRuntime } from '../harness/runtime.js';
import { idempotencyKeyFor, keyScope, worldKeyScope } from '../harness/idempotency-key.js';
import { WAITING_FILE } from '../paths.js';
import type { WorkerConfig } from '../harness/worker-config.js';
import type { World, WorldScope } from '../harness/world.js';
import type { Probe } from '../http/request-parts.js';
import { deliveryExchange } from '../webhooks/delivery.js';

/** What the workers' suites report about themselves (suite meta `fsapi_stats`). */
export interface SuiteStats {
  requests: number;
  /**
   * Resources created (201 answers that were not replays), by operationId. In a check's meta, only the counts that
   * changed since the suite's previous check ended (CreatedTally.takeChanges), as totals.
   */
  created: Record<string, number>;
}
import { reproduceScript, setupFor } from '../results/reproduce.js';

/** The conformance run's worker config, or undefined outside a conformance run (planning, the project's own tests). */
function runConfig(): WorkerConfig | undefined {
  try {
    return inject('fsapi');
  } catch {
    return undefined;
  }
}

type Sender = (req: OperationRequest, record: (x: RecordedExchange) => void) => Promise<HttpResponse>;

/**
 * Declares a suite: the generic checks of the group's operations plus the suite's own flows. Inside a
 * conformance run it registers them as vitest tests; anywhere else it does nothing, so suite files can be
 * imported to plan (list) their checks.
 */
export async function defineSuite(suite: SuiteSlug, flows: CheckDef[]): Promise<void> {
  const cfg = runConfig();
  if (!cfg) return;
  const rt = await workerRuntime(cfg);
  registerChecks(suiteGroups(rt, suite, flows).map((g) => ({ ...g, register: registrar(rt, g.suite) })));
}

type CheckGroup = { suite: SuiteSlug | typeof WAITING_FILE; defs: CheckDef[] };

/** A suite file's groups of checks: the suite's own, after the checks that wait of every group when it hosts them. */
function suiteGroups(rt: WorkerRuntime, suite: SuiteSlug, flows: CheckDef[]): CheckGroup[] {
  const { cfg } = rt;
  const { spec } = rt.catalogue;
  const plan = { spec, isReferenceProfile: rt.catalogue.isReferenceProfile, binding: rt.catalogue.binding };
  // Checks that wait run in the waiting file (suites/waiting.conformance.ts), all of them side by side; in a run of
  // one suite, or of one that holds most of the checks, in that suite's file, first (src/runner/run-plan.ts). A shard
  // runs whole suites (src/runner/shards.ts): nothing else is filtered here.
  const defs = [...genericChecks(suite, plan), ...flows];
  const own = { suite, defs: defs.filter((d) => !d.waits) };
  if (cfg.waitsHost !== suite) return [own];
  const waits = cfg.groups.flatMap((g) => (g === suite ? defs : genericChecks(g, plan))).filter((d) => d.waits);
  return [{ suite: WAITING_FILE, defs: waits }, own];
}

/**
 * A suite's groups of checks and their registrars, planned by its first part and kept for the others: a worker
 * keeps its modules' state from one file to the next (the run's vitest does not isolate files), and a suite run in
 * parts is one suite, with one traffic observer, one set of worlds and one tally, as it is in one file.
 */
const partedSuites = new Map<string, { groups: (CheckGroup & { register: (def: CheckDef) => void })[]; parts: [group: number, def: CheckDef][][] }>();

/**
 * Declares part `part` of `parts` of a suite too large for one file (src/runner/suite-parts.ts): its share of the
 * checks in the order one file declares them (those that run side by side, then those that come after, then those
 * over the observed traffic), so that the parts, run one after another in one worker, run the checks as one file
 * would. vitest keeps some 5 KB for each declared check until its file ends: 57,413 checks in one file held about
 * 300 MB of it.
 */
export async function defineSuitePart(suite: SuiteSlug, part: number, parts: number): Promise<void> {
  const cfg = runConfig();
  if (!cfg) return;
  const rt = await workerRuntime(cfg);
  const key = `${cfg.runId} ${suite}`;
  let parted = partedSuites.get(key);
  if (!parted) {
    // A later part with no first part before it in this worker would plan and observe on its own: not the same run.
    if (part !== 1) throw new Error(`part ${part} of ${parts} of suite ${suite} ran in a worker where its first part did not: a suite's parts must run one after another in one worker`);
    // The groups keep no checks: each part's are handed to it, and let go of with its file.
    const groups = suiteGroups(rt, suite, []).map((g) => ({ ...g, register: registrar(rt, g.suite) }));
    const sequence: [number, CheckDef][] = [];
    for (const [i, g] of groups.entries()) for (const d of g.defs) if (phaseOf(d) === 'side by side') sequence.push([i, d]);
    for (const [i, g] of groups.entries()) {
      for (const d of g.defs) if (phaseOf(d) === 'after') sequence.push([i, d]);
      for (const d of g.defs) if (phaseOf(d) === 'observed') sequence.push([i, d]);
    }
    const size = Math.ceil(sequence.length / parts);
    partedSuites.set(key, (parted = { groups: groups.map((g) => ({ ...g, defs: [] })), parts: Array.from({ length: parts }, (_, i) => sequence.slice(i * size, (i + 1) * size)) }));
  }
  const mine = parted.parts[part - 1] ?? [];
  parted.parts[part - 1] = [];
  registerChecks(parted.groups.map((g, i) => ({ ...g, defs: mine.filter(([at]) => at === i).map(([, d]) => d) })).filter((g) => g.defs.length));
  if (part === parts) partedSuites.delete(key);
}

/**
 * Declares the checks that sit out a deliberate wait (the replay delay) for every group of the run, in one file
 * that starts first: each wait then costs the run once, not once per suite. They keep their group; their
 * requests are not among any suite's observed traffic (the same requests are, from the immediate replays).
 */
export async function defineWaitingChecks(): Promise<void> {
  const cfg = runConfig();
  if (!cfg) return;
  const rt = await workerRuntime(cfg);
  const { spec } = rt.catalogue;
  const plan = { spec, isReferenceProfile: rt.catalogue.isReferenceProfile, binding: rt.catalogue.binding };
  const defs = cfg.groups.flatMap((g) => genericChecks(g, plan)).filter((d) => d.waits);
  registerChecks([{ suite: WAITING_FILE, defs, register: registrar(rt, WAITING_FILE) }]);
}

/**
 * Declares the checks of one file, each group of them (a suite, or the checks that wait) with its own traffic,
 * worlds and explorations: first the concurrent checks of every group, which run side by side, then each group's
 * checks that come after them and those over the traffic it observed.
 */
function registerChecks(registered: (CheckGroup & { register: (def: CheckDef) => void })[]): void {
  // Consecutive concurrent describe blocks run together: the checks that wait, declared first, start first.
  for (const { suite, defs, register } of registered) {
    describe.concurrent(suite, () => {
      for (const def of defs.filter((d) => phaseOf(d) === 'side by side')) register(def);
    });
  }
  for (const { suite, defs, register } of registered) {
    if (defs.every((d) => phaseOf(d) === 'side by side')) continue;
    // Sibling describe blocks run in order, but consecutive concurrent ones together: the concurrent block of the
    // checks that come after sits in a plain one.
    describe(`${suite}: after`, () => {
      describe.concurrent(`${suite}: lifecycle`, () => {
        for (const def of defs.filter((d) => phaseOf(d) === 'after')) register(def);
      });
    });
    // Checks over everything the suite observed run after all the others (describe blocks run in order).
    describe(`${suite}: observed traffic`, () => {
      for (const def of defs.filter((d) => phaseOf(d) === 'observed')) register(def);
    });
  }
}

/** When a check runs in its file: beside the others, after them, or over the traffic they all made (last). */
function phaseOf(d: CheckDef): 'side by side' | 'after' | 'observed' {
  return d.last ? 'observed' : d.after ? 'after' : 'side by side';
}

/** How one group of checks is declared as vitest tests: its traffic observer, worlds, explorations and request totals. */
function registrar(rt: WorkerRuntime, suite: SuiteSlug | typeof WAITING_FILE): (def: CheckDef) => void {
  const { cfg } = rt;
  const { spec } = rt.catalogue;
  const observer = new TrafficObserver(evaluatorsFor(spec));
  const explorations = new ExplorationLedger();
  const created = new CreatedTally();
  // Requests this suite has sent: its running total rides along with every result.
  let requests = 0;
  const observe = (op: Operation, res: HttpResponse, probe: Probe | undefined) => {
    created.note(op, res);
    // Which operation and probe the answer was judged as, so `verify` can judge the recorded traffic again.
    res.exchange.operation = op.operationId;
    if (probe) res.exchange.probe = probe;
    observer.observe(op, res, probe);
  };
  const sent = requestTotalsReporter(cfg.runId);
  const activity = checkActivityReporter(cfg.runId);
  const send: Sender = (req, record) => {
    requests++;
    sent(suite, requests);
    return sendRecorded(rt, req, record, observe);
  };
  const worlds = new Map<'primary' | 'second', World>();
  const setupLog: RecordedExchange[] = [];
  const worldOf = (principal: 'primary' | 'second'): World => {
    let w = worlds.get(principal);
    if (!w) {
      let n = 0;
      const scope: WorldScope = {
        principal,
        spec,
        config: cfg,
        faker: seededFaker(cfg.seed, `${suite}:world:${principal}`),
        call: async (id, parts = {}, opts = {}) => {
          // A prerequisite is meant valid: one the suite cannot make valid for the document is not sent.
          const c = bindCall(rt.catalogue.binding, cfg, id, parts, { ...opts, as: principal }, true);
          const req = operationRequest(rt, c.op, c.parts, c.opts, () => idempotencyKeyFor(cfg.runId, worldKeyScope(suite, principal), n++));
          // Kept for reproductions: a failing check's script starts with the set-up of what it names.
          return c.view(await send(req, (x) => setupLog.push(x)));
        },
      };
      w = createWorld(scope);
      worlds.set(principal, w);
    }
    return w;
  };

  const register = (def: CheckDef) => {
    const req = rt.catalogue.requirements.get(def.requirement);
    const limitMs = def.timeoutMs ?? Math.max(30_000, cfg.timeoutMs * 4);
    test(testName(def, req), { timeout: limitMs }, async ({ task, skip }) => {
      const id = checkId(def);
      // The progress line names a check that holds its worker for seconds; the run's watchdog, one past its limit.
      activity.started(id, def.operation, limitMs);
      let result: CheckResult;
      try {
        result = withReproduction(await withRetries(await runOne(rt, def, { observer, explorations }, send, worldOf), cfg.rerun, (attempt) => runOne(rt, def, { observer, explorations }, send, worldOf, attempt)), def, cfg.baseUrl, setupLog);
      } finally {
        activity.ended(id);
      }
      // The suite's running totals ride along with every result (suite meta set in afterAll never reaches reporters).
      Object.assign(task.meta, { fsapi: result, fsapi_stats: { suite, requests, created: created.takeChanges() }, vitestWorker: process.env['VITEST_POOL_ID'] });
      if (result.status === 'skipped') skip(result.message);
      if (result.status === 'failed' || result.status === 'warning' || result.status === 'error') {
        throw verdictError(`${result.status.toUpperCase()}: ${result.message ?? ''}`);
      }
    });
  };

  return register;
}

/**
 * The error that tells vitest a check did not pass, without stack frames: the check's result is the verdict, and
 * the main thread parsed and source-mapped a stack for every one (reading the frames' files anew each time: 0.5 s
 * of its profiled 7.9 s in a 200-operation run of Stripe's document) to drop it from every report.
 */
function verdictError(message: string): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new Error(message);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

async function runOne(
  rt: WorkerRuntime,
  def: CheckDef,
  shared: { observer: TrafficObserver; explorations: ExplorationLedger },
  send: Sender,
  worldOf: (p: 'primary' | 'second') => World,
  attempt = 0,
): Promise<CheckResult> {
  const { cfg, catalogue } = rt;
  const { spec } = catalogue;
  const id = checkId(def);
  // A retry sends fresh idempotency keys and data: the same ones would be replays of the first run's requests.
  const scope = keyScope(id, attempt);
  const evidence = new EvidenceLog();
  const observations: string[] = [];
  const facts: Record<string, number | string> = {};
  const refused: RefusedValue[] = [];
  const delivered = new Set<number>();
  let keys = 0;
  let faker: ReturnType<typeof seededFaker> | undefined;
  const { binding } = catalogue;
  // A flow names its reference operation; a generic check, the operation of the document in use.
  const op = def.operation ? (def.family === 'flow' ? binding.resolve(def.operation)?.vendor : spec.byId.get(def.operation)) : undefined;
  const ctx: CheckContext = {
    def,
    binding,
    requirement: catalogue.requirements.get(def.requirement),
    op,
    spec,
    config: cfg,
    get world() {
      return worldOf('primary');
    },
    get secondWorld() {
      if (!cfg.credentials.second) throw new CheckSkipped('no second business configured (FSAPI_SECOND_API_KEY, FSAPI_SECOND_TENANT_ID)', 'credential');
      return worldOf('second');
    },
    // Built on first use (0.4 ms each): most checks never need generated data.
    get faker() {
      return (faker ??= seededFaker(cfg.seed, scope));
    },
    signal: rt.abort.signal,
    observed: shared.observer,
    explorations: shared.explorations,
    idempotencyKey: () => idempotencyKeyFor(cfg.runId, scope, keys++),
    operation(opId) {
      return bindCall(binding, cfg, opId, {}, {}).op;
    },
    async call(opRef, parts = {}, opts = {}) {
      const c = bindCall(binding, cfg, opRef, parts, opts);
      const req = operationRequest(rt, c.op, c.parts, c.opts, ctx.idempotencyKey);
      const res = evidence.answered(await send(req, evidence.add));
      // The one rule on made-up values: "no such resource" for one is no verdict on the check's requirement.
      const refused = madeUpRefusal(res, req.madeUp, req.probe);
      if (refused) throw new PreconditionFailed(`${describeRequest(res)}: ${refused}`);
      return evidence.answered(c.view(res));
    },
    async send(req) {
      return evidence.answered(await send(req, evidence.add));
    },
    skip(reason, cause) {
      throw new CheckSkipped(reason, cause);
    },
    observe(text) {
      observations.push(text);
    },
    attach(x, answer) {
      evidence.add(x);
      if (answer) evidence.answered(answer);
    },
    recordDelivery(d) {
      if (delivered.has(d.seq) || !cfg.receiver) return;
      delivered.add(d.seq);
      evidence.add(deliveryExchange(d, new URL(cfg.receiver.inspectUrl).origin, rt.redactor));
    },
    fact(name, value) {
      facts[name] = value;
    },
    refusedValue(v) {
      refused.splice(0, refused.length, v);
    },
  };
  const gated: CheckDef = {
    ...def,
    run: async (c) => {
      const why = preconditionFailure(def, preconditionSettingsOf(cfg), spec, binding);
      if (why) throw new CheckSkipped(why.reason, why.cause);
      await def.run(c);
    },
  };
  try {
    return await executeCheck(gated, ctx, {
      requirements: catalogue.requirements,
      strict: cfg.strict,
      redactor: rt.redactor,
      evidence,
      observations,
      facts,
      refused,
    });
  } finally {
    if (faker) releaseFaker(faker);
  }
}

/** A check that did not pass, with the script that replays its whole sequence after the set-up it depends on. */
function withReproduction(result: CheckResult, def: CheckDef, baseUrl: string, setupLog: readonly RecordedExchange[]): CheckResult {
  if (result.status !== 'failed' && result.status !== 'warning' && result.status !== 'error') return result;
  // An observed-traffic check's evidence is a sample of answers other checks got, not a sequence it sent: the first
  // offending one, after its set-up, reproduces it.
  // A delivery the receiver got is the target's request, not one to replay.
  // An exploration's is the minimal request its failure shrank to, which it records last.
  const sent = def.variant.startsWith('observed-') ? result.exchanges.slice(0, 1) : isExplorationVariant(def.variant) ? result.exchanges.slice(-1) : result.exchanges.filter((x) => !x.received);
  const script = reproduceScript(sent, { baseUrl, setup: setupFor(sent, setupLog) });
  return script ? { ...result, reproduce: script } : result;
}
