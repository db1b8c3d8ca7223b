/** Runs the CLI as a user would, in a child process with a clean environment. */
import { spawn, type ChildProcess } from 'node:child_process';
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

export interface SpawnedCli {
  child: ChildProcess;
  /** Resolves with the first line of stderr (diagnostics) that matches (rejects if the process ends first). */
  stderrLine(match: RegExp): Promise<string>;
  /** The same for stdout (results: the target, each suite's line, the verdict). */
  stdoutLine(match: RegExp): Promise<string>;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** Starts the CLI as runCli does, and lets a test act on what it prints while it runs (an event, never a sleep). */
export function spawnCli(args: string[], env: Record<string, string>, cwd = mkdtempSync(join(tmpdir(), 'fsapi-cli-'))): SpawnedCli {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', FSAPI_QUIET: 'true', ...env } });
  let stdout = '';
  let stderr = '';
  let ended: string | undefined;
  const waiting: { match: RegExp; stream: 'stdout' | 'stderr'; resolve: (line: string) => void; reject: (e: Error) => void }[] = [];
  const serve = () => {
    const lines = { stdout: stdout.split('\n').slice(0, -1), stderr: stderr.split('\n').slice(0, -1) };
    for (const w of [...waiting]) {
      const hit = lines[w.stream].find((l) => w.match.test(l));
      if (hit !== undefined) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(hit);
      } else if (ended !== undefined) {
        waiting.splice(waiting.indexOf(w), 1);
        w.reject(new Error(`the CLI ended (${ended}) before printing a line matching ${w.match}:\n${stderr}`));
      }
    }
  };
  child.stdout!.on('data', (d: Buffer) => {
    stdout += d.toString();
    serve();
  });
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    serve();
  });
  const lineOf = (stream: 'stdout' | 'stderr', match: RegExp) =>
    new Promise<string>((resolve, reject) => {
      waiting.push({ match, stream, resolve, reject });
      serve();
    });
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => {
      ended = String(code ?? signal);
      serve();
      resolve({ code, signal, stdout, stderr });
    }),
  );
  return {
    child,
    done,
    stderrLine: (match) => lineOf('stderr', match),
    stdoutLine: (match) => lineOf('stdout', match),
  };
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
