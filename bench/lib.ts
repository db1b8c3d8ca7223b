/**
 * What the benchmarks share: the compiled build check, running the CLI as a child process (with its CPU time),
 * the sandbox as a child process, reading a run's report, small statistics, the printed table and the JSON
 * written to bench/results/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { RunReport } from '../src/results/model.js';
import type { SandboxJsonLine } from '../src/cli/commands/sandbox.js';
import { buildIsCurrent as buildIsCurrentUnder } from '../bin/build-stamp.js';

export const ROOT = join(import.meta.dirname, '..');
export const BIN = join(ROOT, 'bin', 'fsapi-conformance.js');
export const RESULTS_DIR = join(ROOT, 'bench', 'results');
const RUSAGE_HOOK = join(ROOT, 'bench', 'rusage-hook.mjs');

export type { RunReport };

// ---------------------------------------------------------------------------------------------------------------
// The compiled build

/** The test bin/fsapi-conformance.js makes (bin/build-stamp.js). */
export const buildIsCurrent = (): boolean => buildIsCurrentUnder(ROOT);

export type BuildAction = 'current' | 'rebuilt';

/**
 * A stale build makes bin/ run the sources through tsx (seconds more start-up, every module through its loader):
 * a child measured that way measures tsx. Rebuilds with `npm run build` when the stamp is older than a source.
 */
export async function ensureBuild(): Promise<BuildAction> {
  if (buildIsCurrent()) {
    console.error('build: dist/ is current (dist/.build-stamp is newer than every source)');
    return 'current';
  }
  console.error('build: dist/ is older than the sources; running `npm run build` first');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(npm, ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
    child.once('error', reject);
    child.once('exit', (c) => resolve(c));
  });
  if (code !== 0 || !buildIsCurrent()) throw new BenchFailure(`npm run build failed (exit ${code}); the benchmark would measure the sources through tsx`);
  return 'rebuilt';
}

// ---------------------------------------------------------------------------------------------------------------
// Child processes

const live = new Set<ChildProcess>();
const cleanups = new Set<() => void>();
let hooked = false;

function cleanUp(): void {
  for (const c of live) if (c.exitCode === null && c.signalCode === null) c.kill(endWith.get(c) ?? 'SIGTERM');
  for (const f of cleanups) f();
}

/**
 * An error or an interrupt in the benchmark must not leave a sandbox, a run or a mock behind. Installed with the
 * first child: on exit, and on SIGINT/SIGTERM (whose default action would skip the 'exit' event), every child
 * still running is sent SIGTERM and every registered clean-up runs.
 */
function hook(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', cleanUp);
  process.once('SIGINT', () => process.exit(130));
  process.once('SIGTERM', () => process.exit(143));
}

/** How a child is ended when the benchmark is: SIGTERM, unless it was tracked with another signal. */
const endWith = new WeakMap<ChildProcess, NodeJS.Signals>();

function track(child: ChildProcess, signal?: NodeJS.Signals): ChildProcess {
  hook();
  if (signal) endWith.set(child, signal);
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Runs `f` (synchronously) when the benchmark exits or is interrupted, until the returned function is called. */
export function atExit(f: () => void): () => void {
  hook();
  cleanups.add(f);
  return () => cleanups.delete(f);
}

/**
 * The environment for a child: this one without any FSAPI_* variable (a target or setting left in the shell
 * would change what is measured), plus `extra`. Children also run in a fresh directory, so no .env is read.
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('FSAPI_') && v !== undefined) env[k] = v;
  return { ...env, ...extra };
}

export interface CpuUsage {
  user_ms: number;
  system_ms: number;
  /** Peak resident set size of the process. */
  max_rss_mb: number;
}

export interface CliRun {
  args: string[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** From spawn to exit, as the benchmark saw it. */
  wall_ms: number;
  /** The child's own CPU time (every thread), when measured. */
  cpu?: CpuUsage;
}

/**
 * Runs `node bin/fsapi-conformance.js <args>` in `cwd` (`bin`: another checkout's, to compare builds; `nodeArgs`:
 * flags for node itself, such as --cpu-prof). With `cpu`, the child is started with a preload
 * (bench/rusage-hook.mjs) that writes its getrusage() at exit. `tee` copies the child's stderr to ours, prefixed.
 */
export async function runCli(args: string[], opts: { cwd: string; env?: Record<string, string>; cpu?: boolean; tee?: string; bin?: string; nodeArgs?: string[] }): Promise<CliRun> {
  const rusageFile = opts.cpu ? join(opts.cwd, `.rusage-${process.pid}-${Math.random().toString(36).slice(2)}.json`) : undefined;
  const env = childEnv({ ...opts.env, ...(rusageFile ? { BENCH_RUSAGE_FILE: rusageFile } : {}) });
  const nodeArgs = [...(opts.nodeArgs ?? []), ...(rusageFile ? ['--import', pathToFileURL(RUSAGE_HOOK).href] : []), opts.bin ?? BIN, ...args];
  const t0 = performance.now();
  const child = track(spawn(process.execPath, nodeArgs, { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  let pending = '';
  child.stderr!.on('data', (d: Buffer) => {
    const s = d.toString();
    stderr += s;
    if (opts.tee === undefined) return;
    pending += s;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const l of lines) process.stderr.write(`${opts.tee}${l}\n`);
  });
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c, s) => resolve({ code: c, signal: s }));
  });
  const wall = performance.now() - t0;
  if (opts.tee !== undefined && pending) process.stderr.write(`${opts.tee}${pending}\n`);
  let cpu: CpuUsage | undefined;
  if (rusageFile && existsSync(rusageFile)) {
    const r = JSON.parse(readFileSync(rusageFile, 'utf8')) as { user_us: number; system_us: number; max_rss_kb: number };
    cpu = { user_ms: r.user_us / 1000, system_ms: r.system_us / 1000, max_rss_mb: r.max_rss_kb / 1024 };
    rmSync(rusageFile, { force: true });
  }
  return { args, code, signal, stdout, stderr, wall_ms: wall, ...(cpu ? { cpu } : {}) };
}

/** The end of a child's stderr, for an error message. */
export function tail(text: string, lines = 15): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/**
 * What a node child (`node ...args`) printed on stdout, once it exits 0: the measured children of the benchmarks
 * print their figures there. Otherwise an error naming `what`, the exit code and the end of its stderr.
 */
export async function nodeChildOutput(args: string[], what: string, opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<string> {
  // Tracked, so an interrupted benchmark ends it too: killed, as it holds nothing to save, and a child in a long
  // synchronous loop (a reporter writing thousands of files) would answer SIGTERM only when the loop is done.
  const child = track(spawn(process.execPath, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] }), 'SIGKILL');
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((done, fail) => {
    child.once('error', fail);
    child.once('close', done);
  });
  if (code !== 0) throw new BenchFailure(`${what} exited ${code}:\n${tail(err)}`);
  return out;
}

/** A run's exit code is its verdict (0 conformant, 1 non-conformant); anything else means it did not run through. */
export function assertRan(r: CliRun, what: string): void {
  if (r.code === 0 || r.code === 1) return;
  throw new BenchFailure(`${what} exited ${r.code ?? r.signal}:\n${tail(r.stderr)}`);
}

/** "written in 1.2 s" from the console summary (stdout): report writing, which conformance.json cannot hold. */
export function reportWritingMs(stdout: string): number | undefined {
  const m = /written in (\d+(?:\.\d+)?) s\)/.exec(stdout);
  return m ? Number(m[1]) * 1000 : undefined;
}

/** The report `reports/latest` points at, under a run's --report-dir. */
export function readLatestReport(reportRoot: string): RunReport {
  return readReport(join(reportRoot, 'latest', 'conformance.json'));
}

export function readReport(file: string): RunReport {
  return JSON.parse(readFileSync(file, 'utf8')) as RunReport;
}

export interface SandboxChild {
  info: SandboxJsonLine;
  /** PEM of the CA file. */
  ca: string;
  /** The CPU time (user + system) the sandbox's process has used so far, in ms; undefined where /proc cannot tell. */
  cpuMs(): number | undefined;
  stop(): Promise<void>;
}

/** A process's CPU time so far (user + system, ms) from /proc/<pid>/stat (Linux), at 100 ticks a second. */
function procCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    // After the command: state is field 3, utime 14 and stime 15 (1-based, see proc(5)).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** `fsapi-conformance sandbox --json [extra]` in a child process, until stop(); resolves once it serves. */
export async function startSandboxChild(extra: string[] = []): Promise<SandboxChild> {
  const child = track(spawn(process.execPath, [BIN, 'sandbox', '--json', ...extra], { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] }));
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const i = out.indexOf('\n');
      if (i >= 0) resolve(out.slice(0, i));
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new BenchFailure(`the sandbox exited (${code}) before it served: ${err.trim()}`)));
  });
  const info = JSON.parse(line) as SandboxJsonLine;
  return {
    info,
    ca: readFileSync(info.ca_file, 'utf8'),
    cpuMs: () => procCpuMs(child.pid),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A port free now on loopback (the system's choice), for a listener another process opens next. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface SandboxApart extends SandboxChild {
  /**
   * What a full run against it needs, as a user sets it: the target, every credential it offers, its plain-HTTP
   * address, and the webhook receiver's address and secret (the sandbox delivers every tenant's events there).
   */
  env: Record<string, string>;
}

/**
 * The sandbox as a user starts it apart (`sandbox --json --http-port 0 --webhook-url ...`), and the settings of a
 * full run against it: with any one missing, the MUST requirements it unlocks are not verified and the run is
 * inconclusive (exit 6).
 */
export async function startSandboxApart(extra: string[] = []): Promise<SandboxApart> {
  const listen = `127.0.0.1:${await freePort()}`;
  const sandbox = await startSandboxChild(['--http-port', '0', '--webhook-url', `http://${listen}/webhooks`, ...extra]);
  const { info } = sandbox;
  const [alpha, beta] = info.tenants;
  return {
    ...sandbox,
    env: {
      FSAPI_BASE_URL: info.base_url,
      FSAPI_API_KEY: alpha!.secret_key,
      FSAPI_TENANT_ID: alpha!.tenant_id,
      FSAPI_CA_FILE: info.ca_file,
      FSAPI_PUBLIC_KEY: alpha!.public_key,
      FSAPI_LIVE_API_KEY: info.live_key,
      FSAPI_REVOKED_API_KEY: info.revoked_key,
      FSAPI_SECOND_API_KEY: beta!.secret_key,
      FSAPI_SECOND_TENANT_ID: beta!.tenant_id,
      ...(info.plain_http_url ? { FSAPI_PLAIN_HTTP_URL: info.plain_http_url } : {}),
      FSAPI_WEBHOOK_SECRET: info.webhook_secret,
      FSAPI_WEBHOOK_LISTEN: listen,
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Figures, tables, results

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(values: number[]): Spread {
  if (values.length === 0) return { median: NaN, min: NaN, max: NaN };
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]! };
}

export const round = (n: number, places = 2): number => {
  const f = 10 ** places;
  return Math.round(n * f) / f;
};

/** Seconds from milliseconds, for a table cell. */
export const sec = (ms: number | undefined, places = 1): string => (ms === undefined || Number.isNaN(ms) ? '-' : (ms / 1000).toFixed(places));

/** Prints a table: first column left-aligned, the others right-aligned. */
export function printTable(head: string[], rows: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  console.log(line(head));
  for (const r of rows) console.log(line(r));
}

/** The machine, for the JSON: figures belong to it. */
export function machine(): { node: string; cpus: number; cpu_model: string; loadavg_1m: number } {
  return { node: process.version, cpus: availableParallelism(), cpu_model: cpus()[0]?.model ?? 'unknown', loadavg_1m: round(loadavg()[0] ?? 0) };
}

/** Writes bench/results/<name>.json (with the machine and the time) and returns its path relative to the repository. */
export function writeResult(name: string, body: object): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${name}.json`);
  writeFileSync(file, `${JSON.stringify({ generated_at: new Date().toISOString(), ...machine(), ...body }, null, 2)}\n`);
  return relative(ROOT, file);
}

/** Comma-separated whole numbers, each at least `min`; undefined when malformed. */
export function intList(s: string, min = 1): number[] | undefined {
  const out = s.split(',').map((x) => Number(x.trim()));
  return out.length > 0 && out.every((n) => Number.isInteger(n) && n >= min) ? out : undefined;
}

/** A whole number flag, at least `min`; undefined when malformed. */
export function int(s: string | undefined, min = 1): number | undefined {
  if (s === undefined || !/^\d+$/.test(s.trim())) return undefined;
  const n = Number(s);
  return n >= min ? n : undefined;
}

/**
 * What the benchmark measures did not run through (a run refused by its target, a build that failed): said as its
 * message, with the child's last lines, and exit 1; a stack trace there would only point into this file. Any other
 * error is the benchmark's own defect and keeps its stack.
 */
export class BenchFailure extends Error {}
process.on('uncaughtException', (e) => {
  console.error(e instanceof BenchFailure ? `error: ${e.message}` : e);
  process.exit(1);
});

/** The command line as `parseArgs` reads it; an unknown or malformed flag prints what is wrong and the usage, exit 2. */
export function benchArgs<T extends ParseArgsConfig>(usageText: string, config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (e) {
    return usage(`${usageText}\n(${(e as Error).message})`);
  }
}

export function usage(text: string): never {
  console.error(`usage: ${text}`);
  process.exit(2);
}
