/**
 * The targets bench/sandbox-throughput.ts drives: the embedded sandbox in a child process (over HTTPS, or over
 * plain HTTP as Prism serves), and Prism's mock of spec/openapi.yaml fetched and run on demand with npx.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as wait } from 'node:timers/promises';
import { request } from 'undici';
import { atExit, ROOT, startSandboxChild, type SandboxChild } from './lib.js';

/** Where a target answers and with which credentials. */
export interface Endpoint {
  /** Ends with '/'. */
  baseUrl: string;
  /** PEM to trust, for a target with its own certificate. */
  ca?: string;
  apiKey: string;
  tenantId: string;
}

export type Kind = 'read' | 'create' | 'replay' | 'unauthorized';

export interface Target {
  name: string;
  /** How the target is reached. */
  transport: 'https' | 'http';
  /** The kinds whose status this target is held to (the others are sent and counted, not checked). */
  checked: readonly Kind[];
  start(): Promise<Endpoint>;
  stop(): Promise<void>;
}

/** A target that cannot run here (npx cannot fetch Prism, say): its rows are skipped with the reason. */
export class TargetUnavailable extends Error {
  override readonly name = 'TargetUnavailable';
}

/**
 * The embedded sandbox, started as the CLI starts it, in a child process. Over HTTPS, as it serves the suite; or
 * over plain HTTP, the transport Prism's mock serves, through the `plain-http-processed` fault switch (its
 * plain-HTTP listener then serves the same pipeline instead of refusing): the like-for-like peer comparison.
 */
export function sandboxTarget(transport: 'https' | 'http'): Target {
  let child: SandboxChild | undefined;
  return {
    name: transport === 'https' ? 'fsapi sandbox' : 'fsapi sandbox (plain HTTP)',
    transport,
    checked: ['read', 'create', 'replay', 'unauthorized'],
    async start() {
      child = await startSandboxChild(transport === 'https' ? [] : ['--http-port', '0', '--fault', 'plain-http-processed']);
      const alpha = child.info.tenants[0]!;
      if (transport === 'https') return { baseUrl: child.info.base_url, ca: child.ca, apiKey: alpha.secret_key, tenantId: alpha.tenant_id };
      if (!child.info.plain_http_url) throw new Error('the sandbox gave no plain_http_url for --http-port 0');
      return { baseUrl: child.info.plain_http_url, apiKey: alpha.secret_key, tenantId: alpha.tenant_id };
    },
    async stop() {
      await child?.stop();
    },
  };
}

/** The last Prism release whose engines allow Node 20. */
const PRISM = '@stoplight/prism-cli@5.14.2';
const PRISM_FETCH_MS = 300_000;
const PRISM_LISTEN_MS = 60_000;
const PRISM_READY_MS = 30_000;

/**
 * Prism's mock of spec/openapi.yaml (HTTP only), run on demand with `npx --yes`. Started with `-p 0`: Prism
 * binds a free port itself and prints it ("Prism is listening on http://127.0.0.1:PORT"), so no port is chosen
 * here and nothing races for it. Then its URL is polled (bounded) until it answers. Prism serves the spec's
 * paths at its root: the /v1 of the spec's server URL is not part of them.
 */
export function prismTarget(): Target {
  let child: ChildProcess | undefined;
  const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
  const posix = process.platform !== 'win32';
  /** SIGTERM to the whole group a child leads (npx → shell → Prism), even once npx itself has exited. */
  const signalGroup = (proc: ChildProcess): void => {
    if (proc.pid === undefined) return;
    try {
      if (posix) process.kill(-proc.pid, 'SIGTERM');
      else proc.kill('SIGTERM');
    } catch {
      // ESRCH: nothing of the group is left.
    }
  };
  const run = (args: string[]): ChildProcess => {
    // Its own process group, so that it can be ended whole; and ended whole if this process exits or is interrupted.
    const proc = spawn(npx, ['--yes', PRISM, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: posix });
    const forget = atExit(() => signalGroup(proc));
    proc.once('exit', () => {
      // Whatever npx left in its group goes with it.
      signalGroup(proc);
      forget();
    });
    return proc;
  };
  const endGroup = async (proc: ChildProcess): Promise<void> => {
    const exited = proc.exitCode !== null || proc.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    signalGroup(proc);
    await exited;
  };
  return {
    name: `prism ${PRISM.split('@')[2]}`,
    transport: 'http',
    checked: ['read', 'create'],
    async start() {
      // Fetch first (into npm's cache), so the time to download is not mistaken for a mock that never listens.
      const fetch = run(['--version']);
      let out = '';
      fetch.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      fetch.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      const timer = setTimeout(() => void endGroup(fetch), PRISM_FETCH_MS);
      const code = await new Promise<number | null>((resolve) => {
        fetch.once('error', (e) => {
          out += `${e.message}\n`;
          resolve(-1);
        });
        fetch.once('exit', (c) => resolve(c));
      });
      clearTimeout(timer);
      if (code !== 0) throw new TargetUnavailable(`npx could not fetch or run ${PRISM} (exit ${code}): ${out.trim().split('\n').slice(-3).join(' | ')}`);

      child = run(['mock', '-h', '127.0.0.1', '-p', '0', join(ROOT, 'spec', 'openapi.yaml')]);
      const proc = child;
      let log = '';
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new TargetUnavailable(`Prism printed no "listening" line within ${PRISM_LISTEN_MS / 1000} s: ${log.trim().slice(-300)}`)), PRISM_LISTEN_MS);
        const onData = (d: Buffer) => {
          log += d.toString();
          const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
          if (m) {
            clearTimeout(timer);
            resolve(Number(m[1]));
          }
        };
        proc.stdout!.on('data', onData);
        proc.stderr!.on('data', onData);
        proc.once('error', (e) => {
          clearTimeout(timer);
          reject(new TargetUnavailable(`npx could not be started: ${e.message}`));
        });
        proc.once('exit', (c) => {
          clearTimeout(timer);
          reject(new TargetUnavailable(`Prism exited (${c}) before it listened: ${log.trim().slice(-300)}`));
        });
      }).catch(async (e: unknown) => {
        await endGroup(proc);
        throw e;
      });
      // Its log is not read from here on; keep draining it so Prism never blocks on a full pipe.
      proc.stdout!.removeAllListeners('data').resume();
      proc.stderr!.removeAllListeners('data').resume();

      const ep: Endpoint = { baseUrl: `http://127.0.0.1:${port}/`, apiKey: 'sk_sandbox_bench_any_key', tenantId: 'ten_bench' };
      // Ready when its URL answers over HTTP (any status); polled with a growing pause, within a bound.
      const deadline = performance.now() + PRISM_READY_MS;
      for (let pause = 25; ; pause = Math.min(pause * 2, 500)) {
        try {
          const res = await request(`${ep.baseUrl}accounts`, { headers: { 'api-key': ep.apiKey, 'x-tenant-id': ep.tenantId } });
          await res.body.dump();
          break;
        } catch (e) {
          if (performance.now() + pause > deadline) {
            await endGroup(proc);
            throw new TargetUnavailable(`Prism did not answer on ${ep.baseUrl} within ${PRISM_READY_MS / 1000} s: ${(e as Error).message}`);
          }
          await wait(pause);
        }
      }
      return ep;
    },
    async stop() {
      if (child) await endGroup(child);
    },
  };
}
