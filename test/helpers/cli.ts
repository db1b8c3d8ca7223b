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
