/**
 * The GitHub Action (action.yml) run as a runner runs it: each step's script through bash, with the inputs
 * expanded into its env as GitHub does, GITHUB_ACTION_PATH at this repository and GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY at temporary files. Against the embedded sandbox, a sandbox started with
 * `fsapi-conformance sandbox`, a fault, bad inputs, a configuration error and shards to merge.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildIsCurrent } from '../bin/build-stamp.js';
import type { SandboxJsonLine } from '../src/cli/commands/sandbox.js';
import { sandboxTargetEnv } from './helpers/cli.js';
import type { RunReport } from '../src/results/model.js';
import { commandFor, okCodes } from '../action/run.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'fsapi-conformance.js');

interface ActionYaml {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: { id?: string; name: string; shell: string; run?: string; uses?: string; env?: Record<string, string> }[] };
}
const ACTION = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionYaml;

interface ActionRun {
  /** The exit code of the first step that failed, else 0: what fails the job. */
  code: number;
  outputs: Record<string, string>;
  summary: string;
  log: string;
  workspace: string;
}

/** Runs the action's steps in a fresh workspace with `inputs` (`with:`) and `env` (the job's env). */
function runAction(inputs: Record<string, string>, env: Record<string, string> = {}, workspace = mkdtempSync(join(tmpdir(), 'fsapi-action-'))): ActionRun {
  for (const name of Object.keys(inputs)) expect(ACTION.inputs, `action.yml declares input ${name}`).toHaveProperty(name);
  const values = Object.fromEntries(Object.entries(ACTION.inputs).map(([k, v]) => [k, inputs[k] ?? v.default ?? '']));
  const expand = (text: string, steps: Record<string, Record<string, string>>) =>
    text.replace(/\$\{\{\s*(inputs|steps)\.([\w-]+)(?:\.outputs\.([\w-]+))?\s*\}\}/g, (_m, kind: string, name: string, out?: string) => (kind === 'inputs' ? values[name]! : (steps[name]?.[out!] ?? '')));
  const stepOutputs: Record<string, Record<string, string>> = {};
  const summaryFile = join(workspace, '.step-summary.md');
  writeFileSync(summaryFile, '');
  let code = 0;
  let log = '';
  for (const step of ACTION.runs.steps) {
    // A `uses:` step (the artifact upload) is GitHub's own action, not ours to run here.
    if (step.run === undefined) continue;
    const outputFile = join(workspace, `.output-${step.id ?? 'step'}`);
    writeFileSync(outputFile, '');
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v, stepOutputs)]));
    const r = spawnSync(step.shell, ['-e', '-c', step.run], {
      cwd: workspace,
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', GITHUB_ACTION_PATH: ROOT, GITHUB_WORKSPACE: workspace, GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: summaryFile, ...env, ...stepEnv },
      timeout: 240_000,
    });
    log += r.stdout + r.stderr;
    if (step.id) stepOutputs[step.id] = Object.fromEntries(readFileSync(outputFile, 'utf8').split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    if (r.status !== 0) {
      code = r.status ?? 1;
      break;
    }
  }
  const outputs = Object.fromEntries(Object.entries(ACTION.outputs).map(([k, v]) => [k, expand(v.value, stepOutputs)]));
  return { code, outputs, summary: readFileSync(summaryFile, 'utf8'), log, workspace };
}

const reportOf = (run: ActionRun) => JSON.parse(readFileSync(join(run.workspace, run.outputs['report-dir']!, 'conformance.json'), 'utf8')) as RunReport;

beforeAll(() => {
  // The install step would otherwise run `npm ci` in this very checkout, under the other tests.
  expect(buildIsCurrent(ROOT), 'build first (npm run build): the action test uses the current build').toBe(true);
});

describe('action.yml', () => {
  it('is a composite action whose inputs reach its scripts only through the environment', () => {
    expect(ACTION.runs.using).toBe('composite');
    for (const step of ACTION.runs.steps) expect(step.run ?? '', step.name).not.toContain('${{');
    const wired = new Set(ACTION.runs.steps.flatMap((s) => Object.values(s.env ?? {}).map((v) => /inputs\.([\w-]+)/.exec(v)?.[1])).filter((n) => n !== undefined));
    expect([...wired].sort()).toEqual(Object.keys(ACTION.inputs).sort());
    for (const name of ['spec', 'binding', 'capabilities', 'groups', 'shard', 'seed', 'strict', 'html', 'report-dir', 'baseline', 'allow-live-writes']) expect(ACTION.inputs).toHaveProperty(name);
    expect(Object.keys(ACTION.outputs).sort()).toEqual(['exit-code', 'report-dir', 'verdict']);
    // No input takes a secret: they come from the job's environment.
    expect(Object.keys(ACTION.inputs).filter((n) => /key|secret|token/i.test(n))).toEqual([]);
  });

  it('its scripts (plain JavaScript: they run before anything is built) type-check as strictly as the sources', () => {
    const tsc = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['--ignoreConfig', '--noEmit', '--allowJs', '--checkJs', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--skipLibCheck', 'action/run.mjs', 'action/install.mjs'], { cwd: ROOT, encoding: 'utf8' });
    expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
  });

  it('turns inputs into flags; binding only as FSAPI_BINDING, and only when set', () => {
    expect(commandFor({ INPUT_GROUPS: 'accounts', INPUT_SHARD: '2/4', INPUT_SEED: '7', INPUT_STRICT: 'true', INPUT_HTML: 'false', INPUT_REPORT_DIR: 'out' })).toEqual({
      args: ['run', '--report-dir', 'out', '--groups', 'accounts', '--shard', '2/4', '--seed', '7', '--strict'],
      extraEnv: {},
      reportDir: 'out',
    });
    expect(commandFor({ INPUT_BINDING: 'vendor-binding.yaml' }).extraEnv).toEqual({ FSAPI_BINDING: 'vendor-binding.yaml' });
    expect(commandFor({ INPUT_BINDING: 'vendor-binding.yaml' }).args).toEqual(['run', '--report-dir', 'reports']);
    expect(() => commandFor({ INPUT_STRICT: 'yes' })).toThrow('input strict must be true or false, not "yes"');
    expect(commandFor({ INPUT_BASELINE: 'baseline/', INPUT_RETRIES: '10' }).args).toEqual(['run', '--report-dir', 'reports', '--baseline', 'baseline/', '--retries', '10']);
    expect([...okCodes({ INPUT_OK_EXIT_CODES: '0, 1' })]).toEqual([0, 1]);
    expect(() => okCodes({ INPUT_OK_EXIT_CODES: 'zero' })).toThrow(/ok-exit-codes/);
  });
});

describe('the action run through its scripts', { timeout: 300_000 }, () => {
  it('against the embedded sandbox: conformant, outputs, summary.md in the job summary, the step passes', () => {
    const run = runAction({ groups: 'versioning', seed: '11' });
    expect(run.code, run.log).toBe(0);
    expect(run.outputs).toMatchObject({ verdict: 'conformant', 'exit-code': '0' });
    expect(run.outputs['report-dir']).toMatch(/^reports\/\d{8}-\d{6}-[0-9a-f]{6}$/);
    expect(reportOf(run).verdict).toBe('conformant');
    expect(run.summary).toBe(readFileSync(join(run.workspace, run.outputs['report-dir']!, 'summary.md'), 'utf8').trimEnd() + '\n');
    expect(run.log).toContain('installed and built already');
  });

  it('certify: a signed package of the run, with its certificate and badge, the key from the environment', () => {
    const keys = mkdtempSync(join(tmpdir(), 'fsapi-action-key-'));
    expect(spawnSync(process.execPath, [BIN, 'keygen', '--out', join(keys, 'ci')]).status).toBe(0);
    const run = runAction({ groups: 'versioning', seed: '11', certify: 'fsapi-certification.tgz' }, { FSAPI_CERTIFY_KEY: readFileSync(join(keys, 'ci.key'), 'utf8') });
    expect(run.code, run.log).toBe(0);
    expect(run.log).not.toContain('PRIVATE KEY');
    const v = spawnSync(process.execPath, [BIN, 'verify', join(run.workspace, 'fsapi-certification.tgz'), '--key', join(keys, 'ci.pub')], { encoding: 'utf8' });
    expect(v.status, v.stderr).toBe(0);
    expect(readFileSync(join(run.workspace, 'fsapi-certification.badge.svg'), 'utf8')).toContain('conformant');
  });

  it('a fault: verdict non-conformant, exit 1 fails the step, unless ok-exit-codes allows it', () => {
    const env = { FSAPI_SANDBOX_FAULTS: 'accounts-list-empty' };
    const failed = runAction({ groups: 'accounts', seed: '11' }, env);
    expect(failed.code).toBe(1);
    expect(failed.outputs).toMatchObject({ verdict: 'non-conformant', 'exit-code': '1' });
    expect(failed.log).toMatch(/::error::fsapi-conformance exited 1: non-conformant/);
    expect(failed.summary).toContain('FSAPI-ACC-001');
    const allowed = runAction({ groups: 'accounts', seed: '11', 'ok-exit-codes': '0 1' }, env);
    expect(allowed.code).toBe(0);
    expect(allowed.outputs['verdict']).toBe('non-conformant');
  });

  it('a bad input or a configuration error: exit 2, verdict none, the job summary says there is no report', () => {
    const bad = runAction({ strict: 'yes' });
    expect(bad.code).toBe(2);
    expect(bad.outputs).toEqual({ verdict: 'none', 'exit-code': '2', 'report-dir': '' });
    expect(bad.log).toContain('::error::fsapi-conformance action: input strict must be true or false');
    const unset = runAction({}, { FSAPI_BASE_URL: 'https://127.0.0.1:9/v1/' });
    expect(unset.code).toBe(2);
    expect(unset.outputs).toEqual({ verdict: 'none', 'exit-code': '2', 'report-dir': '' });
    expect(unset.summary).toMatch(/no report[\s\S]*exited 2 \(configuration/);
    expect(existsSync(join(unset.workspace, 'reports', 'latest'))).toBe(false);
  });

  it('shards, then merge-from: the merged verdict and report', () => {
    const workspace = mkdtempSync(join(tmpdir(), 'fsapi-action-'));
    for (const shard of ['1/2', '2/2']) {
      const r = runAction({ groups: 'versioning,transport', shard, seed: '12', 'report-dir': `shards/${shard[0]}` }, {}, workspace);
      expect(r.code, r.log).toBe(0);
    }
    const merged = runAction({ 'merge-from': 'shards' }, {}, workspace);
    expect(merged.code, merged.log).toBe(0);
    expect(merged.outputs).toMatchObject({ verdict: 'conformant', 'exit-code': '0', 'report-dir': 'reports/merged' });
    expect(new Set(reportOf(merged).checks.map((c) => c.group))).toEqual(new Set(['versioning', 'transport']));
    expect(merged.summary).toContain('conformant');
  });

  describe('against a sandbox started with `fsapi-conformance sandbox`', () => {
    let sandbox: ChildProcessWithoutNullStreams | undefined;
    afterAll(() => void sandbox?.kill('SIGTERM'));

    it('takes the target and its secrets from the environment, and never prints the key', async () => {
      sandbox = spawn(process.execPath, [BIN, 'sandbox', '--json'], { env: { PATH: process.env['PATH'] ?? '' } });
      const first = await new Promise<string>((resolve, reject) => {
        createInterface({ input: sandbox!.stdout }).once('line', resolve);
        sandbox!.once('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
      });
      const info = JSON.parse(first) as Required<SandboxJsonLine>;
      const alpha = info.tenants[0]!;
      const run = runAction(
        { groups: 'accounts,transport' },
        sandboxTargetEnv(info),
      );
      expect(run.code, run.log).toBe(0);
      expect(run.outputs['verdict']).toBe('conformant');
      expect(reportOf(run).target).toMatchObject({ base_url: info.base_url, embedded: false });
      expect(run.log + run.summary + JSON.stringify(run.outputs)).not.toContain(alpha.secret_key);
    });
  });
});
