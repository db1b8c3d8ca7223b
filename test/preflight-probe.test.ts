/**
 * What the preflight asks for on a document with no GET it can send as it is: a GET whose path parameters are
 * filled from the document. Its 404 may only say that the made-up id names nothing, so it is no proof of a wrong
 * base path (Open Banking UK's payment initiation has no other GET); a 404 on a plain GET still is. A document with
 * no GET it can send at all (Plaid's is all POSTs) is asked a GET of a path it declares for another method, whose
 * answer proves only that the target answers: before, it was asked the seed's GET /accounts, a path it does not
 * declare, and the run stopped with "the base URL's path looks wrong" against a target that served the document.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../src/catalogue/openapi.js';
import type { TargetClient } from '../src/http/client.js';
import { preflight } from '../src/runner/preflight.js';
import { REFERENCE_SPEC_PATH } from '../src/catalogue/index.js';

/** A client that answers every request with one status, and remembers the paths asked for. */
function answering(status: number): { client: TargetClient; paths: string[] } {
  const paths: string[] = [];
  const client = {
    opts: { timeoutMs: 1000 },
    async send(spec: { path: string }) {
      paths.push(spec.path);
      return { status, headers: {}, text: '', json: undefined };
    },
  } as unknown as TargetClient;
  return { client, paths };
}

const creds = { apiKey: 'sk_test_fake_preflight', tenantId: 'ten_x' } as Parameters<typeof preflight>[2];

describe('preflight probe', () => {
  it('fills a path parameter from the document and does not read its 404 as a wrong base path', async () => {
    const spec = await loadSpec(join(import.meta.dirname, 'fixtures/openapi/params-only.yaml'));
    const { client, paths } = answering(404);
    await expect(preflight(client, spec, creds, 'https://127.0.0.1:1/v1/')).resolves.toBeUndefined();
    expect(paths).toHaveLength(1);
    expect(paths[0]).toMatch(/^domestic-payments\/[^/{}]+$/);
  });

  it('still refuses a 404 on a GET sent as the document writes it', async () => {
    const spec = await loadSpec(REFERENCE_SPEC_PATH);
    const { client, paths } = answering(404);
    await expect(preflight(client, spec, creds, 'https://127.0.0.1:1/v1/')).rejects.toThrow(/nothing answers at .*accounts \(404\)/);
    expect(paths).toEqual(['accounts']);
  });

  it('still reads a refused key into a 401 or 403 on a GET the document declares, even one whose id is made up', async () => {
    const spec = await loadSpec(join(import.meta.dirname, 'fixtures/openapi/params-only.yaml'));
    for (const status of [401, 403]) await expect(preflight(answering(status).client, spec, creds, 'https://127.0.0.1:1/v1/')).rejects.toThrow(new RegExp(`refused the configured credentials \\(${status} on GET domestic-payments/`));
  });

  it("names the document's own security scheme when the key is refused and the document does not take it as Api-Key", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-preflight-'));
    const file = join(dir, 'bearer.yaml');
    writeFileSync(
      file,
      [
        'openapi: 3.0.3',
        "info: { title: A bearer API, version: '1' }",
        'components: { securitySchemes: { bearerAuth: { type: http, scheme: bearer } } }',
        'security: [{ bearerAuth: [] }]',
        'paths:',
        '  /balance:',
        '    get:',
        '      operationId: getBalance',
        "      responses: { '200': { description: ok } }",
        '',
      ].join('\n'),
    );
    try {
      const spec = await loadSpec(file);
      const refused = await preflight(answering(401).client, spec, creds, 'https://127.0.0.1:1/v1/').catch((e: unknown) => e as Error & { fix?: string });
      expect(refused).toBeInstanceOf(Error);
      expect((refused as Error).message).toMatch(/refused the configured credentials \(401 on GET balance\); the document's security scheme is bearerAuth \(http bearer\), not the seed's Api-Key header/);
      expect((refused as { fix?: string }).fix).toMatch(/accepts the Api-Key header.*if it does read Api-Key, check that FSAPI_API_KEY/);
      // The seed's own scheme keeps the message as it was.
      await expect(preflight(answering(401).client, await loadSpec(REFERENCE_SPEC_PATH), creds, 'https://127.0.0.1:1/v1/')).rejects.toThrow(/refused the configured credentials \(401 on GET accounts\)$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('a document with no GET it can send', () => {
    const postsOnly = () => loadSpec(join(import.meta.dirname, 'fixtures/openapi/posts-only.yaml'));

    for (const status of [404, 405]) {
      it(`asks a GET of a path it declares for another method, and does not read its ${status} as a wrong base path`, async () => {
        const spec = await postsOnly();
        const { client, paths } = answering(status);
        await expect(preflight(client, spec, creds, 'https://127.0.0.1:1/v1/')).resolves.toBeUndefined();
        // A path without parameters comes first.
        expect(paths).toEqual(['link/token/create']);
      });
    }

    it('reads nothing but reachability into the answer of a route that takes no GET: a gateway may answer it with anything', async () => {
      const spec = await postsOnly();
      // AWS API Gateway answers a method it does not route with 403 "Missing Authentication Token", whatever the key.
      for (const status of [401, 403, 500, 302]) await expect(preflight(answering(status).client, spec, creds, 'https://127.0.0.1:1/v1/')).resolves.toBeUndefined();
      // A gateway that says its upstream is down says so whatever was asked.
      await expect(preflight(answering(502).client, spec, creds, 'https://127.0.0.1:1/v1/')).rejects.toThrow(/GET https:\/\/127\.0\.0\.1:1\/v1\/link\/token\/create answered 502/);
      await expect(preflight(answering(504).client, spec, creds, 'https://127.0.0.1:1/v1/')).rejects.toThrow(/answered 504/);
    });

    it('passes over a GET whose path names a parameter it does not declare (it threw a bare error before)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'fsapi-preflight-'));
      const file = join(dir, 'undeclared.yaml');
      const fixture = readFileSync(join(import.meta.dirname, 'fixtures/openapi/posts-only.yaml'), 'utf8');
      writeFileSync(file, `${fixture}  /reports/{report_id}:\n    get:\n      operationId: getReport\n      responses:\n        '200': { description: ok }\n`);
      try {
        const spec = await loadSpec(file);
        expect(spec.operations.map((o) => `${o.method} ${o.path}`)).toContain('GET /reports/{report_id}');
        const { client, paths } = answering(405);
        await expect(preflight(client, spec, creds, 'https://127.0.0.1:1/v1/')).resolves.toBeUndefined();
        expect(paths).toEqual(['link/token/create']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
