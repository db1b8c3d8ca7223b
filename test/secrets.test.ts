/**
 * FSAPI-KEYS-001 (client scope): no configured secret appears in reports/, JUnit, Allure results, the HTML
 * report or console output, including when checks fail (the key in a recorded URL), a TLS error ends the run,
 * or requests time out.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { httpsServer, json, type TestServer } from './helpers/servers.js';
import { runCli } from './helpers/cli.js';

const tag = randomBytes(4).toString('hex');
const canary = (name: string) => `sk_sandbox_CANARY${name}${tag}`;
const webhookKey = `CANARY-webhook-secret-${tag}`;
const CANARIES = {
  alpha: canary('alphaSecret'),
  alphaPublic: canary('alphaPublic').replace('sk_', 'pk_'),
  alphaLive: canary('alphaLive').replace('sandbox', 'live'),
  alphaLivePublic: canary('alphaLivePub').replace('sk_sandbox', 'pk_live'),
  beta: canary('betaSecret'),
  betaPublic: canary('betaPublic').replace('sk_', 'pk_'),
  betaLive: canary('betaLive').replace('sandbox', 'live'),
  betaLivePublic: canary('betaLivePub').replace('sk_sandbox', 'pk_live'),
  revoked: canary('revoked'),
  webhook: `whsec_${Buffer.from(webhookKey).toString('base64')}`,
};
const needles = [...Object.values(CANARIES), webhookKey, Buffer.from(webhookKey).toString('base64'), encodeURIComponent(CANARIES.alpha)];

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? allFiles(p) : [p];
  });
}

function leaksIn(texts: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [where, text] of Object.entries(texts)) for (const n of needles) if (text.includes(n)) found.push(`${where} contains ${n.slice(0, 24)}...`);
  return found;
}

const servers: TestServer[] = [];
afterAll(async () => Promise.all(servers.map((s) => s.close())));

describe('no secret leaks (FSAPI-KEYS-001)', () => {
  it('a failing embedded run with canary keys: reports, JUnit, Allure results, HTML and console are clean', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-secrets-'));
    writeFileSync(
      join(dir, 'tenants.json'),
      JSON.stringify({
        tenants: [
          { tenant_id: 'ten_canary_a', name: 'A', sandbox_secret_key: CANARIES.alpha, sandbox_public_key: CANARIES.alphaPublic, live_secret_key: CANARIES.alphaLive, live_public_key: CANARIES.alphaLivePublic },
          { tenant_id: 'ten_canary_b', name: 'B', sandbox_secret_key: CANARIES.beta, sandbox_public_key: CANARIES.betaPublic, live_secret_key: CANARIES.betaLive, live_public_key: CANARIES.betaLivePublic },
        ],
        revoked_keys: [{ key: CANARIES.revoked, tenant_id: 'ten_canary_a' }],
        webhook_secret: CANARIES.webhook,
      }),
    );
    const reports = join(dir, 'reports');
    // The fault makes the query-string key accepted, so the key-in-URL checks fail with the key in their evidence.
    const r = await runCli(
      ['run', '--sandbox-fixtures', join(dir, 'tenants.json'), '--sandbox-fault', 'auth-accept-query-key', '--groups', 'accounts,webhooks', '--seed', '3', '--report-dir', reports, '--html'],
      {},
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/FSAPI-AUTH-004/);
    const files = allFiles(reports);
    expect(files.some((f) => f.endsWith('junit.xml'))).toBe(true);
    expect(files.some((f) => f.includes('allure-results'))).toBe(true);
    expect(files.some((f) => f.endsWith(join('allure-report', 'index.html')))).toBe(true);
    const texts: Record<string, string> = { stdout: r.stdout, stderr: r.stderr };
    for (const f of files) texts[f] = readFileSync(f, 'latin1');
    expect(leaksIn(texts)).toEqual([]);
    // The redaction is visible where the key was: the evidence of the failing check names the variable instead.
    const report = JSON.parse(readFileSync(join(reports, 'latest', 'conformance.json'), 'utf8')) as { checks: { id: string; status: string; exchanges: { request: { url: string } }[]; reproduce?: string }[] };
    const failed = report.checks.find((c) => c.id.startsWith('FSAPI-AUTH-004') && c.status === 'failed');
    expect(failed?.exchanges[0]?.request.url).toContain('[REDACTED:FSAPI_API_KEY]');
    expect(failed?.reproduce).toContain('"${FSAPI_API_KEY}"');
  });

  it('error paths: a TLS failure and timed-out requests print and write no secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-secrets-err-'));
    const untrusted = await httpsServer((_q, res) => json(res, 200, {}));
    // Answers the preflight, then never answers anything else: every check times out.
    const hanging = await httpsServer((req, res) => {
      if (req.url?.startsWith('/v1/accounts') && req.method === 'GET' && req.headers['api-key'] === CANARIES.alpha && !req.url.includes('?')) {
        return json(res, 200, { object: 'list', data: [], has_more: false, next_cursor: null });
      }
    });
    servers.push(untrusted, hanging);
    writeFileSync(join(dir, 'ca.pem'), hanging.cert.cert);
    const env = (url: string) => ({
      FSAPI_BASE_URL: url,
      FSAPI_API_KEY: CANARIES.alpha,
      FSAPI_TENANT_ID: 'ten_canary_a',
      FSAPI_PUBLIC_KEY: CANARIES.alphaPublic,
      FSAPI_LIVE_API_KEY: CANARIES.alphaLive,
      FSAPI_REVOKED_API_KEY: CANARIES.revoked,
      FSAPI_SECOND_API_KEY: CANARIES.beta,
      FSAPI_SECOND_TENANT_ID: 'ten_canary_b',
    });
    const tls = await runCli(['run', '--report-dir', join(dir, 'r1')], env(untrusted.url));
    expect(tls.code).toBe(2);
    expect(tls.stderr).toMatch(/TLS verification failed/);
    const slow = await runCli(['run', '--groups', 'accounts', '--timeout-ms', '300', '--report-dir', join(dir, 'r2'), '--ca-file', join(dir, 'ca.pem')], env(hanging.url));
    expect(slow.code, slow.stdout + slow.stderr).toBe(1);
    const report = readFileSync(join(dir, 'r2', 'latest', 'conformance.json'), 'utf8');
    expect(report).toMatch(/no complete response within 300 ms/);
    const texts: Record<string, string> = { tlsOut: tls.stdout + tls.stderr, slowOut: slow.stdout + slow.stderr };
    for (const f of allFiles(join(dir, 'r2'))) texts[f] = readFileSync(f, 'latin1');
    expect(leaksIn(texts)).toEqual([]);
  });
});
