/**
 * The conventions a new user expects of a command-line tool: results on stdout and diagnostics on stderr (so
 * `run > file` keeps the verdict), --version, -q, clear words for a malformed number, a vendor document refused
 * where no target can serve it, and messages that name the command the user actually has.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { TestCase, TestModule } from 'vitest/node';
import { invocation } from '../src/invocation.js';
import { loadRunConfig } from '../src/config/run-config.js';
import { isUsageError } from '../src/errors.js';
import { fromRoot, SUITE_VERSION } from '../src/paths.js';
import type { CheckResult } from '../src/results/model.js';
import { ResultCollector } from '../src/runner/collector.js';
import { runCli } from './helpers/cli.js';
import { busy } from './helpers/busy.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'fsapi-conventions-'));

describe('results on stdout, diagnostics on stderr', { timeout: busy(120_000) }, () => {
  it('a run refused before it begins (an unknown fault, a target that does not answer) prints nothing on stdout', async () => {
    const fault = await runCli(['run', '--sandbox-fault', 'no-such-fault'], {});
    expect(fault.code).toBe(2);
    expect(fault.stderr).toMatch(/unknown fault "no-such-fault"/);
    expect(fault.stdout).toBe('');
    const dead = await runCli(['run'], { FSAPI_BASE_URL: 'https://127.0.0.1:9/v1/', FSAPI_API_KEY: 'k', FSAPI_TENANT_ID: 't' });
    expect(dead.code).toBe(2);
    expect(dead.stderr).toMatch(/^error: preflight: .*ECONNREFUSED/m);
    expect(dead.stdout).toBe('');
  });

  it('the target, every suite line and the verdict reach stdout (run > file); --log-file holds both streams; -q is --quiet', async () => {
    const dir = tmp();
    const log = join(dir, 'run.log');
    const r = await runCli(['run', '-q', '--groups', 'transport', '--seed', '3', '--report-dir', join(dir, 'r'), '--log-file', log], { FSAPI_QUIET: '' }, dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^fsapi-conformance ${SUITE_VERSION.replace(/\./g, '\\.')}: embedded reference sandbox`, 'm'));
    expect(r.stdout).toMatch(/^ {2}ok +transport +\d+ checks/m);
    expect(r.stdout).toMatch(/^verdict: CONFORMANT$/m);
    expect(r.stdout).toMatch(/^reports: /m);
    expect(r.stderr).not.toMatch(/verdict|transport +\d+ checks/);
    // One suite: "1 suite", not "1 suites"; and no progress line (-q). No transport check waits for an event, so
    // there is no waiting file: one worker, one suite line.
    expect(r.stderr).toMatch(/^running 1 suite \(1 worker, \d+ checks in flight per suite\)$/m);
    expect(r.stdout.match(/^ {2}(ok|x|!) +\S+ +\d+ checks?/gm)?.map((l) => l.trim().split(/ +/)[1]).sort()).toEqual(['transport']);
    expect(r.stderr).not.toMatch(/^progress /m);
    const logged = readFileSync(log, 'utf8');
    expect(logged).toContain('verdict: CONFORMANT');
    expect(logged).toContain('running 1 suite (1 worker, ');
  });
});

describe('CLI conventions', { timeout: busy(60_000) }, () => {
  it('--version (and -V, and version: npx takes --version for its own) print the version a report records, exit 0', async () => {
    const [long, short, word] = await Promise.all([runCli(['--version'], {}), runCli(['-V'], {}), runCli(['version'], {})]);
    expect(long.code).toBe(0);
    expect(long.stdout).toBe(`fsapi-conformance ${SUITE_VERSION}\n`);
    expect(short.stdout).toBe(long.stdout);
    expect(word.stdout).toBe(long.stdout);
  });

  it('a negative or malformed number names the setting and its range, never "ambiguous"', async () => {
    const [neg, word] = await Promise.all([runCli(['run', '--rate-limit', '-1'], {}), runCli(['run', '--concurrency', 'lots'], {})]);
    expect(neg.code).toBe(2);
    expect(neg.stderr).toMatch(/--rate-limit must be a whole number from 0 to \d+, not "-1"/);
    expect(neg.stderr).not.toMatch(/ambiguous/);
    expect(word.code).toBe(2);
    expect(word.stderr).toMatch(/--concurrency must be a whole number/);
  });

  it('bind reads the document before it refuses an existing --out: a bad document is the error shown', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'vendor.yaml'), 'just: text\n');
    writeFileSync(join(dir, 'binding.yaml'), '# an earlier binding\n');
    const r = await runCli(['bind', '--spec', 'vendor.yaml'], {}, dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not an OpenAPI document/);
    expect(r.stderr).not.toMatch(/binding\.yaml exists/);
  });

  it('a missing capabilities file is named once ("capabilities file", not "capabilities file file")', async () => {
    const r = await runCli(['run', '--capabilities', 'nope.yaml'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/capabilities file/);
    expect(r.stderr).not.toMatch(/file file/);
  });
});

describe('a vendor document needs a target that serves it', () => {
  const vendor = join(tmp(), 'vendor.yaml');
  copyFileSync(fromRoot('test', 'fixtures', 'values', 'vendor.yaml'), vendor);
  const refused = (flags: Record<string, string | boolean>, env: NodeJS.ProcessEnv = {}) => {
    try {
      loadRunConfig(flags, { env, cwd: tmp() });
      return undefined;
    } catch (e) {
      if (!isUsageError(e)) throw e;
      return e.describe();
    }
  };

  it('--spec without a base URL is a configuration error naming both fixes', () => {
    const why = refused({ spec: vendor });
    expect(why).toMatch(/no base URL is set/);
    expect(why).toMatch(/FSAPI_BASE_URL/);
    expect(why).toMatch(/--embedded-sandbox/);
  });

  it('is accepted with a base URL, with --embedded-sandbox, or when the document is the reference profile (or a copy of it)', () => {
    expect(refused({ spec: vendor }, { FSAPI_BASE_URL: 'https://api.example.com/v1/', FSAPI_API_KEY: 'sk_test_fake', FSAPI_TENANT_ID: 't' })).toBeUndefined();
    expect(refused({ spec: vendor, 'embedded-sandbox': true })).toBeUndefined();
    expect(refused({ spec: fromRoot('spec', 'openapi.yaml') })).toBeUndefined();
    const copy = join(tmp(), 'openapi.yaml');
    copyFileSync(fromRoot('spec', 'openapi.yaml'), copy);
    expect(refused({ spec: copy })).toBeUndefined();
  });

  it('the CLI exits 2 with that message', async () => {
    const r = await runCli(['run', '--spec', vendor], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: .*no base URL is set/m);
  });
});

describe('messages name the command the user has', () => {
  it('from an install in a project: npx --no; global: the bare name; the checkout: its npm script or node bin/', () => {
    expect(invocation('run', {}, '/p/node_modules/.bin/fsapi-conformance', '/p', true)).toBe('npx --no fsapi-conformance run');
    expect(invocation('run', {}, '/p/node_modules/fsapi-conformance/bin/fsapi-conformance.js', '/p', true)).toBe('npx --no fsapi-conformance run');
    expect(invocation('sandbox', {}, '/usr/local/bin/fsapi-conformance', '/p', true)).toBe('fsapi-conformance sandbox');
    expect(invocation('run', { npm_lifecycle_event: 'conformance' }, '/repo/bin/fsapi-conformance.js', '/repo', false)).toBe('npm run conformance --');
    expect(invocation('sandbox', { npm_lifecycle_event: 'conformance' }, '/repo/bin/fsapi-conformance.js', '/repo', false)).toBe('node bin/fsapi-conformance.js sandbox');
    expect(invocation('run', {}, '/repo/bin/fsapi-conformance.js', '/repo', false)).toBe('node bin/fsapi-conformance.js run');
    // A wrapper (the GitHub Action) names the command its reader would run.
    expect(invocation('run', { FSAPI_INVOKED_AS: 'npx --no fsapi-conformance' }, '/runner/_actions/o/r/sha/bin/fsapi-conformance.js', '/w', false)).toBe('npx --no fsapi-conformance run');
  });

  it('--print-env-example names the command that ran it; its default (an install) is npx --no, never npm run or node bin/', async () => {
    const r = await runCli(['run', '--print-env-example'], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^# Regenerate: node \S*bin\/fsapi-conformance\.js run --print-env-example/m);
    const { renderEnvExample } = await import('../src/config/env-example.js');
    expect(renderEnvExample()).toContain('# Regenerate: npx --no fsapi-conformance run --print-env-example > .env.example');
    expect(renderEnvExample()).not.toMatch(/npm run|node bin/);
  });
});

describe('the line of an interrupted suite', () => {
  const result = (status: CheckResult['status']) => ({ status }) as CheckResult;
  const module = (id: string, tests: number) =>
    ({
      moduleId: `/x/suites/${id}.conformance.js`,
      errors: () => [],
      children: { allTests: () => Array.from({ length: tests }, (_, i) => ({ id: `${id}-${i}` })).values() },
      diagnostic: () => ({ duration: 1200 }),
    }) as unknown as TestModule;
  const testCase = (m: TestModule, i: number, status: CheckResult['status']) =>
    ({ id: `t${i}`, module: m, meta: () => ({ fsapi: result(status) }), result: () => ({ state: 'passed' }) }) as unknown as TestCase;

  it('says "interrupted" and how many checks did not run, never "ok"', () => {
    const lines: string[] = [];
    const c = new ResultCollector((l) => lines.push(l));
    const m = module('customers', 5);
    c.onTestCaseResult(testCase(m, 1, 'passed'));
    c.onTestCaseResult(testCase(m, 2, 'passed'));
    c.interrupted = true;
    c.onTestModuleEnd(m);
    expect(lines[0]).toMatch(/^ {2}- +customers +2 checks {2}interrupted: 2 passed, 3 not run/);
    expect(lines[0]).not.toMatch(/^ {2}ok/);
  });

  it('a suite that finished every check before the interrupt is still "ok"; one check is "1 check"', () => {
    const lines: string[] = [];
    const c = new ResultCollector((l) => lines.push(l));
    const m = module('fx', 1);
    c.onTestCaseResult(testCase(m, 1, 'passed'));
    c.interrupted = true;
    c.onTestModuleEnd(m);
    expect(lines[0]).toMatch(/^ {2}ok +fx +1 check +1 passed/);
  });
});

describe('an option whose value may be left out (--explore [N])', () => {
  it('given alone, or followed by another option, takes its default; followed by a value, takes that value', async () => {
    const { parseCommandArgs, renderHelp, withBareValues } = await import('../src/cli/command.js');
    const { runCommand } = await import('../src/cli/commands/run.js');
    const parsed = (...argv: string[]) => parseCommandArgs(runCommand, argv).values;
    expect(parsed('--explore')).toMatchObject({ explore: '24' });
    expect(parsed('--explore', '--quiet')).toMatchObject({ explore: '24', quiet: true });
    expect(parsed('--quiet', '--explore', '--groups', 'customers')).toMatchObject({ explore: '24', quiet: true, groups: 'customers' });
    expect(parsed('--explore', '8', '--quiet')).toMatchObject({ explore: '8', quiet: true });
    expect(parsed('--explore=0')).toMatchObject({ explore: '0' });
    // A negative number is still its value, for the setting's own check to refuse by its range.
    expect(parsed('--explore', '-1')).toMatchObject({ explore: '-1' });
    // Only an option that says so: --seed alone is still a missing value.
    expect(() => parsed('--seed')).toThrow(/--seed/);
    expect(withBareValues(['--explore-total', '--explore'], runCommand.options)).toEqual(['--explore-total', '--explore=24']);
    expect(renderHelp(runCommand)).toMatch(/^ {2}--explore \[N\] +The exploration phase/m);
    // The whole way to the run's settings.
    expect(loadRunConfig({ explore: parsed('--explore', '--quiet')['explore'] as string }, { env: {}, cwd: tmp() }).explore).toBe(24);
  });
});

describe("V8's tier-up for each command (bin/tiering.js)", () => {
  // A small function called 20,000 times: optimised by V8's default, still interpreted with the CLI's late tier-up.
  // Synchronous recompilation, so the answer depends on the flags alone, not on when a background compile ends.
  const probe = (command: string) => {
    const code = [
      `const { tierUpLater } = await import(${JSON.stringify(pathToFileURL(fromRoot('bin', 'tiering.js')).href)});`,
      `tierUpLater(${JSON.stringify(command)});`,
      'function f(a) { let s = 0; for (let i = 0; i < 8; i++) s += (a * i) % 7; return s; }',
      'let t = 0; for (let k = 0; k < 20000; k++) t += f(k);',
      // V8's status bit 16: the function runs optimised code.
      'console.log((%GetOptimizationStatus(f) & 16) !== 0);',
    ].join('\n');
    const r = spawnSync(process.execPath, ['--allow-natives-syntax', '--no-concurrent-recompilation', '--input-type=module', '-e', code], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    return r.stdout.trim();
  };

  it('a run (and every command but the sandbox) optimises later; the sandbox, a server, keeps V8\'s default', () => {
    expect(probe('run')).toBe('false');
    expect(probe('verify')).toBe('false');
    expect(probe('sandbox')).toBe('true');
  });
});
