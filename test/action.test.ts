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
import { ACTION, runAction, type ActionRun, type ActionStep } from './helpers/action.js';
import { buildIsCurrent } from '../bin/build-stamp.js';
import type { SandboxJsonLine } from '../src/cli/commands/sandbox.js';
import { sandboxTargetEnv } from './helpers/cli.js';
import type { RunReport } from '../src/results/model.js';
import { artifactName, commandFor, mustAnnotations, okCodes, targetSettings } from '../action/run.mjs';
import { cacheKey } from '../action/cache-key.mjs';
import { busy } from './helpers/busy.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'fsapi-conformance.js');

const reportOf = (run: ActionRun) => JSON.parse(readFileSync(join(run.workspace, run.outputs['report-dir']!, 'conformance.json'), 'utf8')) as RunReport;

beforeAll(() => {
  // The install step would otherwise run `npm ci` in this very checkout, under the other tests.
  expect(buildIsCurrent(ROOT), 'build first (npm run build): the action test uses the current build').toBe(true);
});

describe('action.yml', () => {
  it('is a composite action whose inputs reach its scripts only through the environment', () => {
    expect(ACTION.runs.using).toBe('composite');
    for (const step of ACTION.runs.steps.filter((s) => s.run)) expect(step.run, step.name).not.toContain('${{');
    const wired = new Set(ACTION.runs.steps.flatMap((s) => Object.values(s.env ?? {}).map((v) => /inputs\.([\w-]+)/.exec(v)?.[1])).filter((n) => n !== undefined));
    expect([...wired].sort()).toEqual(Object.keys(ACTION.inputs).sort());
    for (const name of ['spec', 'binding', 'capabilities', 'groups', 'shard', 'seed', 'strict', 'html', 'report-dir', 'baseline', 'allow-live-writes']) expect(ACTION.inputs).toHaveProperty(name);
    expect(Object.keys(ACTION.outputs).sort()).toEqual(['artifact-name', 'exit-code', 'report-dir', 'verdict']);
    // No input takes a secret: they come from the job's environment.
    expect(Object.keys(ACTION.inputs).filter((n) => /key|secret|token/i.test(n))).toEqual([]);
  });

  it('its scripts (plain JavaScript: they run before anything is built) type-check as strictly as the sources', () => {
    const tsc = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['--ignoreConfig', '--noEmit', '--allowJs', '--checkJs', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--skipLibCheck', 'action/run.mjs', 'action/install.mjs', 'action/cache-key.mjs'], { cwd: ROOT, encoding: 'utf8' });
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
    // capabilities: a file of the workspace, or (several lines, `capabilities: |`) the file's text, written for the run.
    expect(commandFor({ INPUT_CAPABILITIES: 'caps.yml' }).args).toEqual(['run', '--report-dir', 'reports', '--capabilities', 'caps.yml']);
    const inline = commandFor({ INPUT_CAPABILITIES: 'waive: [{ requirement: FSAPI-WH-003, reason: no tunnel }]\n', RUNNER_TEMP: tmpdir() }).args;
    expect(readFileSync(inline[inline.indexOf('--capabilities') + 1]!, 'utf8')).toBe('waive: [{ requirement: FSAPI-WH-003, reason: no tunnel }]\n');
    expect([...okCodes({ INPUT_OK_EXIT_CODES: '0, 1' })]).toEqual([0, 1]);
    expect(() => okCodes({ INPUT_OK_EXIT_CODES: 'zero' })).toThrow(/ok-exit-codes/);
  });
});

describe('a self-contained action', () => {
  const step = (uses: string) => ACTION.runs.steps.find((s) => s.uses?.startsWith(uses))!;
  const at = (s: ActionStep) => ACTION.runs.steps.indexOf(s);
  const install = ACTION.runs.steps.find((s) => s.run?.includes('install.mjs'))!;
  const run = ACTION.runs.steps.find((s) => s.id === 'run')!;

  it('sets up Node itself (node-version input, default 20; empty: the runner\'s own), before installing', () => {
    const setup = step('actions/setup-node@');
    expect(setup.with).toEqual({ 'node-version': '${{ inputs.node-version }}' });
    expect(setup.if).toBe("inputs.node-version != ''");
    expect(ACTION.inputs['node-version']!.default).toBe('20');
    expect(at(setup)).toBeLessThan(at(install));
  });

  it('caches its install (node_modules and dist) under a key of the lockfile and sources, restored before npm ci', () => {
    const cache = step('actions/cache@');
    expect(cache.with!['path']).toContain('${{ github.action_path }}/node_modules');
    expect(cache.with!['path']).toContain('${{ github.action_path }}/dist');
    expect(cache.with!['key']).toBe('${{ steps.cache-key.outputs.key }}');
    expect(at(cache)).toBeLessThan(at(install));
    expect(install.env).toEqual({ CACHE_HIT: `\${{ steps.${cache.id}.outputs.cache-hit }}` });
    // The key is the content: the same tree, the same key; any source or the lockfile changed, another.
    expect(cacheKey(ROOT)).toBe(cacheKey(ROOT));
    expect(cacheKey(ROOT)).toMatch(/^fsapi-conformance-[a-z0-9]+-[a-z0-9]+-node\d+-[0-9a-f]{32}$/);
    const copy = mkdtempSync(join(tmpdir(), 'fsapi-cachekey-'));
    writeFileSync(join(copy, 'package-lock.json'), '{}');
    const before = cacheKey(copy);
    writeFileSync(join(copy, 'package-lock.json'), '{"changed":true}');
    expect(cacheKey(copy)).not.toBe(before);
  });

  it('a cache hit is used as it is: no npm ci, the restored build\'s stamp renewed', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'action', 'install.mjs')], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', CACHE_HIT: 'true' } });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('install restored from the cache');
    expect(buildIsCurrent(ROOT)).toBe(true);
  });

  it('uploads the reports as an artifact by default, even when the run failed; upload: false turns it off', () => {
    const upload = step('actions/upload-artifact@');
    expect(ACTION.inputs['upload']!.default).toBe('true');
    expect(upload.if).toBe("always() && inputs.upload == 'true' && steps.run.outputs.report-dir != ''");
    expect(upload.with).toMatchObject({ name: '${{ steps.run.outputs.artifact-name }}', path: '${{ steps.run.outputs.report-dir }}' });
    expect(at(upload)).toBeGreaterThan(at(run));
    // One name per job: shards and the merge do not collide.
    expect(artifactName({})).toBe('fsapi-conformance-reports');
    expect(artifactName({ INPUT_SHARD: '2/4' })).toBe('fsapi-conformance-reports-shard-2-of-4');
    expect(artifactName({ INPUT_MERGE_FROM: 'shards' })).toBe('fsapi-conformance-reports-merged');
  });

  it('passes other flags through args; quotes are refused with the way out', () => {
    expect(commandFor({ INPUT_GROUPS: 'fx', INPUT_ARGS: ' --timeout-ms 20000  --rate-limit 50 ' }).args).toEqual(['run', '--report-dir', 'reports', '--groups', 'fx', '--timeout-ms', '20000', '--rate-limit', '50']);
    expect(() => commandFor({ INPUT_ARGS: "--spec 'my doc.yaml'" })).toThrow(/quotes are not read/);
  });

  it('annotates each failed MUST requirement once, escaped as GitHub reads workflow commands', () => {
    const c = (requirement: string, level: string, status: string, message: string) => ({ requirement, level, status, message, name: `${requirement} x` });
    const lines = mustAnnotations({
      checks: [c('FSAPI-IDEM-002', 'MUST', 'failed', 'a: 50%\nnew'), c('FSAPI-IDEM-002', 'MUST', 'failed', 'b'), c('FSAPI-HDR-101', 'SHOULD', 'warning', 'w'), c('FSAPI-AUTH-001', 'MUST', 'passed', '')],
    });
    expect(lines).toEqual(['::error title=FSAPI-IDEM-002 (MUST) failed::FSAPI-IDEM-002 x: a: 50%25%0Anew (and 1 more failed check; see the job summary)']);
  });

  it('FSAPI_DOTENV (one secret: the lines of a .env) sets the target; a variable declared but empty is a missing secret, refused', () => {
    expect(targetSettings({ FSAPI_DOTENV: '# comment\nFSAPI_BASE_URL=https://x.test/v1/\nexport FSAPI_API_KEY="sk_1"\n\nFSAPI_TENANT_ID=t', FSAPI_TENANT_ID: 'mine' })).toEqual({ FSAPI_BASE_URL: 'https://x.test/v1/', FSAPI_API_KEY: 'sk_1' });
    expect(() => targetSettings({ FSAPI_DOTENV: 'PATH=/evil' })).toThrow(/line 1 is not an FSAPI_NAME=value line/);
    expect(() => targetSettings({ FSAPI_DOTENV: '' })).toThrow(/FSAPI_DOTENV is set but empty.*forks get no secrets/);
    expect(() => targetSettings({ FSAPI_BASE_URL: ' ' })).toThrow(/FSAPI_BASE_URL is set but empty/);
    // A private CA: its PEM text (a secret) becomes a file of this runner; a path from another machine is refused.
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
    const ca = targetSettings({ FSAPI_DOTENV: 'FSAPI_CA_FILE=/nowhere/ca.pem', FSAPI_CA_PEM: pem })['FSAPI_CA_FILE']!;
    expect(readFileSync(ca, 'utf8')).toBe(`${pem}\n`);
    expect(() => targetSettings({ FSAPI_DOTENV: 'FSAPI_CA_FILE=/nowhere/ca.pem' })).toThrow(/names \/nowhere\/ca\.pem, which is not on this runner.*FSAPI_CA_PEM/);
    expect(() => targetSettings({ FSAPI_CA_PEM: '/path/ca.pem' })).toThrow(/holds no PEM certificate/);
  });
});

describe('the action run through its scripts', { timeout: busy(300_000) }, () => {
  it('against the embedded sandbox: conformant, outputs, summary.md in the job summary, the step passes', () => {
    const run = runAction({ groups: 'versioning', seed: '11' });
    expect(run.code, run.log).toBe(0);
    expect(run.outputs).toMatchObject({ verdict: 'conformant', 'exit-code': '0' });
    expect(run.outputs['report-dir']).toMatch(/^reports\/\d{8}-\d{6}-[0-9a-f]{6}$/);
    expect(reportOf(run).verdict).toBe('conformant');
    expect(run.summary).toBe(readFileSync(join(run.workspace, run.outputs['report-dir']!, 'summary.md'), 'utf8').trimEnd() + '\n');
    expect(run.log).toContain('installed and built already');
    // "Repeat this run" names the command a reader has, not the runner's path to the action.
    expect(reportOf(run).run.repeat!.command).toBe('npx --no fsapi-conformance run --seed 11 --groups versioning');
  });

  it('certify: a signed package of the run, with its certificate and badge, the key from the environment', () => {
    const keys = mkdtempSync(join(tmpdir(), 'fsapi-action-key-'));
    expect(spawnSync(process.execPath, [BIN, 'keygen', '--out', join(keys, 'ci')]).status).toBe(0);
    const key = { FSAPI_CERTIFY_KEY: readFileSync(join(keys, 'ci.key'), 'utf8') };
    // The embedded sandbox is no vendor: certified only when asked for.
    const refused = runAction({ groups: 'versioning', seed: '11', certify: 'fsapi-certification.tgz' }, key);
    expect(refused.code).toBe(2);
    expect(refused.log).toContain('--allow-reference-sandbox');
    const run = runAction({ groups: 'versioning', seed: '11', certify: 'fsapi-certification.tgz' }, { ...key, FSAPI_CERTIFY_ALLOW_REFERENCE_SANDBOX: 'true', FSAPI_CERTIFY_PARTY: 'CI trial' });
    expect(run.code, run.log).toBe(0);
    expect(run.log).not.toContain('PRIVATE KEY');
    const v = spawnSync(process.execPath, [BIN, 'verify', join(run.workspace, 'fsapi-certification.tgz'), '--key', join(keys, 'ci.pub')], { encoding: 'utf8' });
    expect(v.status, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/^verified: conformant \(reference sandbox, not a vendor; 1 of 14 suites\) for CI trial at https:\/\/127\.0\.0\.1:\d+\/v1\/; signed by/);
    expect(readFileSync(join(run.workspace, 'fsapi-certification.badge.svg'), 'utf8')).toContain('reference sandbox · 1/14 suites · conformant');
  });

  it('a fault: verdict non-conformant, exit 1 fails the step, unless ok-exit-codes allows it', () => {
    const env = { FSAPI_SANDBOX_FAULTS: 'accounts-list-empty' };
    const failed = runAction({ groups: 'accounts', seed: '11' }, env);
    expect(failed.code).toBe(1);
    expect(failed.outputs).toMatchObject({ verdict: 'non-conformant', 'exit-code': '1' });
    expect(failed.log).toMatch(/::error::fsapi-conformance exited 1: non-conformant/);
    expect(failed.log).toMatch(/^::error title=FSAPI-ACC-001 \(MUST\) failed::/m);
    expect(failed.outputs['artifact-name']).toBe('fsapi-conformance-reports');
    expect(failed.summary).toContain('FSAPI-ACC-001');
    const allowed = runAction({ groups: 'accounts', seed: '11', 'ok-exit-codes': '0 1' }, env);
    expect(allowed.code).toBe(0);
    expect(allowed.outputs['verdict']).toBe('non-conformant');
  });

  it('a bad input or a configuration error: exit 2, verdict none, the job summary says there is no report', () => {
    const bad = runAction({ strict: 'yes' });
    expect(bad.code).toBe(2);
    expect(bad.outputs).toEqual({ verdict: 'none', 'exit-code': '2', 'report-dir': '', 'artifact-name': '' });
    expect(bad.log).toContain('::error::fsapi-conformance action: input strict must be true or false');
    const unset = runAction({}, { FSAPI_BASE_URL: 'https://127.0.0.1:9/v1/' });
    expect(unset.code).toBe(2);
    expect(unset.outputs).toEqual({ verdict: 'none', 'exit-code': '2', 'report-dir': '', 'artifact-name': 'fsapi-conformance-reports' });
    expect(unset.summary).toMatch(/no report[\s\S]*exited 2 \(configuration/);
    expect(existsSync(join(unset.workspace, 'reports', 'latest'))).toBe(false);
  });

  // Shards, then merge-from: test/ci-templates.test.ts runs the sharded templates' jobs through this action (the
  // shards, then the merge whose verdict gates), so it is not run a second time here.

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
