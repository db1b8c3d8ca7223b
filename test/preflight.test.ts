/**
 * A dead or misconfigured target ends in one clear message and exit 2, within seconds, before any suite runs:
 * unreachable, TLS mismatch (untrusted, expired, wrong host), wrong base path, refused credentials, redirect, a
 * server error at the base URL (a dead upstream behind a proxy answering 502, a 500, a 503 that stays).
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { gateway } from './helpers/gateway.js';
import { httpsServer, json, makeCert } from './helpers/servers.js';

const KEY = 'sk_sandbox_canary_preflight_9a8b7c';
const servers: { close(): Promise<void> }[] = [];
afterAll(async () => Promise.all(servers.map((s) => s.close())));


async function freePortThatRefuses(): Promise<number> {
  // Bind, learn the port, close: nothing listens there afterwards, so connecting is refused.
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function target(baseUrl: string, extra: Record<string, string> = {}) {
  return { FSAPI_BASE_URL: baseUrl, FSAPI_API_KEY: KEY, FSAPI_TENANT_ID: 'ten_x', ...extra };
}

describe('preflight', () => {
  it('ends each misconfiguration in one message, exit 2, and never prints the key', async () => {
    const api = await httpsServer((req, res) => {
      if (req.url?.startsWith('/v1/accounts')) {
        if (req.headers['api-key'] !== KEY) return json(res, 401, { title: 'no' });
        return json(res, 200, { object: 'list', data: [], has_more: false, next_cursor: null });
      }
      if (req.url?.startsWith('/moved/')) return res.writeHead(308, { location: 'https://elsewhere.test/v1/accounts' }).end();
      if (req.url?.startsWith('/broken/')) return json(res, 500, { title: 'Internal error' });
      if (req.url?.startsWith('/busy/')) return json(res, 503, { title: 'Service unavailable' }, { 'retry-after': '0' });
      if (req.url?.startsWith('/limited/')) return json(res, 429, { title: 'Too many requests' }, { 'retry-after': '0' });
      json(res, 404, { title: 'not found' });
    });
    const expired = await httpsServer((_q, r) => json(r, 200, {}), await makeCert({ expired: true }));
    const wrongHost = await httpsServer((_q, r) => json(r, 200, {}), await makeCert({ names: ['api.example.test'], ips: ['10.1.2.3'] }));
    // A reverse proxy whose upstream process is down: it answers 502 to everything.
    const deadUpstream = await gateway({ upstream: `https://127.0.0.1:${await freePortThatRefuses()}/v1/` });
    servers.push(api, expired, wrongHost, deadUpstream);
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-ca-'));
    const ca = (s: { cert: { cert: string } }, name: string) => {
      writeFileSync(join(dir, name), s.cert.cert);
      return join(dir, name);
    };
    const origin = api.url.replace('/v1/', '');
    const cases: [string, Record<string, string>, RegExp, RegExp][] = [
      ['unreachable', target(`https://127.0.0.1:${await freePortThatRefuses()}/v1/`), /cannot connect \(ECONNREFUSED\)/, /server is running/],
      ['untrusted certificate', target(api.url), /TLS verification failed: .*(self-signed|not trusted)/, /FSAPI_CA_FILE/],
      ['expired certificate', target(expired.url, { FSAPI_CA_FILE: ca(expired, 'expired.pem') }), /expired/, /FSAPI_CA_FILE|cannot be switched off/],
      ['wrong host name', target(wrongHost.url, { FSAPI_CA_FILE: ca(wrongHost, 'wrong.pem') }), /does not name this host/, /FSAPI_CA_FILE|cannot be switched off/],
      ['wrong base path', target(`${origin}/api/`, { FSAPI_CA_FILE: ca(api, 'api.pem') }), /nothing answers at .*\/api\/accounts \(404\)/, /ending with its version segment/],
      ['refused key', { ...target(api.url, { FSAPI_CA_FILE: ca(api, 'api.pem') }), FSAPI_API_KEY: 'sk_wrong_key_000000' }, /refused the configured credentials \(401/, /FSAPI_API_KEY/],
      ['redirect', target(`${origin}/moved/`, { FSAPI_CA_FILE: ca(api, 'api.pem') }), /redirects \(308 to https:\/\/elsewhere.test/, /final https address/],
      ['dead upstream behind a proxy', target(deadUpstream.url, { FSAPI_CA_FILE: ca(deadUpstream, 'proxy.pem') }), /answered 502 \(server: test-gateway\): the server \(or a proxy in front of it\) cannot serve the API/, /running and healthy.*upstream is down/],
      ['server error', target(`${origin}/broken/`, { FSAPI_CA_FILE: ca(api, 'api.pem') }), /\/broken\/accounts answered 500: the API fails with a server error/, /running and healthy/],
      ['503 that stays', target(`${origin}/busy/`, { FSAPI_CA_FILE: ca(api, 'api.pem') }), /\/busy\/accounts answered 503/, /running and healthy/],
      ['429 that stays', target(`${origin}/limited/`, { FSAPI_CA_FILE: ca(api, 'api.pem') }), /answers 429 \(too many requests, Retry-After 0\)/, /lower FSAPI_RATE_LIMIT/],
    ];
    const results = await Promise.all(cases.map(([, env]) => runCli(['run', '--report-dir', join(dir, 'reports')], env)));
    results.forEach((r, i) => {
      const [name, , message, fix] = cases[i]!;
      expect(r.code, `${name}: ${r.stderr}`).toBe(2);
      const errLines = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
      expect(errLines, name).toHaveLength(1);
      expect(errLines[0], name).toMatch(message);
      expect(r.stderr, name).toMatch(fix);
      expect(r.stderr + r.stdout, name).not.toMatch(/\n\s+at /); // no stack trace
      expect(r.stderr + r.stdout, name).not.toContain(KEY);
    });
    // Nothing was run: no report, and the API server got the preflight's one request from each run that reached it
    // (the 503 and the 429 resent twice), nothing else.
    expect(existsSync(join(dir, 'reports'))).toBe(false);
    expect(api.requests.map((q) => `${q.method} ${q.url}`).sort()).toEqual(['GET /api/accounts', 'GET /broken/accounts', 'GET /busy/accounts', 'GET /busy/accounts', 'GET /busy/accounts', 'GET /limited/accounts', 'GET /limited/accounts', 'GET /limited/accounts', 'GET /moved/accounts', 'GET /v1/accounts']);
    expect(deadUpstream.counts).toMatchObject({ limited: 0, forwarded: 0, badGateway: 1 });
  });
});

describe('preflight on a document whose paths start with the base URL\'s last segment', () => {
  it('says the segment is doubled and gives the base URL to set, instead of a wrong base path', async () => {
    // Stripe's paths start with /v1/; a base URL that ends in /v1/, as the seed's does, would send every request to /v1/v1/.
    const api = await httpsServer((req, res) => {
      if (req.url === '/v1/things') return json(res, 200, { things: [] });
      json(res, 404, { title: 'not found' });
    });
    servers.push(api);
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-doubled-'));
    writeFileSync(join(dir, 'api.pem'), api.cert.cert);
    const spec = join(dir, 'things.yaml');
    writeFileSync(
      spec,
      [
        'openapi: 3.0.3',
        'info: { title: Things, version: "1" }',
        'servers: [{ url: "https://api.example.test" }]',
        'paths:',
        '  /v1/things:',
        '    get:',
        '      operationId: listThings',
        '      responses:',
        '        "200": { description: ok, content: { application/json: { schema: { type: object } } } }',
        '',
      ].join('\n'),
    );
    const origin = api.url.replace('/v1/', '');
    const r = await runCli(['run', '--spec', spec, '--report-dir', join(dir, 'reports')], target(`${origin}/v1/`, { FSAPI_CA_FILE: join(dir, 'api.pem') }));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/nothing answers at .*\/v1\/v1\/things \(404\): the document's paths start with \/v1\/, and the base URL already ends with it/);
    expect(r.stderr).toContain(`set FSAPI_BASE_URL to ${origin}/, the address the document's paths are written from`);
    expect(r.stderr).not.toContain(KEY);
    // Set as it says, the preflight passes: what the run then judges is the target, not the address.
    const ok = await runCli(['run', '--spec', spec, '--report-dir', join(dir, 'reports')], target(`${origin}/`, { FSAPI_CA_FILE: join(dir, 'api.pem') }));
    expect(ok.code, ok.stderr).not.toBe(2);
    expect(api.requests.map((q) => `${q.method} ${q.url}`)).toContain('GET /v1/things');
  });
});
