/**
 * The package as its users get it: `npm pack`, then `npm install <tarball>` into an empty folder outside the
 * repository (one install, shared by every test here), then the commands they run there: `npx fsapi-conformance
 * run` against the embedded sandbox, and `npx fsapi-conformance sandbox --json` with a run against it configured
 * only by FSAPI_BASE_URL, FSAPI_API_KEY, FSAPI_TENANT_ID and FSAPI_CA_FILE. Slow (npm install from the registry),
 * so the timeouts are generous.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, posix, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxJsonLine } from '../src/cli/commands/sandbox.js';
import { sandboxTargetEnv } from './helpers/cli.js';
import { ALL_SUITES } from '../src/config/run-config.js';
import { WAITING_FILE } from '../src/paths.js';
import type { RunReport } from '../src/results/model.js';
import { buildIsCurrent } from '../bin/build-stamp.js';
import { busy } from './helpers/busy.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The environment of a user's shell: ours without npm's, vitest's and any FSAPI_ setting of this process. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(npm_|FSAPI_|VITEST|INIT_CWD$|NODE_ENV$|NODE_OPTIONS$|TEST$)/i.test(k)) continue;
    env[k] = v;
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function exec(command: string, args: string[], cwd: string, env = userEnv()): Promise<Result> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: performance.now() - t0 }));
  });
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

const latestReport = (cwd: string): RunReport => JSON.parse(readFileSync(join(cwd, 'reports', 'latest', 'conformance.json'), 'utf8')) as RunReport;

let work: string;
let consumer: string;
let packed: { filename: string; size: number; unpackedSize: number; files: { path: string }[] };
let files: string[];
let installMs: number;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'fsapi-package-'));
  // `npm pack` builds through `prepare`; when dist/ is current already, pack it as it is rather than rewrite it
  // under the other test files that run the CLI from it at the same time.
  if (!buildIsCurrent(ROOT)) {
    const build = await exec('npm', ['run', 'build'], ROOT);
    expect(build.code, build.stdout + build.stderr).toBe(0);
  }
  const pack = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT);
  expect(pack.code, pack.stderr).toBe(0);
  packed = (JSON.parse(pack.stdout) as (typeof packed)[])[0]!;
  files = packed.files.map((f) => f.path).sort();

  consumer = join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), `${JSON.stringify({ name: 'consumer', private: true }, null, 2)}\n`);
  const install = await exec('npm', ['install', join(work, packed.filename), '--no-audit', '--no-fund'], consumer);
  expect(install.code, install.stderr).toBe(0);
  installMs = install.ms;
  const byFolder: Record<string, number> = {};
  for (const f of files) {
    const folder = f.split('/').slice(0, f.startsWith('dist/') ? 2 : 1).join('/');
    byFolder[folder] = (byFolder[folder] ?? 0) + 1;
  }
  console.log(
    `${packed.filename}: ${(packed.size / 1024).toFixed(0)} kB packed, ${(packed.unpackedSize / 1024).toFixed(0)} kB unpacked, ${files.length} files ` +
      `${JSON.stringify(byFolder)}; npm install into an empty folder: ${(installMs / 1000).toFixed(1)} s`,
  );
}, busy(600_000));

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('npm pack', () => {
  it('ships the compiled build, the spec, the fixtures and the schemas a run reads', () => {
    const needed = [
      'package.json',
      'README.md',
      'LICENSE',
      'docs/sandbox.md',
      'docs/certification.md',
      'bin/fsapi-conformance.js',
      'bin/build-stamp.js',
      'bin/tiering.js',
      'dist/.build-stamp',
      // The reference profile's validators, compiled by the build (src/catalogue/precompiled.ts).
      'dist/src/catalogue/reference-validators.cjs',
      // The report schema's validator, compiled by the build (src/reports/schema.ts).
      'dist/src/reports/report-validator.cjs',
      'spec/openapi.yaml',
      'spec/requirements.yaml',
      'spec/requirements.schema.json',
      ...readdirSync(join(ROOT, 'spec', 'seed')).map((f) => `spec/seed/${f}`),
      'fixtures/tenants.json',
      'src/reports/conformance.schema.json',
      'src/reports/allurerc.mjs',
      ...[...ALL_SUITES, WAITING_FILE].map((s) => `dist/suites/${s}.conformance.js`),
    ];
    expect(files).toEqual(expect.arrayContaining(needed));
    // Every module of the harness, the sandbox, the fixtures and the suites, compiled; and nothing compiled from
    // a source that no longer exists.
    const compiled = ['src', 'sandbox', 'fixtures', 'suites'].flatMap((d) =>
      filesUnder(join(ROOT, d))
        .filter((p) => p.endsWith('.ts'))
        .map((p) => `dist/${relative(ROOT, p).split(sep).join('/').replace(/\.ts$/, '.js')}`)
        // Run by `npm run build` alone, to write the compiled validators: not shipped.
        .filter((f) => f !== 'dist/src/catalogue/build-validators.js' && f !== 'dist/src/explore/reference-validators.js'),
    );
    expect(files.filter((f) => f.startsWith('dist/') && f.endsWith('.js')).sort()).toEqual(compiled.sort());
  });

  it('ships nothing else: no tests, benches, reports, docs beyond those a user reads, sources or tool configuration', () => {
    const allowed =
      /^(package\.json|README\.md|LICENSE|bin\/(fsapi-conformance|build-stamp|tiering)\.js|dist\/\.build-stamp|dist\/(src|sandbox|fixtures|suites)\/.+\.js|dist\/src\/(catalogue\/reference-validators|reports\/report-validator|certify\/predicate-validator)\.cjs|spec\/.+\.(ya?ml|json|md)|fixtures\/tenants\.json|src\/reports\/(conformance\.schema\.json|allurerc\.mjs)|docs\/(sandbox\.md|certification\.md|self-verification\.(json|md)))$/;
    expect(files.filter((f) => !allowed.test(f))).toEqual([]);
    for (const dir of ['test/', 'bench/', 'reports/', 'examples/', '.ci/']) expect(files.filter((f) => f.startsWith(dir))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
  });

  it('ships only modules that the command, its threads or the suites load: no test-only code', () => {
    const shipped = new Set(files);
    const js = files.filter((f) => f.startsWith('dist/') && f.endsWith('.js'));
    // Entry points: the command, the suite files vitest loads, and the sandbox thread (started by its URL).
    const todo = ['bin/fsapi-conformance.js', 'dist/sandbox/thread-entry.js', ...js.filter((f) => f.startsWith('dist/suites/'))];
    const reached = new Set<string>();
    const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+\.js)['"]/g;
    while (todo.length) {
      const f = todo.pop()!;
      if (reached.has(f) || !shipped.has(f)) continue;
      reached.add(f);
      for (const m of readFileSync(join(ROOT, f), 'utf8').matchAll(RELATIVE_IMPORT)) todo.push(posix.normalize(posix.join(posix.dirname(f), m[1]!)));
    }
    // A module of types alone compiles to `export {};`: nothing in it runs.
    const unreached = js.filter((f) => !reached.has(f) && readFileSync(join(ROOT, f), 'utf8').trim() !== 'export {};');
    expect(unreached).toEqual([]);
    expect(reached.size).toBeGreaterThan(100);
  });

  it('needs no build step and no dev tool once installed', () => {
    for (const dev of ['typescript', 'tsx', '@types/node']) {
      expect(MANIFEST.dependencies[dev], dev).toBeUndefined();
      expect(MANIFEST.devDependencies[dev], dev).toBeDefined();
    }
    expect(existsSync(join(consumer, 'node_modules', 'typescript'))).toBe(false);
    expect(existsSync(join(consumer, 'node_modules', 'tsx'))).toBe(false);
    const installed = join(consumer, 'node_modules', 'fsapi-conformance');
    const shipped = ['LICENSE', 'README.md', 'bin', 'dist', 'docs', 'fixtures', 'package.json', 'spec', 'src'];
    expect(readdirSync(installed).filter((f) => !shipped.includes(f))).toEqual([]);
    expect(existsSync(join(consumer, 'node_modules', '.bin', 'fsapi-conformance'))).toBe(true);
  });
});

describe('installed into an empty folder', () => {
  it('npx fsapi-conformance run: every suite against the embedded sandbox, conformant, exit 0', async () => {
    const r = await exec('npx', ['fsapi-conformance', 'run', '--seed', '7'], consumer);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('verdict: CONFORMANT');
    expect(r.stderr).not.toMatch(/suite error|internal error/);
    const report = latestReport(consumer);
    expect(report.verdict).toBe('conformant');
    expect(report.suite.version).toBe(MANIFEST.version);
    expect(report.target.embedded).toBe(true);
    // Every suite but `unbound`, which runs only for a vendor document with operations no group holds.
    expect([...report.run.groups].sort()).toEqual(ALL_SUITES.filter((s) => s !== 'unbound').sort());
    expect(report.counts.by_status.failed + report.counts.by_status.error).toBe(0);
    expect(report.counts.by_status.passed).toBeGreaterThan(1000);
    // Every suite registered its checks with the runner's vitest (test/inject from the same instance), and the
    // Allure reporter wrote each check with the labels the main thread gives it.
    expect(new Set(report.checks.map((c) => c.group))).toEqual(new Set(ALL_SUITES.filter((s) => s !== 'unbound')));
    const results = readdirSync(join(consumer, 'reports', 'latest', 'allure-results')).filter((f) => f.endsWith('-result.json'));
    expect(results.length).toBe(report.counts.by_status.total);
    const one = JSON.parse(readFileSync(join(consumer, 'reports', 'latest', 'allure-results', results[0]!), 'utf8')) as { labels: { name: string }[] };
    expect(one.labels.map((l) => l.name)).toEqual(expect.arrayContaining(['epic', 'feature', 'story', 'severity']));
    console.log(`installed run: ${report.counts.by_status.total} checks in ${(r.ms / 1000).toFixed(1)} s`);
  }, busy(600_000));

  it('npx fsapi-conformance requirements and --help read the shipped catalogue', async () => {
    const [req, help] = await Promise.all([exec('npx', ['fsapi-conformance', 'requirements', '--json'], consumer), exec('npx', ['fsapi-conformance', '--help'], consumer)]);
    expect(req.code, req.stderr).toBe(0);
    expect((JSON.parse(req.stdout) as unknown[]).length).toBeGreaterThan(50);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: fsapi-conformance <command> [options]');
  }, busy(120_000));

  describe('npx fsapi-conformance sandbox --json, and a run against it configured by the environment', () => {
    let sandbox: ChildProcessByStdio<null, Readable, Readable> | undefined;
    let closed: Promise<Result> | undefined;

    afterAll(() => {
      // Only if a test failed before stopping it: the whole process group (npx, its shell, the sandbox).
      if (sandbox?.pid && sandbox.exitCode === null && sandbox.signalCode === null) process.kill(-sandbox.pid, 'SIGKILL');
    });

    it('prints one JSON line, serves a conformant target to FSAPI_BASE_URL/API_KEY/TENANT_ID/CA_FILE, stops on SIGTERM', async () => {
      const t0 = performance.now();
      // Its own process group, as a terminal or a CI runner starts it: npx hands the command to a shell, and a
      // signal to the group reaches the sandbox itself.
      sandbox = spawn('npx', ['fsapi-conformance', 'sandbox', '--json'], { cwd: consumer, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let stdout = '';
      let stderr = '';
      sandbox.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      closed = new Promise((resolve) => sandbox!.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: performance.now() - t0 })));
      const line = await new Promise<string>((resolve, reject) => {
        sandbox!.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
        });
        void closed!.then((r) => reject(new Error(`the sandbox exited (${r.code ?? r.signal}) before printing its JSON line: ${r.stderr}`)));
      });
      const info = JSON.parse(line) as SandboxJsonLine;
      expect(info.base_url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1\/$/);
      expect(existsSync(info.ca_file)).toBe(true);
      const alpha = info.tenants[0]!;

      const r = await exec(
        'npx',
        ['fsapi-conformance', 'run', '--groups', 'accounts,transport'],
        consumer,
        userEnv(sandboxTargetEnv(info)),
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`: ${info.base_url} (sandbox)`);
      expect(r.stdout).toContain('verdict: CONFORMANT');
      expect(r.stderr + r.stdout).not.toContain(alpha.secret_key);
      const report = latestReport(consumer);
      expect(report.verdict).toBe('conformant');
      expect(report.target).toMatchObject({ base_url: info.base_url, embedded: false, tenant_id: alpha.tenant_id });
      expect(new Set(report.checks.map((c) => c.group))).toEqual(new Set(['accounts', 'transport']));
      expect(report.counts.by_status.passed).toBeGreaterThan(50);

      // Stop it: 'close' comes once every process holding its output has exited, the sandbox included.
      process.kill(-sandbox.pid!, 'SIGTERM');
      const end = await closed;
      expect(end.stdout.trim().split('\n')).toHaveLength(1);
      expect(end.stderr).not.toMatch(/internal error|^error:/m);
      const port = Number(new URL(info.base_url).port);
      const refused = await new Promise<string>((resolve) => {
        const s = connect(port, '127.0.0.1');
        s.on('connect', () => {
          s.destroy();
          resolve('connected');
        });
        s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      });
      expect(refused).toBe('ECONNREFUSED');
      console.log(`sandbox + remote run (accounts,transport): ${(r.ms / 1000).toFixed(1)} s`);
    }, busy(300_000));
  });
});
