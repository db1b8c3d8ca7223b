/** A target that answers the preflight properly and then misbehaves as a test says, recording everything. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsServer, json, type TestServer, type Cert } from './servers.js';

export const HOSTILE_KEY = 'sk_sandbox_hostile_test_key_5b2c';
export const HOSTILE_TENANT = 'ten_hostile';

export type Misbehaviour = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export const EMPTY_LIST = { object: 'list', data: [], has_more: false, next_cursor: null };

export function isPreflight(req: IncomingMessage): boolean {
  return req.method === 'GET' && req.url === '/v1/accounts' && req.headers['api-key'] === HOSTILE_KEY;
}

export async function hostileTarget(misbehave: Misbehaviour, cert?: Cert): Promise<TestServer & { cert: Cert; env: Record<string, string> }> {
  const server = await httpsServer((req, res, body) => {
    if (isPreflight(req)) return json(res, 200, EMPTY_LIST);
    misbehave(req, res, body);
  }, cert);
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-hostile-'));
  writeFileSync(join(dir, 'ca.pem'), server.cert.cert);
  return {
    ...server,
    env: { FSAPI_BASE_URL: server.url, FSAPI_API_KEY: HOSTILE_KEY, FSAPI_TENANT_ID: HOSTILE_TENANT, FSAPI_CA_FILE: join(dir, 'ca.pem') },
  };
}
