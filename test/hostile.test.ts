/**
 * Safe and robust against targets we do not control: each behaviour against a purpose-built misbehaving server.
 * The suite never crashes, hangs, leaks or sends a key where it should not go, and always writes its report.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../sandbox/index.js';
import type { RunReport } from '../src/results/model.js';
import { EXIT } from '../src/results/verdict.js';
import { DUMMY_KEY } from '../src/checks/transport.js';
import { loadCatalogue } from '../src/binding/catalogue-in-use.js';
import { genericChecks } from '../src/checks/index.js';
import { checkId } from '../src/harness/check.js';
import { answerOf, judgeOutcome } from '../src/harness/judge.js';
import { runCli } from './helpers/cli.js';
import { EMPTY_LIST, HOSTILE_KEY, hostileTarget } from './helpers/hostile.js';
import { httpServer, httpsServer, json, type TestServer } from './helpers/servers.js';

const servers: TestServer[] = [];
afterAll(async () => Promise.all(servers.map((s) => s.close())));
const tmp = () => mkdtempSync(join(tmpdir(), 'fsapi-hostile-run-'));
const report = (dir: string) => JSON.parse(readFileSync(join(dir, 'latest', 'conformance.json'), 'utf8')) as RunReport;
const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at [\w<>.]+ \(/);

describe('hostile targets', () => {
  it('a server that hangs (no headers, or headers and no body): checks error at the timeout, the run goes on', async () => {
    let n = 0;
    const t = await hostileTarget((_req, res) => {
      if (n++ % 2 === 0) return; // never answers
      res.writeHead(200, { 'content-type': 'application/json' }).write('{"data": ['); // headers, then nothing
    });
    servers.push(t);
    const dir = tmp();
    const r = await runCli(['run', '--groups', 'accounts', '--timeout-ms', '400', '--report-dir', dir], t.env);
    expect(r.code, r.stderr).toBe(1);
    noStack(r.stderr);
    const rep = report(dir);
    expect(rep.verdict).toBe('non-conformant');
    const errors = rep.checks.filter((c) => c.status === 'error');
    expect(errors.length).toBeGreaterThan(5);
    expect(errors.some((c) => /no complete response within 400 ms/.test(c.message ?? ''))).toBe(true);
    expect(rep.checks.length).toBeGreaterThan(errors.length); // the observed-traffic checks still ran and reported
  });

  it('a body of hundreds of megabytes is cut at the cap and reported; the client stops reading', async () => {
    let sent = 0;
    const chunk = Buffer.alloc(1 << 20, 0x20);
    const t = await hostileTarget((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"object":"list","data":[],"pad":"');
      const pump = () => {
        while (sent < 300 * (1 << 20) && !res.destroyed && res.write(chunk)) sent += chunk.length;
        if (sent < 300 * (1 << 20) && !res.destroyed) res.once('drain', pump);
        else res.end('"}');
      };
      res.on('close', () => (sent = Number.MAX_SAFE_INTEGER > sent ? sent : sent));
      pump();
    });
    servers.push(t);
    const dir = tmp();
    const r = await runCli(['run', '--groups', 'versioning', '--max-response-bytes', '1048576', '--report-dir', dir], t.env);
    // Only the PROFILE check that reads a body (/v0/, /v2/) meets the oversized answer; it errors, and an errored
    // PROFILE check does not block conformance (src/results/verdict.ts).
    expect(r.code, r.stderr).toBe(EXIT.conformant);
    noStack(r.stderr + r.stdout);
    const rep = report(dir);
    expect(rep.verdict).toBe('conformant');
    expect(rep.checks.filter((c) => c.status === 'error').map((c) => [c.requirement, c.message])).toEqual([
      ['FSAPI-VER-002', expect.stringMatching(/^response body exceeds the 1048576-byte cap; reading stopped at \d+ bytes$/)],
    ]);
    // Far less than one 300 MB body left the server: the client closed the connection at the cap.
    expect(sent).toBeLessThan(64 * (1 << 20));
  });

  it('non-JSON, truncated JSON, wrong Content-Type, invalid UTF-8 and a 204 where a body is due: clear failures, no crash', async () => {
    // One target per malformation, answering every request with it: which request meets which answer must not
    // depend on the order concurrent checks happen to send them in.
    const cases: [string, (res: import('node:http').ServerResponse) => void, RegExp][] = [
      ['HTML', (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>'), /text\/html/],
      ['truncated JSON', (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":['), /not JSON|does not parse/],
      ['JSON as text/plain', (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(JSON.stringify(EMPTY_LIST)), /text\/plain/],
      ['invalid UTF-8', (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])), /UTF-8/],
      ['204', (res) => res.writeHead(204).end(), /204/],
    ];
    await Promise.all(
      cases.map(async ([what, answer, expected]) => {
        const t = await hostileTarget((_req, res) => answer(res));
        servers.push(t);
        const dir = tmp();
        const r = await runCli(['run', '--groups', 'accounts', '--report-dir', dir], t.env);
        expect(r.code, `${what}: ${r.stderr}`).toBe(1);
        noStack(r.stderr + r.stdout);
        const msgs = report(dir).checks.map((c) => c.message ?? '').join('\n');
        expect(msgs, what).toMatch(expected);
      }),
    );
  });

  it('a connection reset mid-response: the affected checks error, the report is written', async () => {
    const t = await hostileTarget((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).write('{"object":"list",');
      res.socket?.destroy(); // reset mid-body
    });
    servers.push(t);
    const dir = tmp();
    const r = await runCli(['run', '--groups', 'accounts', '--report-dir', dir], t.env);
    expect(r.code, r.stderr).toBe(EXIT.nonConformant);
    noStack(r.stderr + r.stdout);
    const rep = report(dir);
    expect(rep.verdict).toBe('non-conformant');
    const msgs = rep.checks.filter((c) => c.status === 'error').map((c) => c.message ?? '');
    expect(msgs.some((m) => /closed before the response was complete/.test(m))).toBe(true);
    expect(rep.checks.length).toBeGreaterThan(10);
  });

  it('a server that dies mid-run: the report holds what was learnt, the unfinished checks error, exit 1, no stack', async () => {
    // The real sandbox behind a proxy that forwards the first DIE_AFTER requests, then stops listening and drops
    // every connection, for good.
    const DIE_AFTER = 60;
    const sandbox = await startSandbox();
    const upstream = new Agent({ connect: { ca: sandbox.ca_pem } });
    const origin = new URL(sandbox.base_url).origin;
    let forwarded = 0;
    const proxy = await forwardingServer(async (req, res, body) => {
      if (++forwarded > DIE_AFTER) {
        proxy.server.close();
        proxy.server.closeAllConnections();
        return;
      }
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP_BY_HOP.has(k))) as Record<string, string>;
      const up = await request(`${origin}${req.url ?? '/'}`, { method: req.method as 'GET', headers, body: body || undefined, dispatcher: upstream });
      const answer = Buffer.from(await up.body.arrayBuffer());
      const back = Object.fromEntries(Object.entries(up.headers).filter(([k]) => !HOP_BY_HOP.has(k) && k !== 'content-length'));
      res.writeHead(up.statusCode, back).end(answer);
    });
    try {
      const tenant = sandbox.tenants[0]!;
      const dir = tmp();
      const r = await runCli(['run', '--groups', 'accounts', '--report-dir', dir], {
        FSAPI_BASE_URL: proxy.url,
        FSAPI_API_KEY: tenant.secret_key,
        FSAPI_TENANT_ID: tenant.tenant_id,
        FSAPI_CA_FILE: proxy.caFile,
      });
      // Errored MUST checks block conformance: the run cannot call the target conformant.
      expect(r.code, r.stderr).toBe(EXIT.nonConformant);
      noStack(r.stderr + r.stdout);
      expect(forwarded).toBeGreaterThan(DIE_AFTER);
      const rep = report(dir);
      expect(rep.verdict).toBe('non-conformant');
      // What it learnt before the target died: checks that passed on the sandbox's real answers, with their evidence.
      const passed = rep.checks.filter((c) => c.status === 'passed' && c.exchanges.length > 0);
      expect(passed.length).toBeGreaterThan(0);
      // The unfinished checks: errors that say the target went away, not failures blamed on it.
      const errors = rep.checks.filter((c) => c.status === 'error');
      expect(errors.length).toBeGreaterThan(5);
      for (const c of errors) expect(c.message, c.id).toMatch(/cannot connect \(ECONNREFUSED\)|closed before the response was complete|socket|connection/i);
      expect(errors.some((c) => /cannot connect \(ECONNREFUSED\)/.test(c.message ?? ''))).toBe(true);
      expect(rep.checks.filter((c) => c.status === 'failed').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    } finally {
      await upstream.close();
      await sandbox.close();
    }
  });

  it('redirects (301/302/307/308) to another host and to plain HTTP are never followed; no key reaches the other host', async () => {
    const other = await httpServer((_q, res) => json(res, 200, EMPTY_LIST));
    servers.push(other);
    const codes = [301, 302, 307, 308];
    let n = 0;
    const t = await hostileTarget((req, res) => {
      const code = codes[n++ % codes.length]!;
      res.writeHead(code, { location: `${n % 2 ? other.url : other.url.replace('127.0.0.1', 'localhost')}${req.url?.replace('/v1/', '') ?? ''}` }).end();
    });
    servers.push(t);
    const dir = tmp();
    const r = await runCli(['run', '--groups', 'accounts,transport', '--report-dir', dir], { ...t.env, FSAPI_PLAIN_HTTP_URL: other.url });
    expect(r.code, r.stderr).toBe(1);
    // The other host (by either name) got only the plain-HTTP probes, each carrying the dummy key: no redirected
    // request reached it, with the key or without it.
    expect(other.requests.length).toBeGreaterThan(0);
    expect(other.requests.every((q) => !JSON.stringify(q).includes(HOSTILE_KEY))).toBe(true);
    expect(other.requests.map((q) => q.headers['api-key'])).toEqual(other.requests.map(() => DUMMY_KEY));
    // And the suite judged the redirects it got as the answers they are.
    const exchanges = report(dir).checks.flatMap((c) => c.exchanges);
    expect(exchanges.some((x) => x.request.url.startsWith(t.url) && [301, 302, 307, 308].includes(x.response?.status ?? 0))).toBe(true);
    expect(exchanges.filter((x) => !x.request.url.startsWith(t.url) && !x.request.url.startsWith(other.url))).toEqual([]);
  });

  it('a plain-HTTP address that refuses the connection passes FSAPI-TRANS-002, and the refusal is the evidence its judge reads again', async () => {
    const t = await hostileTarget((req, res) => json(res, 200, req.method === 'GET' ? EMPTY_LIST : { id: 'x' }));
    servers.push(t);
    // A port nothing listens on any more: the probe's connection is refused.
    const gone = await httpServer((_q, res) => json(res, 200, {}));
    await gone.close();
    const dir = tmp();
    await runCli(['run', '--groups', 'transport', '--report-dir', dir], { ...t.env, FSAPI_PLAIN_HTTP_URL: gone.url });
    const checks = report(dir).checks.filter((c) => c.family === 'transport');
    expect(checks.map((c) => `${c.id} ${c.status}`).sort()).toEqual([
      'FSAPI-TRANS-002 createCustomer plain-http-post passed',
      'FSAPI-TRANS-002 listAccounts plain-http-get passed',
      'FSAPI-TRANS-003 listAccounts plain-http-no-redirect passed',
    ]);
    const catalogue = await loadCatalogue();
    const planned = new Map(genericChecks('transport', { spec: catalogue.spec, isReferenceProfile: true, binding: catalogue.binding }).map((d) => [checkId(d), d]));
    for (const c of checks) {
      const probe = c.exchanges.find((x) => x.case === 'plain-http');
      expect(probe?.response, c.id).toBeUndefined();
      expect(probe?.error_kind, c.id).toBe('connect');
      // What `verify` does: the check's own judge on the answers rebuilt from the recorded exchanges.
      const answers = c.exchanges.flatMap((x) => answerOf(x) ?? []);
      expect(judgeOutcome(planned.get(c.id)!.judge!, answers, c.level, false, c.facts).status, c.id).toBe('passed');
    }
  });

  it('429 with Retry-After and 503 are backed off within the retry budget, then reported as rate limited, never judged', async () => {
    const attempts: { at: number; status: number }[] = [];
    let throttledKey: string | undefined;
    const t = await hostileTarget((req, res) => {
      // The first customer POST (and its retries, which repeat its Idempotency-Key) is throttled: 429 asking
      // for 1 s, then 503 for good. Every other request is answered at once, so the run stays short.
      const key = req.headers['idempotency-key'] as string | undefined;
      if (req.method === 'POST' && req.url === '/v1/customers' && key && (throttledKey ??= key) === key) {
        const status = attempts.length === 0 ? 429 : 503;
        attempts.push({ at: performance.now(), status });
        return json(res, status, { title: 'busy' }, status === 429 ? { 'retry-after': '1' } : {});
      }
      json(res, 404, { title: 'not found' });
    });
    servers.push(t);
    const dir = tmp();
    const r = await runCli(['run', '--groups', 'accounts', '--concurrency', '1', '--report-dir', dir], t.env);
    expect(r.code, r.stderr).toBe(1);
    // One request and at most four retries per POST, the first retry at least the Retry-After second later.
    expect(attempts[0]!.status).toBe(429);
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(attempts.map((a) => a.status)).toEqual([429, 503, 503, 503, 503]);
    // The 503 it ended on is not judged as an answer: the checks that needed it are errors caused by rate limiting.
    const rep = report(dir);
    const limited = rep.checks.filter((c) => c.cause === 'rate-limited');
    expect(limited.length).toBeGreaterThan(0);
    for (const c of limited) {
      expect(c.status).toBe('error');
      expect(c.message).toMatch(/^rate limited: POST \S+\/v1\/customers still answered 503 \(no Retry-After\) after 5 attempts.*FSAPI_RATE_LIMIT/);
    }
    expect(rep.run.throttling?.responses).toBe(5);
  });

  it('live environment: no writing request is sent without --allow-live-writes; the plain-HTTP probe never carries the key', async () => {
    const plain = await httpServer((_q, res) => json(res, 403, { title: 'https only' }));
    servers.push(plain);
    const t = await hostileTarget((req, res) => json(res, 200, req.method === 'GET' ? EMPTY_LIST : { id: 'x' }));
    servers.push(t);
    const env = { ...t.env, FSAPI_ENVIRONMENT: 'live', FSAPI_PLAIN_HTTP_URL: plain.url };
    // Two suites hold reads, writes and both plain-HTTP probes: enough to prove the guard, at a fraction of the cost.
    const r = await runCli(['run', '--groups', 'customers,transport', '--report-dir', tmp()], env);
    // A target that answers every GET with an empty list, with or without a key, fails the MUST checks of auth.
    expect(r.code, r.stderr).toBe(EXIT.nonConformant);
    const writes = t.requests.filter((q) => !['GET', 'HEAD', 'OPTIONS'].includes(q.method));
    expect(writes).toEqual([]);
    expect(plain.requests.length).toBeGreaterThan(0);
    expect(plain.requests.every((q) => q.method === 'GET' && !JSON.stringify(q).includes(HOSTILE_KEY))).toBe(true);
    // And the flag does let writes through (so the test above proves the guard, not an idle suite).
    const before = t.requests.length;
    const w = await runCli(['run', '--groups', 'accounts', '--allow-live-writes', '--report-dir', tmp()], env);
    expect(w.code, w.stderr).toBe(EXIT.nonConformant);
    expect(t.requests.slice(before).some((q) => q.method === 'POST')).toBe(true);
  });

  it('bad configuration and bad files: one message naming the problem and the fix, exit 2', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'vendor.yaml'), 'title: not an api\npaths: {}\n');
    writeFileSync(join(dir, 'caps.yaml'), 'groups: [customers, payroll]\n');
    writeFileSync(join(dir, 'junit.xml'), '<testsuites/>');
    writeFileSync(join(dir, '.env'), 'FSAPI_SEED=1\nnot a setting\n');
    const cases: [string[], Record<string, string>, RegExp, string][] = [
      [['run', '--embedded-sandbox', '--spec', 'vendor.yaml'], {}, /not an OpenAPI document/, 'OpenAPI 3.0 or 3.1'],
      [['run', '--capabilities', 'caps.yaml'], {}, /unknown group "payroll"/, 'groups are'],
      [['run', '--baseline', 'junit.xml'], {}, /junit\.xml/, 'conformance.json'],
      [['run'], {}, /line 2 is not KEY=VALUE/, 'NAME=value'],
      // The fix names the flag of the command that was run (the fixtures loader serves both).
      [['run', '--sandbox-fixtures', 'missing.json'], {}, /missing\.json: the sandbox fixtures file does not exist/, 'run --sandbox-fixtures'],
    ];
    for (const [args, env, message, fix] of cases) {
      const cwd = args.includes('--spec') || args.includes('--capabilities') || args.includes('--baseline') || args.includes('--sandbox-fixtures') ? withoutDotenv(dir) : dir;
      const r = await runCli(args, env, cwd);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
      expect(lines, args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain(fix);
      noStack(r.stderr);
    }
  });
});

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'upgrade']);

/** An HTTPS server on loopback whose handler may be async, and the file of its certificate. */
async function forwardingServer(handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, body: string) => Promise<void>) {
  const server = await httpsServer((req, res, body) => void handler(req, res, body).catch(() => res.destroy()));
  servers.push(server);
  const caFile = join(mkdtempSync(join(tmpdir(), 'fsapi-hostile-')), 'ca.pem');
  writeFileSync(caFile, server.cert.cert);
  return { ...server, caFile };
}

/** A copy of the test folder's files without the broken .env, for the cases that test other files. */
function withoutDotenv(dir: string): string {
  const d = tmp();
  for (const f of ['vendor.yaml', 'caps.yaml', 'junit.xml']) writeFileSync(join(d, f), readFileSync(join(dir, f)));
  return d;
}

describe('interruption', () => {
  it('SIGINT stops the run promptly; the report is written with verdict incomplete and exit 5', async () => {
    const dir = tmp();
    const child = spawn(process.execPath, [new URL('../bin/fsapi-conformance.js', import.meta.url).pathname, 'run', '--seed', '5', '--report-dir', dir], {
      env: { PATH: process.env['PATH'] ?? '' },
    });
    // Both streams: the suites' lines are results (stdout), the interrupt's promise a diagnostic (stderr).
    let stderr = '';
    let signalled = false;
    const code = await new Promise<number | null>((resolve) => {
      const read = (d: Buffer) => {
        stderr += d.toString();
        // Interrupt as soon as the first suite has finished: results exist, others are still running.
        if (!signalled && /checks {2}\d+ passed/.test(stderr)) {
          signalled = true;
          child.kill('SIGINT');
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.on('close', resolve);
    });
    expect(signalled, stderr).toBe(true);
    expect(code, stderr).toBe(5);
    expect(stderr).toMatch(/SIGINT: stopping/);
    const rep = report(dir);
    expect(rep.verdict).toBe('incomplete');
    expect(rep.run.incomplete_reason).toMatch(/interrupted/);
    expect(rep.checks.length).toBeGreaterThan(0);
  });
});
