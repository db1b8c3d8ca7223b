/** Harness units: how a check's outcome becomes a status, redaction, reproduction lines, shards, the receiver. */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { loadRequirements, REQUIREMENTS_PATH } from '../src/catalogue/index.js';
import { answeredId, CheckFailure, CheckSkipped, idOf } from '../src/harness/assert.js';
import { itemKey } from '../src/checks/lists.js';
import { EvidenceLog, executeCheck, type CheckContext, type CheckDef } from '../src/harness/check.js';
import { releaseFaker, runCancellation, seededFaker } from '../src/harness/runtime.js';
import { idempotencyKeyFor } from '../src/harness/idempotency-key.js';
import { delay } from '../src/http/rate-limiter.js';
import { shardSuites } from '../src/checks/shards.js';
import type { SuiteSlug } from '../src/catalogue/groups.js';
import { TransportError } from '../src/http/client.js';
import { Redactor } from '../src/http/redact.js';
import type { RecordedExchange } from '../src/results/model.js';
import { reproduceScript } from '../src/results/reproduce.js';
import { computeVerdict, exitCodeFor } from '../src/results/verdict.js';
import { WebhookReceiver } from '../src/runner/receiver.js';
import { StringPool } from '../src/runner/string-pool.js';
import { Worker } from 'node:worker_threads';
import { FAIL_FIRST_MARKER } from '../src/webhooks/delivery.js';

const requirements = loadRequirements(REQUIREMENTS_PATH);
const redactor = new Redactor([{ name: 'FSAPI_API_KEY', value: 'sk_canary_secret_123456' }]);
const exchange: RecordedExchange = {
  started_at: new Date().toISOString(),
  duration_ms: 1,
  request: { method: 'POST', url: 'https://h.test/v1/customers', headers: { 'Api-Key': '[REDACTED:FSAPI_API_KEY]', 'content-type': 'application/json' }, body: `{"name":"O'Brien"}` },
  response: { status: 201, headers: {}, size_bytes: 2, body: '{}' },
};

async function outcome(requirement: string, run: CheckDef['run'], strict = false) {
  const def: CheckDef = { requirement, family: 'auth', group: 'customers', operation: 'createCustomer', variant: 'v', title: 't', run };
  const evidence = new EvidenceLog();
  const observations: string[] = [];
  const ctx = {
    skip: (r: string) => {
      throw new CheckSkipped(r);
    },
    observe: (t: string) => observations.push(t),
  } as unknown as CheckContext;
  evidence.add(exchange);
  return executeCheck(def, ctx, { requirements, strict, redactor, evidence, observations });
}

describe('executeCheck', () => {
  it('fails a MUST, warns a SHOULD (fails it under --strict), errors on anything unexpected', async () => {
    const boom = async () => {
      throw new CheckFailure('expected 401, got 200 with key sk_canary_secret_123456');
    };
    const must = await outcome('FSAPI-AUTH-001', boom);
    expect(must.status).toBe('failed');
    expect(must.message).not.toContain('sk_canary_secret_123456');
    expect(must.message).toContain('[REDACTED:FSAPI_API_KEY]');
    expect((await outcome('FSAPI-AUTH-101', boom)).status).toBe('warning');
    expect((await outcome('FSAPI-AUTH-101', boom, true)).status).toBe('failed');
    expect((await outcome('FSAPI-PAGE-001', boom)).status).toBe('warning');
    const transport = await outcome('FSAPI-AUTH-001', async () => {
      throw new TransportError('timeout', 'no complete response within 10 ms', exchange);
    });
    expect(transport).toMatchObject({ status: 'error', message: 'no complete response within 10 ms' });
    expect((await outcome('FSAPI-AUTH-001', async () => void JSON.parse('{'))).status).toBe('error');
  });

  it('never lets an INFO check fail, and keeps its observation for the gap report', async () => {
    const info = await outcome('FSAPI-GAP-008', async (ctx) => ctx.observe('missing key → 400'));
    expect(info).toMatchObject({ status: 'passed', observation: 'missing key → 400' });
    expect((await outcome('FSAPI-GAP-008', async () => { throw new CheckFailure('x'); })).status).toBe('error');
  });

  it('skips with the reason, and names the check by requirement, level and operation', async () => {
    const r = await outcome('FSAPI-AUTH-005', async (ctx) => ctx.skip('needs FSAPI_PUBLIC_KEY'));
    expect(r).toMatchObject({ status: 'skipped', message: 'needs FSAPI_PUBLIC_KEY', id: 'FSAPI-AUTH-005 createCustomer v' });
    expect(r.name).toBe('FSAPI-AUTH-005 [MUST] createCustomer: t');
    expect(r.clause).toMatch(/^seed spec: Authentication > Keys/);
  });
});

describe('reading ids', () => {
  it('reads integer ids as their text wherever an id is compared, followed or used as a key', () => {
    // A target with integer ids: the idempotency checks compare answeredId of a first request and its replay.
    const answer = (json: unknown) => ({ json });
    expect(answeredId(answer({ id: 42 }))).toBe('42');
    expect(answeredId(answer({ id: 42 }))).not.toBe(answeredId(answer({ id: 43 })));
    expect(answeredId(answer({ id: 'cus_1' }))).toBe('cus_1');
    for (const none of [{}, { id: '' }, { id: null }, { id: Number.NaN }, [], 'text', undefined]) expect(answeredId(answer(none))).toBeUndefined();
    expect(idOf({ id: 7 })).toBe('7');
    expect(() => idOf({ name: 'x' })).toThrow(CheckSkipped);
    // Two list items that differ only by their integer id are two items, not one seen twice.
    expect(itemKey({ id: 1, status: 'active' })).not.toBe(itemKey({ id: 2, status: 'active' }));
  });
});

describe('verdict', () => {
  it('blocks on MUST/CONTRACT failures and errors only; INFO and warnings never block', () => {
    const c = (level: 'MUST' | 'SHOULD' | 'INFO' | 'CONTRACT', status: 'failed' | 'error' | 'warning' | 'passed') => ({ level, status }) as never;
    expect(computeVerdict([c('MUST', 'passed'), c('SHOULD', 'warning')])).toBe('conformant');
    expect(computeVerdict([c('CONTRACT', 'failed')])).toBe('non-conformant');
    expect(computeVerdict([c('MUST', 'error')])).toBe('non-conformant');
    expect(computeVerdict([c('SHOULD', 'error')])).toBe('conformant');
    expect(computeVerdict([c('SHOULD', 'failed')])).toBe('non-conformant'); // --strict records it as failed
    expect(computeVerdict([], { incomplete: true })).toBe('incomplete');
    expect([exitCodeFor('conformant'), exitCodeFor('non-conformant'), exitCodeFor('conformant', true), exitCodeFor('incomplete')]).toEqual([0, 1, 4, 5]);
  });
});

describe('redaction and reproduction', () => {
  it('redacts plain and URL-encoded secrets, longest first', () => {
    const r = new Redactor([
      { name: 'A', value: 'key_abc' },
      { name: 'B', value: 'key_abc_longer' },
    ]);
    expect(r.text('x key_abc_longer y key_abc z key%5Fabc')).toBe('x [REDACTED:B] y [REDACTED:A] z key%5Fabc');
    expect(r.leaks('has key_abc')).toBe(true);
    // Characters that mean something in a pattern, and the URL-encoded form of the same secret.
    const w = new Redactor([{ name: 'S', value: 'whsec_a+b/c=(x)' }]);
    expect(w.text('raw whsec_a+b/c=(x) and ?s=whsec_a%2Bb%2Fc%3D(x) but not whsec_aab/c=(x)')).toBe('raw [REDACTED:S] and ?s=[REDACTED:S] but not whsec_aab/c=(x)');
  });

  it('prints a curl line where redacted keys and the base URL become shell variables', () => {
    const line = reproduceScript([exchange], { baseUrl: 'https://h.test/v1/' })!;
    expect(line).toContain(`-X POST "\${FSAPI_BASE_URL}"'customers'`);
    expect(line).toContain(`-H 'Api-Key: '"\${FSAPI_API_KEY}"`);
    expect(line).toContain('${FSAPI_CA_FILE:+--cacert "$FSAPI_CA_FILE"}');
    expect(line).toContain(`--data-binary '{"name":"O'\\''Brien"}'`);
  });
});

describe('determinism and sharding', () => {
  it('seeds data per check, independent of order, and keeps idempotency keys run-unique', () => {
    expect(seededFaker(42, 'a').person.firstName()).toBe(seededFaker(42, 'a').person.firstName());
    expect(seededFaker(42, 'a').string.alphanumeric(12)).not.toBe(seededFaker(42, 'b').string.alphanumeric(12));
    // An instance handed back and reused for the same label repeats the fresh one's data exactly.
    const fresh = seededFaker(42, 'c');
    const data = [fresh.person.firstName(), fresh.location.state({ abbreviated: true }), fresh.string.alphanumeric(16)];
    releaseFaker(fresh);
    const reused = seededFaker(42, 'c');
    expect(reused).toBe(fresh);
    expect([reused.person.firstName(), reused.location.state({ abbreviated: true }), reused.string.alphanumeric(16)]).toEqual(data);
    expect(idempotencyKeyFor('run1', 'c', 0)).toBe(idempotencyKeyFor('run1', 'c', 0));
    expect(idempotencyKeyFor('run1', 'c', 0)).not.toBe(idempotencyKeyFor('run2', 'c', 0));
    expect(idempotencyKeyFor('run1', 'c', 0)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('puts every suite in exactly one shard, largest first to the least loaded, the same in every process', () => {
    const sizes: Partial<Record<SuiteSlug, number>> = { fx: 210, customers: 161, kyc: 160, cards: 160, 'external-accounts': 123, webhooks: 105, accounts: 101, transfers: 99, collections: 98, wallets: 97, features: 82, transactions: 52, transport: 3, versioning: 3 };
    const suites = Object.keys(sizes) as SuiteSlug[];
    const size = (s: SuiteSlug) => sizes[s]!;
    const total = suites.reduce((n, s) => n + size(s), 0);
    for (const count of [1, 2, 4]) {
      const shards = shardSuites(suites, size, count);
      expect(shards.flat().sort()).toEqual([...suites].sort());
      const loads = shards.map((x) => x.reduce((n, s) => n + size(s), 0));
      // LPT is within the largest suite of perfect balance.
      for (const l of loads) expect(Math.abs(l - total / count)).toBeLessThanOrEqual(size('fx'));
      expect(shardSuites([...suites].reverse(), size, count)).toEqual(shards);
    }
    expect(shardSuites(suites, size, 4).map((x) => x.reduce((n, s) => n + size(s), 0))).toEqual([364, 363, 365, 362]);
    // More shards than suites: the extra shards are empty, not an error.
    expect(shardSuites(['fx', 'kyc'], size, 3)).toEqual([['fx'], ['kyc'], []]);
  });
});

describe("the worker's cancellation", () => {
  // Caught in a full run: 16 delayed replays waiting side by side in the waiting file printed Node's listener-leak
  // warning on every `npm run conformance`.
  it('takes a wait from every request the configuration allows in flight without a leak warning, and still warns past that', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      // 16 checks in flight and 4 that wait in slots of their own (test/waiting-checks.test.ts runs 130 of them).
      const abort = runCancellation({ checksInFlight: 16 + 4, idempotencyParallel: 8 });
      const waits = (n: number) => Promise.all(Array.from({ length: n }, () => delay(1, abort.signal)));
      await waits((16 + 4) * 8);
      // The warning is emitted on the next tick after the listener that crosses the bound is added.
      await new Promise((r) => setImmediate(r));
      expect(warnings).toEqual([]);
      await waits((16 + 4) * 8 + 2);
      await new Promise((r) => setImmediate(r));
      expect(warnings).toEqual(['MaxListenersExceededWarning']);
      // Every wait took its listener off when it ended: the bound counts waits in flight, not waits made.
      expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('WebhookReceiver', () => {
  it('records deliveries, fails the first attempt of marked events, and long-polls for arrivals', async () => {
    const rx = new WebhookReceiver();
    const { url, inspectUrl } = await rx.listen('127.0.0.1', 0);
    const body = (marked: boolean) => JSON.stringify({ id: 'evt_1', type: 'customer.created', data: { object: { id: 'cus_1', object: 'customer', metadata: marked ? { fsapi_webhook: FAIL_FIRST_MARKER } : {} } } });
    // The long-poll is sent first and answers once two attempts have arrived: no sleeping.
    const waiting = fetch(`${inspectUrl}?object_id=cus_1&min=2&timeout_ms=5000`).then((r) => r.json() as Promise<{ answered: number; webhook_id: string }[]>);
    const first = await fetch(url, { method: 'POST', headers: { 'webhook-id': 'evt_1' }, body: body(true) });
    const second = await fetch(url, { method: 'POST', headers: { 'webhook-id': 'evt_1' }, body: body(true) });
    expect([first.status, second.status]).toEqual([503, 200]);
    const got = await waiting;
    expect(got.map((d) => d.answered)).toEqual([503, 200]);
    expect(got.every((d) => d.webhook_id === 'evt_1')).toBe(true);
    const plain = await fetch(url, { method: 'POST', headers: { 'webhook-id': 'evt_2' }, body: body(false).replace('cus_1', 'cus_2') });
    expect(plain.status).toBe(200);
    const none = await fetch(`${inspectUrl}?object_id=cus_404&timeout_ms=0`).then((r) => r.json() as Promise<unknown[]>);
    expect(none).toEqual([]);
    // A body over 1 MiB is refused and not recorded (the server sees its last byte only once it was all sent).
    const huge = JSON.stringify({ id: 'evt_3', type: 'customer.created', data: { object: { id: 'cus_3', pad: 'x'.repeat(1_048_576) } } });
    const refused = await fetch(url, { method: 'POST', headers: { 'webhook-id': 'evt_3' }, body: huge });
    expect(refused.status).toBe(413);
    const notKept = await fetch(`${inspectUrl}?object_id=cus_3&timeout_ms=0`).then((r) => r.json() as Promise<unknown[]>);
    expect(notKept).toEqual([]);
    expect(rx.count).toBe(3);
    const wrongToken = await fetch(inspectUrl.replace(/__fsapi\/[0-9a-f]+/, '__fsapi/guess'));
    expect(wrongToken.status).toBe(200); // treated as a delivery, revealing nothing
    expect(await wrongToken.text()).toBe('ok');
    await rx.close();
  });

  it("still finds a delivery that came in, on a new connection, while its thread was busy past the long-poll's wait", async () => {
    const rx = new WebhookReceiver();
    const { url, inspectUrl } = await rx.listen('127.0.0.1', 0);
    // The target and the worker that reads the receiver, in a thread of their own: they go on while this one is blocked.
    const flags = new Int32Array(new SharedArrayBuffer(4));
    const other = new Worker(
      `const { parentPort, workerData: { url, inspectUrl, flags } } = require('node:worker_threads');
       const http = require('node:http');
       parentPort.on('message', (m) => {
         if (m === 'inspect') http.get(inspectUrl + '?object_id=cus_late&timeout_ms=300', (res) => { let b = ''; res.on('data', (c) => (b += c)); res.on('end', () => parentPort.postMessage(b)); });
         if (m === 'deliver') {
           const req = http.request(url, { method: 'POST', agent: false, headers: { 'webhook-id': 'evt_late' } });
           req.on('error', () => undefined);
           req.end(JSON.stringify({ id: 'evt_late', type: 'customer.created', data: { object: { id: 'cus_late' } } }), () => { Atomics.store(flags, 0, 1); Atomics.notify(flags, 0); });
         }
       });`,
      { eval: true, workerData: { url, inspectUrl, flags } },
    );
    try {
      const answer = new Promise<string>((resolve) => other.once('message', resolve));
      other.postMessage('inspect');
      const waiters = (rx as unknown as { waiters: Set<unknown> }).waiters;
      while (waiters.size === 0) await new Promise(setImmediate);
      // The long poll waits from before this moment: 300 ms past it plus 100, its wait is over.
      const due = performance.now() + 300;
      other.postMessage('deliver');
      expect(Atomics.wait(flags, 0, 0, 30_000)).not.toBe('timed-out');
      while (performance.now() < due + 100);
      const got = JSON.parse(await answer) as { object_id: string }[];
      expect(got.map((d) => d.object_id)).toEqual(['cus_late']);
    } finally {
      await other.terminate();
      await rx.close();
    }
  });
});

describe('StringPool', () => {
  it('leaves every value of a result as it was, nested objects and arrays alike (what it saves is measured in bench/README)', () => {
    const long = 'x'.repeat(300);
    const make = () => JSON.parse(JSON.stringify({ status: 'passed', n: 3, ok: true, none: null, exchanges: [{ request: { method: 'GET', headers: { accept: 'application/json' } }, response: { body: long } }], tags: ['a', 'b', 'a'] })) as unknown;
    const pool = new StringPool(256);
    const [first, second, expected] = [make(), make(), make()];
    pool.share(first);
    pool.share(second);
    expect(first).toEqual(expected);
    expect(second).toEqual(expected);
  });
});
