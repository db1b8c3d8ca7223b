/**
 * A failure's reproduction replays the whole sequence its check sent (both requests of a replay, the parallel burst,
 * the set-up of what it names), against the target the environment names, and summary.md says how to repeat the
 * run and start a sandbox with the same faults. The scripts here are run by a real shell against a stub server
 * that records what it gets.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunConfig } from '../src/config/run-config.js';
import { numericDefault } from '../src/config/variables.js';
import { renderSummary } from '../src/reports/index.js';
import type { RecordedExchange } from '../src/results/model.js';
import { reproduceScript, setupFor } from '../src/results/reproduce.js';
import { repeatOf } from '../src/runner/repeat-command.js';
import { report } from './fixtures/reports/build.js';

const BASE = 'https://old.test:4443/v1/';
const t0 = Date.parse('2026-11-27T10:00:00.000Z');

function ex(at: number, ms: number, method: string, path: string, opts: { key?: string; body?: string; status?: number; answer?: string } = {}): RecordedExchange {
  return {
    started_at: new Date(t0 + at).toISOString(),
    duration_ms: ms,
    request: {
      method,
      url: `${BASE}${path}`,
      headers: { 'Api-Key': '[REDACTED:FSAPI_API_KEY]', ...(opts.key ? { 'Idempotency-Key': opts.key } : {}), ...(opts.body ? { 'content-type': 'application/json' } : {}) },
      ...(opts.body ? { body: opts.body } : {}),
    },
    response: { status: opts.status ?? 200, headers: {}, size_bytes: 2, body: opts.answer ?? '{}' },
  };
}

/** What the stub got: method, path, Api-Key and Idempotency-Key of each request, and the body. */
const got: { method: string; url: string; key: string | undefined; idem: string | undefined; body: string }[] = [];
let server: Server;
let base: string;
let made = 0;
beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      got.push({ method: req.method!, url: req.url!, key: req.headers['api-key'] as string | undefined, idem: req.headers['idempotency-key'] as string | undefined, body });
      res.setHeader('content-type', 'application/json');
      // Every POST creates: a fresh id each time, as a target that ignores the key would.
      res.end(req.method === 'POST' ? JSON.stringify({ id: `cus_New${String(++made).padStart(6, '0')}`, object: 'customer' }) : '{"data":[]}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Runs a script with bash, the environment a reproduction reads, and returns what the stub got from it. */
async function runScript(script: string): Promise<typeof got> {
  got.length = 0;
  made = 0;
  // Asynchronously: the stub answering it runs in this process.
  await promisify(execFile)('bash', ['-c', script], { env: { PATH: process.env['PATH'] ?? '', FSAPI_BASE_URL: base, FSAPI_API_KEY: 'sk_test_repro' } });
  return [...got];
}

describe('a reproduction replays the whole sequence the check sent', () => {
  it('a replay: both POSTs, with one idempotency key (fresh, not the run\'s), the key from the environment, the base URL from FSAPI_BASE_URL', async () => {
    const body = '{"email":"o\'brien@x.test"}';
    const script = reproduceScript([ex(0, 20, 'POST', 'customers', { key: 'run-key-1', body, status: 201 }), ex(30, 20, 'POST', 'customers', { key: 'run-key-1', body, status: 201 })], { baseUrl: BASE })!;
    expect(script).not.toContain('old.test');
    expect(script).not.toContain('run-key-1');
    const sent = await runScript(script);
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /v1/customers', 'POST /v1/customers']);
    expect(sent[0]!.idem).toMatch(/^repro-/);
    expect(sent[1]!.idem).toBe(sent[0]!.idem);
    expect(sent.every((s) => s.key === 'sk_test_repro' && s.body === body)).toBe(true);
  });

  it('a parallel burst is sent in parallel (& ... wait); a pause the check waited is slept', async () => {
    const burst = Array.from({ length: 4 }, (_, i) => ex(10 + i, 150, 'POST', 'customers', { key: 'k', body: '{}', status: 201 }));
    const script = reproduceScript([ex(0, 5, 'GET', 'customers?limit=1'), ...burst, ex(1300, 5, 'GET', 'customers?limit=100')], { baseUrl: BASE })!;
    expect(script.match(/ &$/gm)).toHaveLength(4);
    expect(script).toMatch(/^wait$/m);
    expect(script).toMatch(/^sleep 1$/m);
    const sent = await runScript(script);
    expect(sent.map((s) => s.method)).toEqual(['GET', 'POST', 'POST', 'POST', 'POST', 'GET']);
    expect(new Set(sent.filter((s) => s.method === 'POST').map((s) => s.idem)).size).toBe(1);
  });

  it('an id the target answered is read from the new answer, and the set-up the check depends on comes first', async () => {
    const create = ex(0, 10, 'POST', 'customers', { key: 'w1', body: '{"first_name":"A"}', status: 201, answer: '{"id":"cus_Old0000001","object":"customer"}' });
    const unrelated = ex(5, 10, 'POST', 'customers', { key: 'w2', body: '{"first_name":"B"}', status: 201, answer: '{"id":"cus_Old0000002"}' });
    const approve = ex(20, 10, 'POST', 'customers/cus_Old0000001/kyc', { key: 'w3', body: '{}', status: 202 });
    const check = [ex(100, 10, 'POST', 'accounts', { key: 'c1', body: '{"customer_id":"cus_Old0000001"}', status: 201 }), ex(120, 10, 'GET', 'customers/cus_Old0000001')];
    const setup = setupFor(check, [create, unrelated, approve]);
    expect(setup).toEqual([create, approve]);
    const sent = await runScript(reproduceScript(check, { baseUrl: BASE, setup })!);
    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /v1/customers', 'POST /v1/customers/cus_New000001/kyc', 'POST /v1/accounts', 'GET /v1/customers/cus_New000001']);
    expect(sent[2]!.body).toBe('{"customer_id":"cus_New000001"}');
  });

  it('enum values with an underscore are not taken for ids', () => {
    const create = ex(0, 10, 'POST', 'customers', { status: 201, body: '{}', answer: '{"id":"cus_Old0000001","gender":"non_binary"}' });
    const script = reproduceScript([create, ex(50, 10, 'POST', 'customers/cus_Old0000001/features/crypto_wallets/activate', { body: '{"gender":"non_binary"}' })], { baseUrl: BASE })!;
    expect(script).toContain("'/features/crypto_wallets/activate'");
    expect(script).not.toMatch(/json_at 'gender'/);
  });
});

describe('summary.md says how to repeat the run', () => {
  const cfg = (over: Partial<RunConfig>): RunConfig =>
    ({ groups: ['customers'], seed: 5, sandboxFaults: [], idempotencyParallel: 8, replayDelayMs: 2000, explore: numericDefault('FSAPI_EXPLORE'), exploreTotal: numericDefault('FSAPI_EXPLORE_TOTAL'), strict: false, allowLiveWrites: false, environment: 'sandbox', ...over }) as RunConfig;

  it('the command names seed, groups, faults, shard and strictness; for the embedded sandbox, how to start one with the same faults', () => {
    const r = repeatOf(cfg({ sandboxFaults: ['idem-ignored'], shard: { index: 2, count: 4 }, strict: true }), 'npx --no fsapi-conformance run', 'npx --no fsapi-conformance sandbox');
    expect(r.command).toBe('npx --no fsapi-conformance run --seed 5 --groups customers --sandbox-fault idem-ignored --shard 2/4 --strict');
    expect(r.sandbox).toBe('npx --no fsapi-conformance sandbox --fault idem-ignored --env > sandbox.env');
    const remote = repeatOf(cfg({ target: { baseUrl: 'https://api.example/v1/', credentials: { apiKey: 'sk_x', tenantId: 'ten_1' } } }), 'fsapi-conformance run');
    expect(remote.command).toBe('fsapi-conformance run --seed 5 --groups customers --base-url https://api.example/v1/ --tenant-id ten_1');
    expect(remote.command).not.toContain('sk_x');
    expect(remote.sandbox).toBeUndefined();
    // The exploration's budgets, where they are not the defaults: the same seed then explores the same requests.
    expect(repeatOf(cfg({ explore: 6, exploreTotal: 40 }), 'fsapi-conformance run').command).toBe('fsapi-conformance run --seed 5 --groups customers --explore 6 --explore-total 40');
  });

  it('renders the settings, the command and the sandbox to start (with its env file for --cacert)', () => {
    const base = report([]);
    const md = renderSummary({
      ...base,
      target: { ...base.target, embedded: true, sandbox_faults: ['idem-ignored'] },
      run: { ...base.run, repeat: { command: 'npx --no fsapi-conformance run --seed 5 --sandbox-fault idem-ignored', sandbox: 'npx --no fsapi-conformance sandbox --fault idem-ignored --env > sandbox.env' } },
    });
    const section = md.slice(md.indexOf('## Repeat this run'), md.indexOf('## Results by group'));
    expect(section).toContain('fault switch on: `idem-ignored`');
    expect(section).toContain('```sh\nnpx --no fsapi-conformance run --seed 5 --sandbox-fault idem-ignored\n```');
    expect(section).toContain('npx --no fsapi-conformance sandbox --fault idem-ignored --env > sandbox.env');
    expect(section).toContain('set -a; . ./sandbox.env; set +a');
    expect(section).toContain('--cacert');
  });
});
