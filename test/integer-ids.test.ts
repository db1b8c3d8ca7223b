/**
 * A target whose ids are integers (issue 24), played by a gateway in front of the sandbox (test/helpers/gateway.ts): the idempotency checks compare the ids of a first request and its
 * replay, and a replay that answers another id fails FSAPI-IDEM-002. Before one id reader, answeredId read only
 * strings, so on such a target the comparison was skipped and the fault passed unseen. (Both runs are
 * non-conformant by CONTRACT: the document says the ids are strings; only FSAPI-IDEM-002 is read here.)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/results/model.js';
import { startSandbox } from '../sandbox/index.js';
import { gateway } from './helpers/gateway.js';
import { runCli, sandboxTargetEnv } from './helpers/cli.js';
import { busy } from './helpers/busy.js';

const open: { close(): Promise<void> }[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(open.map((x) => x.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A run of the customers suite through a gateway that answers integer ids, against a sandbox with these faults. */
async function runWithIntegerIds(faults: string[]): Promise<RunReport> {
  const sb = await startSandbox({ httpPort: 0, faults });
  open.push(sb);
  const gw = await gateway({ upstream: sb.base_url, upstreamCa: sb.ca_pem, integerIds: true });
  open.push(gw);
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-integer-ids-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'gateway.pem'), gw.cert.cert);
  const env = { ...sandboxTargetEnv(sb), FSAPI_PLAIN_HTTP_URL: sb.plain_http_url!, FSAPI_BASE_URL: gw.url, FSAPI_CA_FILE: join(dir, 'gateway.pem') };
  const res = await runCli(['run', '--groups', 'customers', '--seed', '3', '--report-dir', dir], env);
  expect([0, 1], res.stderr).toContain(res.code);
  return JSON.parse(readFileSync(join(dir, 'latest', 'conformance.json'), 'utf8')) as RunReport;
}

const replay = (r: RunReport) => r.checks.find((c) => c.requirement === 'FSAPI-IDEM-002' && c.operation === 'createCustomer' && c.id.endsWith(' replay'))!;

describe('a target with integer ids', { timeout: busy(300_000) }, () => {
  it('has its replays compared by id: a replay answering another id fails FSAPI-IDEM-002', async () => {
    const [clean, faulty] = await Promise.all([runWithIntegerIds([]), runWithIntegerIds(['idem-replay-new-id'])]);
    // The target's ids are numbers on the wire.
    const created = clean.checks.flatMap((c) => c.exchanges).find((x) => x.request.method === 'POST' && x.response?.status === 201 && x.request.url.endsWith('/customers'));
    expect(typeof (JSON.parse(created!.response!.body!) as { id: unknown }).id).toBe('number');
    expect(replay(clean).status).toBe('passed');
    expect(replay(faulty).status).toBe('failed');
    expect(replay(faulty).message).toMatch(/the retry with the same key answered \d+; the first request created \d+/);
  });
});
