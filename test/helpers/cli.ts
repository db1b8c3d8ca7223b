/** Runs the CLI as a user would, in a child process with a clean environment. */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = new URL('../../bin/fsapi-conformance.js', import.meta.url).pathname;

export function runCli(args: string[], env: Record<string, string>, cwd = mkdtempSync(join(tmpdir(), 'fsapi-cli-')), nodeArgs: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // Quiet: no live progress lines among the output the tests read (test/progress.test.ts tests them).
    const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], { cwd, env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', FSAPI_QUIET: 'true', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The environment of a run against a sandbox started apart (`fsapi-conformance sandbox --json`), with every credential
 * it offers: without one, the MUST requirements it unlocks are not verified and the run is inconclusive (exit 6).
 */
export function sandboxTargetEnv(info: {
  base_url: string;
  ca_file: string;
  live_key: string;
  revoked_key: string;
  tenants: { secret_key: string; tenant_id: string; public_key: string }[];
}): Record<string, string> {
  const [alpha, beta] = info.tenants;
  return {
    FSAPI_BASE_URL: info.base_url,
    FSAPI_CA_FILE: info.ca_file,
    FSAPI_API_KEY: alpha!.secret_key,
    FSAPI_TENANT_ID: alpha!.tenant_id,
    FSAPI_PUBLIC_KEY: alpha!.public_key,
    FSAPI_LIVE_API_KEY: info.live_key,
    FSAPI_REVOKED_API_KEY: info.revoked_key,
    FSAPI_SECOND_API_KEY: beta!.secret_key,
    FSAPI_SECOND_TENANT_ID: beta!.tenant_id,
  };
}
