/**
 * Rate limits slow the run, never judge it: behind a token-bucket gateway that answers 429 as soon as the run's
 * default (adaptive) pacing rises past its start, a run gets the same checks, statuses and verdict as without the
 * gateway, and its report counts every 429 the gateway gave. And no check passes on a server error. (A full run
 * behind a 100 requests/s gateway: bench/remote.ts --gateway 100.)
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../sandbox/index.js';
import type { RunReport } from '../src/results/model.js';
import { runCli, sandboxTargetEnv } from './helpers/cli.js';
import { gateway, type Gateway } from './helpers/gateway.js';
import { EMPTY_LIST, HOSTILE_KEY, HOSTILE_TENANT, isPreflight } from './helpers/hostile.js';
import { httpServer, httpsServer, json, type TestServer } from './helpers/servers.js';
import { busy } from './helpers/busy.js';

const open: (RunningSandbox | Gateway | TestServer)[] = [];
afterAll(async () => Promise.all(open.map((x) => x.close())));
const load = (dir: string) => JSON.parse(readFileSync(join(dir, 'latest', 'conformance.json'), 'utf8')) as RunReport;
const outcomes = (r: RunReport) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));

describe('a run behind a rate-limiting gateway', { timeout: busy(300_000) }, () => {
  it('is slowed, not judged: the same statuses and verdict as without the gateway, every 429 counted', async () => {
    const sb = await startSandbox({ httpPort: 0 });
    open.push(sb);
    // 20 per second, the pacing's start: its first doubling meets 429s (this short run may never go past 100/s).
    const gw = await gateway({ upstream: sb.base_url, upstreamCa: sb.ca_pem, limit: { perSecond: 20, burst: 5 } });
    open.push(gw);
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-ratelimit-'));
    writeFileSync(join(dir, 'gateway.pem'), gw.cert.cert);
    const env = {
      // Every credential the sandbox offers, so every MUST of these suites is exercised (else: inconclusive, exit 6);
      // each run sets its own base URL and CA below.
      ...sandboxTargetEnv(sb),
      FSAPI_PLAIN_HTTP_URL: sb.plain_http_url!,
      // Nothing about pacing: the defaults a remote target gets.
    };
    const args = (out: string) => ['run', '--groups', 'accounts,versioning,transport', '--seed', '9', '--report-dir', join(dir, out)];
    const [direct, limited] = await Promise.all([
      runCli(args('direct'), { ...env, FSAPI_BASE_URL: sb.base_url, FSAPI_CA_FILE: sb.ca_file }),
      runCli(args('gateway'), { ...env, FSAPI_BASE_URL: gw.url, FSAPI_CA_FILE: join(dir, 'gateway.pem') }),
    ]);
    expect(direct.code, direct.stderr).toBe(0);
    expect(limited.code, limited.stderr).toBe(0);
    const [d, g] = [load(join(dir, 'direct')), load(join(dir, 'gateway'))];
    expect(gw.counts.limited).toBeGreaterThan(0);
    expect(outcomes(g)).toEqual(outcomes(d));
    expect(g.verdict).toBe(d.verdict);
    expect(g.checks.filter((c) => c.cause === 'rate-limited')).toEqual([]);
    expect(g.run.throttling?.responses).toBe(gw.counts.limited);
    expect(g.run.throttling?.waited_ms).toBeGreaterThan(0);
    expect(d.run.throttling).toEqual({ responses: 0, waited_ms: 0 });
  });
});

describe('a target whose process dies after the preflight (its proxy answers 502)', { timeout: busy(300_000) }, () => {
  it('passes no check on a 502', async () => {
    const badGateway = (res: ServerResponse) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>502 Bad Gateway</h1>');
    let preflighted = false;
    // The preflight's one request is answered properly; every request after it gets the 502.
    const t = await httpsServer((req, res) => (!preflighted && isPreflight(req) ? ((preflighted = true), json(res, 200, EMPTY_LIST)) : badGateway(res)));
    const plain = await httpServer((_q, res) => badGateway(res));
    open.push(t, plain);
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-502-'));
    writeFileSync(join(dir, 'ca.pem'), t.cert.cert);
    const env = { FSAPI_BASE_URL: t.url, FSAPI_API_KEY: HOSTILE_KEY, FSAPI_TENANT_ID: HOSTILE_TENANT, FSAPI_CA_FILE: join(dir, 'ca.pem'), FSAPI_PLAIN_HTTP_URL: plain.url };
    const r = await runCli(['run', '--report-dir', dir], env);
    expect(r.code, r.stderr).toBe(1);
    const passed = load(dir).checks.filter((c) => c.status === 'passed' && c.level !== 'INFO');
    // FSAPI-ERR-002 (no error reveals internals) judges the 502 bodies themselves, and they reveal none.
    expect(passed.filter((c) => c.requirement !== 'FSAPI-ERR-002').map((c) => `${c.id}: ${c.message ?? ''}`)).toEqual([]);
    expect(passed.length).toBeGreaterThan(0);
  });
});
