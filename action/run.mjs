// @ts-check
/**
 * The action's main step: `fsapi-conformance run` (or `merge`, with merge-from) with the action's inputs as
 * flags, then the step's outputs (verdict, exit-code, report-dir), summary.md appended to the job summary, and
 * the step failed unless the exit code is one of ok-exit-codes. Inputs arrive as INPUT_* environment variables
 * (action.yml), secrets as the FSAPI_* variables of the job: neither is ever printed.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'bin', 'fsapi-conformance.js');
/** The usage exit code: what a bad input is, as for the command itself. */
const USAGE = 2;

/**
 * An input as action.yml passes it (INPUT_REPORT_DIR for report-dir), trimmed; '' when not set.
 * @param {string} name
 * @param {NodeJS.ProcessEnv} env
 */
function input(name, env) {
  return (env[`INPUT_${name.toUpperCase().replaceAll('-', '_')}`] ?? '').trim();
}

class InputError extends Error {}

/**
 * 'true' or 'false' (or unset, false), as GitHub writes booleans.
 * @param {string} name
 * @param {NodeJS.ProcessEnv} env
 */
function flagInput(name, env) {
  const v = input(name, env).toLowerCase();
  if (v === '' || v === 'false') return false;
  if (v === 'true') return true;
  throw new InputError(`input ${name} must be true or false, not "${input(name, env)}"`);
}

/**
 * The shard reports under a folder: every directory holding a conformance.json, except the `latest` links.
 * @param {string} dir
 */
function shardReports(dir) {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InputError(`merge-from: ${dir} is not a folder`);
  /** @type {string[]} */
  const found = [];
  /** @param {string} d */
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === 'latest') continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'conformance.json') found.push(d);
    }
  };
  walk(dir);
  if (!found.length) throw new InputError(`merge-from: no conformance.json under ${dir} (did the shard jobs upload their reports?)`);
  return found.sort();
}

/**
 * The command line and the extra environment for the inputs given.
 * @param {NodeJS.ProcessEnv} env
 * @returns {{ args: string[]; extraEnv: Record<string, string>; reportDir: string }}
 */
export function commandFor(env) {
  const reportDir = input('report-dir', env) || 'reports';
  /** @type {Record<string, string>} */
  const extraEnv = {};
  // The binding file is read from FSAPI_BINDING, and set only when given (an empty one would be an error).
  if (input('binding', env)) extraEnv['FSAPI_BINDING'] = input('binding', env);
  const mergeFrom = input('merge-from', env);
  if (mergeFrom) {
    const runOnly = ['spec', 'capabilities', 'groups', 'shard', 'seed', 'binding', 'retries'].filter((n) => input(n, env));
    if (runOnly.length || flagInput('strict', env) || flagInput('allow-live-writes', env)) {
      throw new InputError(`with merge-from the shards' own settings apply: leave out ${[...runOnly, ...(flagInput('strict', env) ? ['strict'] : []), ...(flagInput('allow-live-writes', env) ? ['allow-live-writes'] : [])].join(', ')}`);
    }
    const args = ['merge', ...shardReports(mergeFrom), '--out', join(reportDir, 'merged')];
    if (flagInput('html', env)) args.push('--html');
    if (input('baseline', env)) args.push('--baseline', input('baseline', env));
    return { args, extraEnv, reportDir };
  }
  const args = ['run', '--report-dir', reportDir];
  for (const name of ['spec', 'capabilities', 'groups', 'shard', 'seed', 'baseline', 'retries']) if (input(name, env)) args.push(`--${name}`, input(name, env));
  for (const name of ['strict', 'html', 'allow-live-writes']) if (flagInput(name, env)) args.push(`--${name}`);
  return { args, extraEnv, reportDir };
}

/**
 * Exit codes that pass the step: '0 1', '0,1'.
 * @param {NodeJS.ProcessEnv} env
 */
export function okCodes(env) {
  const text = input('ok-exit-codes', env) || '0';
  const codes = text.split(/[\s,]+/).filter(Boolean);
  if (!codes.every((c) => /^\d+$/.test(c))) throw new InputError(`ok-exit-codes must be exit codes separated by spaces or commas, not "${text}"`);
  return new Set(codes.map(Number));
}

/**
 * What an exit code means, from the command's own documentation (src/results/verdict.ts).
 * @param {number} code
 */
async function meaningOf(code) {
  try {
    const { EXIT_CODE_HELP } = await import(pathToFileURL(join(ROOT, 'dist', 'src', 'results', 'verdict.js')).href);
    return /** @type {{ code: number; meaning: string }[]} */ (EXIT_CODE_HELP).find((x) => x.code === code)?.meaning ?? 'not a documented exit code';
  } catch {
    return 'see the log above';
  }
}

/**
 * Appends `name=value` lines to the file GitHub reads a step's outputs from.
 * @param {NodeJS.ProcessEnv} env
 * @param {Record<string, string | number>} outputs
 */
function setOutputs(env, outputs) {
  const file = env['GITHUB_OUTPUT'];
  const text = Object.entries(outputs).map(([k, v]) => `${k}=${v}\n`).join('');
  if (file) appendFileSync(file, text);
  else process.stdout.write(text);
}

/**
 * Runs the step; returns the exit code the step should end with.
 * @param {NodeJS.ProcessEnv} env
 */
export async function main(env = process.env) {
  let command;
  let ok;
  try {
    command = commandFor(env);
    ok = okCodes(env);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    console.log(`::error::fsapi-conformance action: ${e.message}`);
    setOutputs(env, { verdict: 'none', 'exit-code': USAGE, 'report-dir': '' });
    return USAGE;
  }
  const { args, extraEnv, reportDir } = command;
  const started = Date.now();
  console.log(`fsapi-conformance ${args.join(' ')}`);
  const r = spawnSync(process.execPath, [CLI, ...args], { stdio: 'inherit', env: { ...env, ...extraEnv } });
  // Killed by a signal: as a shell reports it.
  const code = r.status ?? 128 + (r.signal === 'SIGKILL' ? 9 : 15);

  // This run's report, if it wrote one: latest, newer than the start (an older one belongs to an earlier run).
  const latest = join(reportDir, 'latest');
  const reportFile = join(latest, 'conformance.json');
  const fresh = existsSync(reportFile) && statSync(reportFile).mtimeMs >= started - 1000;
  const verdict = fresh ? String(JSON.parse(readFileSync(reportFile, 'utf8')).verdict) : 'none';
  const dir = fresh ? relative(process.cwd(), realpathSync(latest)) || '.' : '';
  setOutputs(env, { verdict, 'exit-code': code, 'report-dir': dir });

  const summaryFile = env['GITHUB_STEP_SUMMARY'];
  const summary = join(latest, 'summary.md');
  if (summaryFile) {
    if (fresh && existsSync(summary)) appendFileSync(summaryFile, `${readFileSync(summary, 'utf8').trimEnd()}\n`);
    else appendFileSync(summaryFile, `### fsapi-conformance: no report\n\nThe command exited ${code} (${await meaningOf(code)}) before writing a report; its log says what to fix.\n`);
  }
  if (ok.has(code)) return 0;
  console.log(`::error::fsapi-conformance exited ${code}: ${await meaningOf(code)}`);
  return code;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) process.exitCode = await main();
