/**
 * A dead or misconfigured target ends in one clear message and exit 2, within seconds, before any suite runs:
 * unreachable, TLS mismatch (untrusted, expired, wrong host), wrong base path, refused credentials, redirect.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { httpsServer, json, makeCert, type TestServer } from './helpers/servers.js';

const KEY = 'sk_sandbox_canary_preflight_9a8b7c';
const servers: TestServer[] = [];
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
      json(res, 404, { title: 'not found' });
    });
    const expired = await httpsServer((_q, r) => json(r, 200, {}), await makeCert({ expired: true }));
    const wrongHost = await httpsServer((_q, r) => json(r, 200, {}), await makeCert({ names: ['api.example.test'], ips: ['10.1.2.3'] }));
    servers.push(api, expired, wrongHost);
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
    // Nothing was run: only the preflight request reached the API server.
    expect(api.requests.every((q) => q.url.startsWith('/v1/accounts') || q.url.startsWith('/api/') || q.url.startsWith('/moved/'))).toBe(true);
  });
});
