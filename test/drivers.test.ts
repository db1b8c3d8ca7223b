/**
 * The operation drivers (src/drivers) against the embedded sandbox, in process: the registry covers every
 * operation of the reference profile; each driver's request is accepted with a documented 2xx; each write's
 * effects go 0 → 1 in a fresh scope; a varied body stays in the same scope; and the read-only fields a create
 * smuggles are seen to take effect exactly when the sandbox's mass-assignment fault applies them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../sandbox/index.js';
import type { Operation } from '../src/catalogue/openapi.js';
import { evaluatorsFor } from '../src/checks/traffic.js';
import { secretsOf, type Credentials } from '../src/config/run-config.js';
import { DRIVERS, type DriverScope } from '../src/drivers/index.js';
import { readEffects, sameValue } from '../src/drivers/shared.js';
import { submissionsIn } from '../src/drivers/kyc.js';
import { appliedFields } from '../src/checks/input.js';
import type { JsonObject } from '../src/json.js';
import { CheckSkipped } from '../src/harness/assert.js';
import type { CheckContext, CheckDef } from '../src/harness/check.js';
import { TrafficObserver } from '../src/harness/observer.js';
import { ExplorationLedger } from '../src/harness/explorations.js';
import { operationRequest, seededFaker, type WorkerRuntime } from '../src/harness/runtime.js';
import { idempotencyKeyFor } from '../src/harness/idempotency-key.js';
import type { WorkerConfig } from '../src/harness/worker-config.js';
import type { World, WorldScope } from '../src/harness/world.js';
import { TargetClient, type HttpResponse } from '../src/http/client.js';
import { RateLimiter } from '../src/http/rate-limiter.js';
import { Redactor } from '../src/http/redact.js';
import { WebhookReceiver } from '../src/runner/receiver.js';
import { createWorld } from '../src/world/index.js';
import { loadCatalogue, type Catalogue } from '../src/binding/catalogue-in-use.js';
import { busy } from './helpers/busy.js';

/** An in-process stand-in for the suite runtime: one sandbox, one client, worlds per business, a context per "check". */
interface Harness {
  sandbox: RunningSandbox;
  catalogue: Catalogue;
  ctx(label: string): CheckContext;
  close(): Promise<void>;
}

async function harness(faults: string[] = []): Promise<Harness> {
  const catalogue = await loadCatalogue();
  const sandbox = await startSandbox({ faults, webhookRetryDelaysMs: [20, 40, 80, 160] });
  const receiver = new WebhookReceiver();
  const { url, inspectUrl } = await receiver.listen('127.0.0.1', 0);
  const [alpha, beta] = sandbox.tenants;
  sandbox.setWebhook(alpha!.tenant_id, { url, secret: sandbox.webhook_secret });
  const credentials: Credentials = {
    apiKey: alpha!.secret_key,
    tenantId: alpha!.tenant_id,
    second: { apiKey: beta!.secret_key, tenantId: beta!.tenant_id },
    webhookSecret: sandbox.webhook_secret,
  };
  const redactor = new Redactor(secretsOf(credentials));
  const client = new TargetClient({ baseUrl: sandbox.base_url, caPem: sandbox.ca_pem, timeoutMs: 15_000, maxResponseBytes: 10_000_000, redactor });
  const runId = `drivers-${Date.now()}`;
  const cfg: WorkerConfig = {
    runId,
    seed: 7,
    groups: [],
    strict: false,
    environment: 'sandbox',
    allowLiveWrites: false,
    embedded: true,
    baseUrl: sandbox.base_url,
    caPem: sandbox.ca_pem,
    credentials,
    receiver: { inspectUrl },
    specPath: catalogue.spec.path,
    isReferenceProfile: true,
    timeoutMs: 15_000,
    maxResponseBytes: 10_000_000,
    throttle: RateLimiter.shared(0),
    checksInFlight: 8,
    idempotencyParallel: 4,
    webhookWaitMs: 5_000,
    replayDelayMs: 0,
    explore: 0,
    exploreAllocation: { perOperation: 0, leftOut: [] },
    label: { emailDomain: 'fsapi-conformance.test', metadataKey: 'fsapi_run', metadataValue: runId },
  };
  const rt: WorkerRuntime = { cfg, catalogue, client, redactor, abort: new AbortController() };
  const { spec } = catalogue;
  const worlds = new Map<'primary' | 'second', World>();
  const worldOf = (principal: 'primary' | 'second'): World => {
    let w = worlds.get(principal);
    if (!w) {
      let n = 0;
      const scope: WorldScope = {
        principal,
        spec,
        config: cfg,
        faker: seededFaker(cfg.seed, `drivers:world:${principal}`),
        call: (id, parts = {}, opts = {}) =>
          client.send(operationRequest(rt, spec.byId.get(id)!, parts, { ...opts, as: principal }, () => idempotencyKeyFor(runId, `world:${principal}`, n++))),
      };
      worlds.set(principal, (w = createWorld(scope)));
    }
    return w;
  };
  const def: CheckDef = { requirement: 'FSAPI-CONTRACT-004', family: 'schema', group: 'customers', variant: 'driver-test', title: 'driver test', run: async () => undefined };
  return {
    sandbox,
    catalogue,
    ctx(label) {
      let keys = 0;
      const ctx: CheckContext = {
        def,
        requirement: catalogue.requirements.get('FSAPI-CONTRACT-004'),
        op: undefined,
        spec,
        binding: catalogue.binding,
        config: cfg,
        get world() {
          return worldOf('primary');
        },
        get secondWorld() {
          return worldOf('second');
        },
        faker: seededFaker(cfg.seed, label),
        signal: rt.abort.signal,
        observed: new TrafficObserver(evaluatorsFor(spec)),
        idempotencyKey: () => idempotencyKeyFor(runId, label, keys++),
        operation: (id) => spec.byId.get(id) ?? ctx.skip(`no ${id}`),
        call: (opRef, parts = {}, opts = {}) => client.send(operationRequest(rt, typeof opRef === 'string' ? ctx.operation(opRef) : opRef, parts, opts, ctx.idempotencyKey)),
        send: (req) => client.send(req),
        skip(reason): never {
          throw new CheckSkipped(reason);
        },
        observe: () => undefined,
        attach: () => undefined,
        recordDelivery: () => undefined,
        fact: () => undefined,
        explorations: new ExplorationLedger(),
        refusedValue: () => undefined,
      };
      return ctx;
    },
    async close() {
      await client.close();
      await receiver.close();
      await sandbox.close();
    },
  };
}

const WRITE = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
const documented2xx = (op: Operation, res: HttpResponse) => res.status >= 200 && res.status < 300 && op.responses.some((r) => r.status === String(res.status));
const scopeOf = (ctx: CheckContext): DriverScope => ({ ctx, world: ctx.world, as: 'primary' });

describe('the driver registry', () => {
  it('has a driver for each of the 46 operations of the reference profile, and for nothing else', async () => {
    const { spec } = await loadCatalogue();
    expect(spec.operations).toHaveLength(46);
    expect([...DRIVERS.keys()].sort()).toEqual(spec.operations.map((o) => o.operationId).sort());
  });

  it('gives every write effects and every create readOnly fields', async () => {
    const { spec } = await loadCatalogue();
    for (const op of spec.operations) {
      const d = DRIVERS.get(op.operationId)!;
      expect(d.kind === 'read', op.operationId).toBe(!WRITE.has(op.method));
      if (WRITE.has(op.method)) expect(d.effects, op.operationId).toBeDefined();
      if (d.kind === 'create') expect(Object.keys(d.readOnly?.fields ?? {}).length, op.operationId).toBeGreaterThan(0);
      // Bodies that are empty by schema (maxProperties 0) cannot vary; every other POST body can.
      const emptyBody = ['activateFeature', 'freezeCard', 'unfreezeCard'].includes(op.operationId);
      if (op.method === 'POST' || op.method === 'PATCH') expect(d.vary !== undefined, op.operationId).toBe(!emptyBody);
    }
  });
});

describe('helpers', () => {
  it('counts KYC submissions in a history even when a step is left out', () => {
    const h = (...s: string[]) => s.map((status) => ({ status, at: '2026-01-01T00:00:00Z' }));
    expect(submissionsIn(h('not_started'))).toBe(0);
    expect(submissionsIn(h('not_started', 'pending', 'in_review'))).toBe(1);
    expect(submissionsIn(h('not_started', 'pending', 'in_review', 'approved'))).toBe(1);
    expect(submissionsIn(h('not_started', 'approved'))).toBe(1);
    expect(submissionsIn(h('not_started', 'pending', 'in_review', 'rejected', 'pending', 'in_review'))).toBe(2);
    expect(submissionsIn(undefined)).toBe(0);
  });

  it('compares field values as an API reader would', () => {
    expect(sameValue('1000000.00', '1000000')).toBe(true);
    expect(sameValue('0.00', '100.00')).toBe(false);
    expect(sameValue('2001-02-03T04:05:06Z', '2001-02-03T04:05:06.000Z')).toBe(true);
    expect(sameValue(1000, '1000.00')).toBe(true);
    expect(sameValue('cus_a', 'cus_b')).toBe(false);
  });
});

describe('the drivers against the conformant sandbox', { timeout: busy(120_000) }, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(async () => h?.close());

  it('builds, for every operation, a request the sandbox answers with a documented 2xx (shared and fresh scopes)', async () => {
    const failures: string[] = [];
    await Promise.all(
      h.catalogue.spec.operations.map(async (op) => {
        for (const fresh of [false, true]) {
          const ctx = h.ctx(`valid:${op.operationId}:${fresh}`);
          const parts = await DRIVERS.get(op.operationId)!.build(scopeOf(ctx), { fresh });
          const res = await ctx.call(op, parts);
          if (!documented2xx(op, res)) failures.push(`${op.operationId} (fresh ${fresh}): ${res.status} ${res.text.slice(0, 160)}`);
        }
      }),
    );
    expect(failures).toEqual([]);
  });

  it("takes every write's effects from 0 to 1 in a fresh scope, and a second build in a check's own scope is accepted too", async () => {
    const failures: string[] = [];
    const writes = h.catalogue.spec.operations.filter((op) => DRIVERS.get(op.operationId)!.effects);
    expect(writes.length).toBe(16);
    await Promise.all(
      writes.map(async (op) => {
        const d = DRIVERS.get(op.operationId)!;
        const ctx = h.ctx(`effects:${op.operationId}`);
        const scope = scopeOf(ctx);
        const parts = await d.build(scope, { fresh: true });
        const before = await readEffects(scope, d.effects!(parts));
        const res = await ctx.call(op, parts);
        const after = await readEffects(scope, d.effects!(parts));
        if (before !== 0 || after !== 1 || !documented2xx(op, res)) failures.push(`${op.operationId}: ${before} → ${after} (answered ${res.status})`);
        // Non-fresh builds of a check own their consumable prerequisites: the first request is accepted.
        const own = await d.build(scope, { fresh: false });
        const ownRes = await ctx.call(op, own);
        if (!documented2xx(op, ownRes)) failures.push(`${op.operationId} (check's own scope): ${ownRes.status} ${ownRes.text.slice(0, 120)}`);
      }),
    );
    expect(failures).toEqual([]);
  });

  it('varies a create within its scope: the original and the varied request (own keys) count twice', async () => {
    const failures: string[] = [];
    const creates = h.catalogue.spec.operations.filter((op) => DRIVERS.get(op.operationId)!.kind === 'create' && DRIVERS.get(op.operationId)!.effects);
    await Promise.all(
      creates.map(async (op) => {
        const d = DRIVERS.get(op.operationId)!;
        const ctx = h.ctx(`vary:${op.operationId}`);
        const scope = scopeOf(ctx);
        const parts = await d.build(scope, { fresh: true });
        const varied = d.vary!(parts, scope);
        if (JSON.stringify(varied.body) === JSON.stringify(parts.body)) failures.push(`${op.operationId}: vary() returned the same body`);
        const [a, b] = [await ctx.call(op, parts), await ctx.call(op, varied)];
        const n = await readEffects(scope, d.effects!(parts));
        // A trade's quote is usable once: the varied trade (same quote, other metadata) is refused on its own key.
        if (op.operationId === 'createFxTrade') {
          if (!documented2xx(op, a) || b.status !== 409 || n !== 1) failures.push(`${op.operationId}: ${a.status}/${b.status}, effects ${n}`);
          return;
        }
        if (!documented2xx(op, a) || !documented2xx(op, b) || n !== 2) failures.push(`${op.operationId}: ${a.status}/${b.status}, effects ${n}`);
      }),
    );
    expect(failures).toEqual([]);
  });

  it('finds no smuggled read-only field on a resource the conformant sandbox created', async () => {
    const creates = h.catalogue.spec.operations.filter((op) => DRIVERS.get(op.operationId)!.readOnly);
    for (const op of creates) {
      const d = DRIVERS.get(op.operationId)!;
      const ctx = h.ctx(`ro-clean:${op.operationId}`);
      const parts = await d.build(scopeOf(ctx), { fresh: true });
      const plain = await ctx.call(op, parts);
      expect(plain.status, op.operationId).toBe(201);
      expect(appliedFields(d.readOnly!.fields as JsonObject, plain.json), op.operationId).toEqual([]);
      // The profile's bodies forbid unknown members: smuggled fields are refused outright.
      const smuggled = await ctx.call(op, { ...parts, body: { ...(parts.body as object), ...d.readOnly!.fields } });
      expect(smuggled.status, op.operationId).toBe(400);
    }
  });
});

describe('the drivers against the mass-assignment fault', { timeout: busy(120_000) }, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(['mass-assignment']);
  });
  afterAll(async () => h?.close());

  it('sees the smuggled read-only fields take effect on every create', async () => {
    const failures: string[] = [];
    for (const op of h.catalogue.spec.operations.filter((o) => DRIVERS.get(o.operationId)!.readOnly)) {
      const d = DRIVERS.get(op.operationId)!;
      const ctx = h.ctx(`ro-fault:${op.operationId}`);
      const parts = await d.build(scopeOf(ctx), { fresh: true });
      const res = await ctx.call(op, { ...parts, body: { ...(parts.body as object), ...d.readOnly!.fields } });
      const applied = res.status === 201 ? appliedFields(d.readOnly!.fields as JsonObject, res.json) : [];
      if (!applied.includes('id')) failures.push(`${op.operationId}: answered ${res.status}, applied [${applied.join(', ')}]`);
    }
    expect(failures).toEqual([]);
  });
});
