/**
 * `sandbox --env`: a sandbox started apart hands a run every credential it offers in one step
 * (`sandbox --env > .env`, then `run`), where a user had to map eleven variables from its JSON line by hand.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/results/model.js';
import { runCli } from './helpers/cli.js';
import { busy } from './helpers/busy.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'fsapi-conformance.js');
const stops: (() => void)[] = [];
afterAll(() => stops.forEach((s) => s()));

/** A port free now, for the run's webhook receiver (the sandbox is told to deliver there before the run listens). */
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** Starts `sandbox --env ...` and resolves with its stdout once the last line it prints is there. */
function sandboxEnv(args: string[], last: RegExp): Promise<string> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FSAPI_')));
  const child = spawn(process.execPath, [BIN, 'sandbox', '--env', ...args], { env: clean });
  stops.push(() => child.kill('SIGTERM'));
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (last.test(out)) resolve(out);
    });
    child.on('close', (code) => reject(new Error(`sandbox --env exited ${code}: ${err}`)));
  });
}

describe('sandbox --env', { timeout: busy(120_000) }, () => {
  it('> .env, then run: every MUST requirement of the groups verified (webhooks included), exit 0, not inconclusive', async () => {
    const port = await freePort();
    const text = await sandboxEnv(['--http-port', '0', '--webhook-url', `http://127.0.0.1:${port}/hooks`], /^FSAPI_WEBHOOK_LISTEN=.*\n/m);
    expect(text).toMatch(new RegExp(`^FSAPI_WEBHOOK_LISTEN=127\\.0\\.0\\.1:${port}$`, 'm'));
    for (const name of ['BASE_URL', 'CA_FILE', 'API_KEY', 'TENANT_ID', 'PUBLIC_KEY', 'LIVE_API_KEY', 'REVOKED_API_KEY', 'SECOND_API_KEY', 'SECOND_TENANT_ID', 'PLAIN_HTTP_URL', 'WEBHOOK_SECRET']) {
      expect(text).toMatch(new RegExp(`^FSAPI_${name}=\\S+$`, 'm'));
    }
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-sandbox-env-'));
    writeFileSync(join(dir, '.env'), text);
    const r = await runCli(['run', '--groups', 'customers,webhooks,transport', '--seed', '4', '--report-dir', join(dir, 'r')], {}, dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'r', 'latest', 'conformance.json'), 'utf8')) as RunReport;
    expect(report.target.embedded).toBe(false);
    expect(report.coverage!.must.not_verified).toBe(0);
    expect(report.checks.some((c) => c.group === 'webhooks' && c.status === 'passed')).toBe(true);
  });

  it('without --webhook-url, the webhook lines are left commented with the flag that sets them', async () => {
    const text = await sandboxEnv([], /^# FSAPI_WEBHOOK_LISTEN=.*\n/m);
    expect(text).toMatch(/--webhook-url http:\/\/127\.0\.0\.1:8787\//);
    expect(text).not.toMatch(/^FSAPI_WEBHOOK/m);
    expect(text).toMatch(/^FSAPI_SECOND_TENANT_ID=\S+$/m);
  });
});
