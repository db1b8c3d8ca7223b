/**
 * Each CI template of examples/, copied as it is with exactly the secrets it names, passes against a conforming
 * target: a sandbox started apart with `fsapi-conformance sandbox --env`, whose printed lines are the secrets. The
 * GitHub workflows run job by job as a runner would: their own `run:` steps through bash, the action through its own
 * scripts (test/helpers/action.ts), artifacts handed from job to job as upload/download-artifact do. The GitLab jobs
 * run their scripts through bash, `npx --no fsapi-conformance` being this checkout's CLI. Every run: exit 0, and
 * the job summary (or log) says what the template's capabilities waived and why.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildIsCurrent } from '../bin/build-stamp.js';
import type { RunReport } from '../src/results/model.js';
import { ACTION, runAction, type ActionRun, type ActionStep } from './helpers/action.js';
import { busy } from './helpers/busy.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'fsapi-conformance.js');
/** Only to keep the test short: the webhook delivery the templates waive, and operations on which FSAPI-AUTH-006 (the live key) is checked. */
const GROUPS = 'webhooks,transport';
const WAIVED = /1 MUST requirement waived \(FSAPI-WH-003: the target cannot deliver webhooks to a[^)]*runner \(no tunnel\)\)/;

let sandbox: ChildProcessWithoutNullStreams | undefined;
/** What `sandbox --env` printed: the .env a user puts in FSAPI_DOTENV, or one secret a line. */
let dotenv = '';
let printed: Record<string, string> = {};

beforeAll(async () => {
  expect(buildIsCurrent(ROOT), 'build first (npm run build)').toBe(true);
  sandbox = spawn(process.execPath, [BIN, 'sandbox', '--env'], { env: { PATH: process.env['PATH'] ?? '' } });
  dotenv = await new Promise<string>((resolve, reject) => {
    let out = '';
    sandbox!.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (/^# FSAPI_WEBHOOK_LISTEN=.*\n/m.test(out)) resolve(out);
    });
    sandbox!.once('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
  });
  printed = Object.fromEntries([...dotenv.matchAll(/^(FSAPI_[A-Z_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
  expect(printed['FSAPI_BASE_URL']).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1\/$/);
});
afterAll(() => void sandbox?.kill('SIGTERM'));

/** The repository secrets a user sets from what `sandbox --env` printed: the CA as its PEM text, as a runner needs it. */
function secrets(): Record<string, string> {
  return { ...printed, FSAPI_DOTENV: dotenv, FSAPI_CA_PEM: readFileSync(printed['FSAPI_CA_FILE']!, 'utf8') };
}

interface Job {
  needs?: string | string[];
  env?: Record<string, string>;
  strategy?: { matrix?: Record<string, (string | number)[]> };
  steps: ActionStep[];
}
interface Workflow {
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

/** A workflow's `${{ ... }}`: secrets, matrix values, github.* and step outputs, and the conditions of `if:`. */
function evaluate(expression: string, ctx: { secrets: Record<string, string>; matrix: Record<string, string>; steps: Record<string, Record<string, string>> }): string | boolean {
  const refs = /\b(secrets|matrix|github)\.([\w-]+)|\bsteps\.([\w-]+)\.outputs\.([\w-]+)|\b(cancelled|failure|always|success)\(\)/g;
  // The templates' own expressions: once the references are taken out, only literals and operators remain.
  expect(expression.replace(refs, '').replace(/'[^']*'/g, ''), expression).toMatch(/^[\s!=&|()]*$/);
  const js = expression.replace(refs, (_m, kind?: string, name?: string, step?: string, output?: string, fn?: string) => {
    if (fn) return fn === 'cancelled' || fn === 'failure' ? 'false' : 'true';
    if (step) return JSON.stringify(ctx.steps[step]?.[output!] ?? '');
    if (kind === 'github') return JSON.stringify(name === 'run_number' ? '7' : `github-${name}`);
    return JSON.stringify((kind === 'secrets' ? ctx.secrets : ctx.matrix)[name!] ?? '');
  });
  return new Function(`return (${js});`)() as string | boolean;
}
const expand = (text: string, ctx: Parameters<typeof evaluate>[1]) => text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_m, e: string) => String(evaluate(e, ctx)));

/** A PATH with a `gh` that finds no earlier run (the regression template's first run: no baseline yet). */
function pathWithFakeGh(): string {
  const bin = mkdtempSync(join(tmpdir(), 'fsapi-fake-gh-'));
  writeFileSync(join(bin, 'gh'), '#!/bin/sh\n[ "$1 $2" = "run list" ] && exit 0\nexit 1\n');
  chmodSync(join(bin, 'gh'), 0o755);
  return `${bin}:${process.env['PATH'] ?? ''}`;
}

interface JobRun {
  job: string;
  code: number;
  actions: ActionRun[];
  log: string;
}

/** Runs a GitHub workflow's jobs in order of `needs`, each matrix combination, handing artifacts on. */
function runWorkflow(file: string): JobRun[] {
  const wf = parse(readFileSync(join(ROOT, file), 'utf8')) as Workflow;
  const artifacts = new Map<string, string>();
  const runs: JobRun[] = [];
  const done = new Set<string>();
  const path = pathWithFakeGh();
  while (done.size < Object.keys(wf.jobs).length) {
    const [name, job] = Object.entries(wf.jobs).find(([n, j]) => !done.has(n) && [j.needs ?? []].flat().every((x) => done.has(x)))!;
    const matrix = job.strategy?.matrix ?? {};
    const combos = Object.keys(matrix).length ? Object.entries(matrix).flatMap(([k, vs]) => vs.map((v) => ({ [k]: String(v) }))) : [{}];
    for (const m of combos) {
      const workspace = mkdtempSync(join(tmpdir(), 'fsapi-workflow-'));
      const steps: Record<string, Record<string, string>> = {};
      const ctx = { secrets: secrets(), matrix: m, steps };
      const jobEnv = Object.fromEntries(Object.entries({ ...wf.env, ...job.env }).map(([k, v]) => [k, expand(v, ctx)]));
      const run: JobRun = { job: `${name} ${JSON.stringify(m)}`, code: 0, actions: [], log: '' };
      for (const step of job.steps) {
        if (step.if !== undefined && !evaluate(step.if.replace(/^\$\{\{\s*|\s*\}\}$/g, ''), ctx)) continue;
        const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v, ctx)]));
        const inputs = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, expand(String(v), ctx)]));
        if (step.uses?.startsWith('OWNER/fsapi-conformance@')) {
          const a = runAction(inputs, { ...jobEnv, ...stepEnv, FSAPI_GROUPS: GROUPS }, workspace);
          run.actions.push(a);
          run.log += a.log;
          if (step.id) steps[step.id] = a.outputs;
          if (a.outputs['report-dir'] && inputs['upload'] !== 'false') artifacts.set(a.outputs['artifact-name']!, join(workspace, a.outputs['report-dir']));
          if (a.code !== 0) run.code = a.code;
        } else if (step.uses?.startsWith('actions/download-artifact@')) {
          // As download-artifact does with a pattern: each artifact in a folder of its name.
          const pattern = new RegExp(`^${(inputs['pattern'] ?? '').replaceAll('*', '.*')}$`);
          for (const [n, dir] of artifacts) if (pattern.test(n)) cpSync(dir, join(workspace, inputs['path']!, n), { recursive: true });
        } else if (step.run) {
          const r = spawnSync('bash', ['-e', '-c', expand(step.run, ctx)], {
            cwd: workspace,
            encoding: 'utf8',
            env: { PATH: path, HOME: process.env['HOME'] ?? '', RUNNER_TEMP: workspace, GITHUB_WORKFLOW_REF: 'o/r/.github/workflows/x.yml@refs/heads/main', GITHUB_REF_NAME: 'main', GITHUB_OUTPUT: join(workspace, '.out'), ...jobEnv, ...stepEnv },
          });
          run.log += r.stdout + r.stderr;
          if (step.id) steps[step.id] = Object.fromEntries((existsSync(join(workspace, '.out')) ? readFileSync(join(workspace, '.out'), 'utf8') : '').split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
          if (r.status !== 0) run.code = r.status ?? 1;
        }
        if (run.code !== 0) break;
      }
      runs.push(run);
    }
    done.add(name);
  }
  return runs;
}

const reportOf = (a: ActionRun) => JSON.parse(readFileSync(join(a.workspace, a.outputs['report-dir']!, 'conformance.json'), 'utf8')) as RunReport;

describe('the CI templates, copied with the secrets they name, against a sandbox started apart', { timeout: busy(600_000) }, () => {
  it.each(['examples/github/fsapi-minimal.yml', 'examples/github/fsapi-conformance.yml', 'examples/github/fsapi-regression.yml'])('%s: every job exits 0, and the job summary names the waiver and its reason', (file) => {
    const runs = runWorkflow(file);
    for (const r of runs) expect(r.code, `${r.job}\n${r.log}`).toBe(0);
    const actions = runs.flatMap((r) => r.actions);
    expect(actions.length).toBeGreaterThan(0);
    // The last action of the workflow gives the gate's verdict (the merged report, for the sharded one).
    const last = actions.at(-1)!;
    expect(last.outputs['verdict'], last.log).toBe('conformant');
    expect(last.summary).toMatch(WAIVED);
    const report = reportOf(last);
    expect(report.target.embedded).toBe(false);
    expect(report.coverage!.must.not_verified).toBe(0);
    expect(report.coverage!.must.waived).toBe(1);
    // The secrets the template names are the ones its MUST requirements need: the live key's is verified.
    expect(report.coverage!.requirements.find((q) => q.id === 'FSAPI-AUTH-006')?.status).toBe('verified');
    // The keys are printed nowhere but in the masks.
    for (const a of actions) expect(a.log.replace(/::add-mask::.*\n/g, '') + a.summary).not.toContain(printed['FSAPI_API_KEY']);
  });

  it('they pass without loosening the gate: ok-exit-codes stays 0 by default, and only the regression template widens it (judging 6 itself)', () => {
    expect(ACTION.inputs['ok-exit-codes']!.default).toBe('0');
    const widened = ['examples/github/fsapi-minimal.yml', 'examples/github/fsapi-conformance.yml', 'examples/github/fsapi-regression.yml'].filter((f) => /ok-exit-codes:/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(widened).toEqual(['examples/github/fsapi-regression.yml']);
  });

  it('the minimal workflow: a CA path in FSAPI_DOTENV that is not on the runner is refused, naming FSAPI_CA_PEM', () => {
    const onRunner = dotenv.replace(/^FSAPI_CA_FILE=.*$/m, 'FSAPI_CA_FILE=/home/someone/fsapi-sandbox/sandbox-ca.pem');
    const r = runAction({ groups: 'transport' }, { FSAPI_DOTENV: onRunner, FSAPI_CA_PEM: '' });
    expect(r.code).toBe(2);
    expect(r.log).toMatch(/FSAPI_CA_FILE in FSAPI_DOTENV names \/home\/someone\/fsapi-sandbox\/sandbox-ca\.pem, which is not on this runner.*FSAPI_CA_PEM/);
  });

  it('examples/gitlab/fsapi-conformance.gitlab-ci.yml: the shards, their merge and the regression job exit 0; the log names the waiver', () => {
    const ci = parse(readFileSync(join(ROOT, 'examples', 'gitlab', 'fsapi-conformance.gitlab-ci.yml'), 'utf8')) as Record<string, { extends?: string; parallel?: number; before_script?: string[]; script?: string[]; after_script?: string[] }> & { variables: Record<string, string> };
    // `npm ci` and `npx --no fsapi-conformance` of the project: this checkout's CLI.
    const bin = mkdtempSync(join(tmpdir(), 'fsapi-gitlab-bin-'));
    writeFileSync(join(bin, 'npm'), '#!/bin/sh\necho "npm $*: installed already"\n');
    writeFileSync(join(bin, 'npx'), `#!/bin/sh\n[ "$1" = --no ] && [ "$2" = fsapi-conformance ] || exit 127\nshift 2\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    for (const f of ['npm', 'npx']) chmodSync(join(bin, f), 0o755);
    const workspace = mkdtempSync(join(tmpdir(), 'fsapi-gitlab-'));
    // A CI/CD variable of type File: GitLab hands the job the path of a file holding it.
    const caFile = join(mkdtempSync(join(tmpdir(), 'fsapi-gitlab-var-')), 'FSAPI_CA_FILE');
    writeFileSync(caFile, readFileSync(printed['FSAPI_CA_FILE']!, 'utf8'));
    const variables = { ...printed, FSAPI_CA_FILE: caFile };
    const runJob = (name: string, extra: Record<string, string> = {}) => {
      const job = ci[name]!;
      const base = job.extends ? ci[job.extends]! : {};
      const script = [...(job.before_script ?? base.before_script ?? []), ...(job.script ?? [])].join('\n');
      const env = { PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: process.env['HOME'] ?? '', CI_PIPELINE_IID: '7', ...ci.variables, ...variables, FSAPI_GROUPS: GROUPS, ...extra };
      const r = spawnSync('bash', ['-e', '-c', script], { cwd: workspace, encoding: 'utf8', env });
      const after = job.after_script ? spawnSync('bash', ['-c', job.after_script.join('\n')], { cwd: workspace, encoding: 'utf8', env }) : undefined;
      return { code: r.status, log: r.stdout + r.stderr + (after ? after.stdout + after.stderr : '') };
    };
    const total = ci['fsapi-conformance']!.parallel!;
    for (let i = 1; i <= total; i++) {
      const shard = runJob('fsapi-conformance', { CI_NODE_INDEX: String(i), CI_NODE_TOTAL: String(total), CI_PIPELINE_SOURCE: 'push' });
      expect(shard.code, shard.log).toBe(0);
    }
    const merged = runJob('fsapi-conformance-merge', { CI_PIPELINE_SOURCE: 'push' });
    expect(merged.code, merged.log).toBe(0);
    expect(merged.log).toMatch(WAIVED);
    const report = JSON.parse(readFileSync(join(workspace, 'reports', 'merged', 'conformance.json'), 'utf8')) as RunReport;
    expect(report.verdict).toBe('conformant');
    expect(report.coverage!.must.waived).toBe(1);
    const nightly = runJob('fsapi-regression', { CI_PIPELINE_SOURCE: 'schedule' });
    expect(nightly.code, nightly.log).toBe(0);
    expect(readFileSync(join(workspace, 'reports', 'latest', 'summary.md'), 'utf8')).toMatch(WAIVED);
    expect(existsSync(join(workspace, 'baseline', 'conformance.json'))).toBe(true);
  });
});
