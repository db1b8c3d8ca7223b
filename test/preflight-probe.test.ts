/**
 * What the preflight asks for on a document with no GET it can send as it is: a GET whose path parameters are
 * filled from the document. Its 404 may only say that the made-up id names nothing, so it is no proof of a wrong
 * base path (Open Banking UK's payment initiation has no other GET); a 404 on a plain GET still is.
 */
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
});
