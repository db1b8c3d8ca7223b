/**
 * The GitHub Action (action.yml) run as a runner runs it: each step's script through bash, with the inputs
 * expanded into its env as GitHub does, GITHUB_ACTION_PATH at this repository and GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY at temporary files. Steps that use other actions (setup-node, cache, upload-artifact) run on
 * GitHub only: test/action.test.ts tests their wiring.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { parse } from 'yaml';
import { busy } from './busy.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ActionStep {
  id?: string;
  name: string;
  if?: string;
  shell?: string;
  run?: string;
  uses?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}

export interface ActionYaml {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}
export const ACTION = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionYaml;

export interface ActionRun {
  /** The exit code of the first step that failed, else 0: what fails the job. */
  code: number;
  outputs: Record<string, string>;
  summary: string;
  log: string;
  workspace: string;
}

/** Runs the action's steps in a fresh workspace with `inputs` (`with:`) and `env` (the job's env). */
export function runAction(inputs: Record<string, string>, env: Record<string, string> = {}, workspace = mkdtempSync(join(tmpdir(), 'fsapi-action-'))): ActionRun {
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
    // Steps that use other actions (setup-node, cache, upload-artifact) run on GitHub only: their wiring is tested below.
    if (!step.run) continue;
    const outputFile = join(workspace, `.output-${step.id ?? 'step'}`);
    writeFileSync(outputFile, '');
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v, stepOutputs)]));
    const r = spawnSync(step.shell!, ['-e', '-c', step.run], {
      cwd: workspace,
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', GITHUB_ACTION_PATH: ROOT, GITHUB_WORKSPACE: workspace, RUNNER_TEMP: mkdtempSync(join(tmpdir(), 'fsapi-runner-temp-')), GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: summaryFile, ...env, ...stepEnv },
      timeout: busy(240_000),
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

