/**
 * A vendor document with many POSTs: each has a delayed replay, a check that waits, and they all run at once in
 * slots of their own beside the run's concurrency. Each wait listens on the worker's cancellation; its bound was the
 * run's concurrency alone (16 checks times 8 parallel requests, plus one), so Plaid's 329 POSTs, or any document
 * with some 130, made every run print Node's "MaxListenersExceededWarning: Possible EventTarget memory leak
 * detected" to the user's console, `--quiet` or not. The bound is now the plan's: the checks in flight, waiting
 * ones included.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { httpsServer, type Cert, type TestServer } from './helpers/servers.js';

const POSTS = 130;
const KEY = 'sk_test_waiting_checks';

/** A document of POSTS operations, each a POST of a JSON object answered 200 with one, secured by the Api-Key header. */
function manyPosts(): object {
  const paths: Record<string, object> = {};
  for (let i = 0; i < POSTS; i++) {
    paths[`/things${i}`] = {
      post: {
        operationId: `createThing${i}`,
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Many POSTs', version: '1' },
    components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'Api-Key' } } },
    security: [{ apiKey: [] }],
    paths,
  };
}

describe('a vendor document whose POSTs each have a check that waits', () => {
  let stub: TestServer & { cert: Cert };
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-waiting-'));
  const spec = join(dir, 'many-posts.json');

  beforeAll(async () => {
    writeFileSync(spec, JSON.stringify(manyPosts()));
    stub = await httpsServer((req, res) => {
      if (req.headers['api-key'] !== KEY) return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"title":"unauthorized"}');
      if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    writeFileSync(join(dir, 'ca.pem'), stub.cert.cert);
  });
  afterAll(async () => {
    await stub?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs them all at once without Node warning of a listener leak', async () => {
    const env = { FSAPI_BASE_URL: new URL('/v1/', stub.url).href, FSAPI_API_KEY: KEY, FSAPI_TENANT_ID: 'ten_waiting', FSAPI_CA_FILE: join(dir, 'ca.pem'), FSAPI_RATE_LIMIT: '0', FSAPI_EXPLORE: '0' };
    const r = await runCli(['run', '--spec', spec, '--groups', 'unbound', '--report-dir', join(dir, 'reports')], env);
    // It ran through to a verdict (a stub that honours nothing is not conformant).
    expect(r.stdout).toMatch(/verdict: /);
    expect([0, 1, 6]).toContain(r.code);
    // The waits ran side by side: more checks waited at once than the old bound allowed listeners.
    const waiting = /(\d+) checks that wait for an event start first/.exec(r.stderr);
    expect(Number(waiting?.[1])).toBeGreaterThanOrEqual(POSTS);
    expect(r.stderr).not.toMatch(/MaxListenersExceededWarning|memory leak/);
  });
});
