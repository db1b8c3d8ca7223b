// @ts-check
/**
 * The action's main step: `fsapi-conformance run` (or `merge`, with merge-from) with the action's inputs as
 * flags, then the step's outputs (verdict, exit-code, report-dir), summary.md appended to the job summary, and
 * the step failed unless the exit code is one of ok-exit-codes. Inputs arrive as INPUT_* environment variables
 * (action.yml), secrets as the FSAPI_* variables of the job: neither is ever printed.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
  const extraEnv = targetSettings(env);
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
    return { args: [...args, ...passedThrough(env)], extraEnv, reportDir };
  }
  const args = ['run', '--report-dir', reportDir];
  const capabilities = capabilitiesFile(env);
  if (capabilities) args.push('--capabilities', capabilities);
  for (const name of ['spec', 'groups', 'shard', 'seed', 'baseline', 'retries']) if (input(name, env)) args.push(`--${name}`, input(name, env));
  for (const name of ['strict', 'html', 'allow-live-writes']) if (flagInput(name, env)) args.push(`--${name}`);
  return { args: [...args, ...passedThrough(env)], extraEnv, reportDir };
}

/**
 * A folder of the runner's own for files the action writes (RUNNER_TEMP on GitHub).
 * @param {NodeJS.ProcessEnv} env
 */
function scratchDir(env) {
  return mkdtempSync(join(env['RUNNER_TEMP'] || tmpdir(), 'fsapi-action-'));
}

/**
 * The capabilities input: a file of the workspace, or the file's text itself (a value of several lines, as a
 * workflow writes `capabilities: |`), so that a template copied alone carries its waivers with their reasons.
 * @param {NodeJS.ProcessEnv} env
 */
function capabilitiesFile(env) {
  const value = input('capabilities', env);
  // A block scalar ends in a newline even when it holds one line; a path holds none.
  if (!(env['INPUT_CAPABILITIES'] ?? '').includes('\n')) return value;
  const file = join(scratchDir(env), 'capabilities.yaml');
  writeFileSync(file, `${value}\n`);
  return file;
}

/**
 * The target's CA certificate: FSAPI_CA_PEM (a secret holding the PEM text) written to a file of this runner for
 * FSAPI_CA_FILE. A path to a CA file in FSAPI_DOTENV names a file of the machine `sandbox --env` ran on, which a
 * runner does not have: refused, naming the secret that works.
 * @param {NodeJS.ProcessEnv} env
 * @param {Record<string, string>} fromDotenv
 * @returns {Record<string, string>}
 */
function caSettings(env, fromDotenv) {
  const pem = (env['FSAPI_CA_PEM'] ?? '').trim();
  if (pem) {
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new InputError('FSAPI_CA_PEM holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the text of the CA file, not its path');
    const file = join(scratchDir(env), 'ca.pem');
    writeFileSync(file, `${pem}\n`);
    return { FSAPI_CA_FILE: file };
  }
  const path = fromDotenv['FSAPI_CA_FILE'];
  if (path && !existsSync(path)) throw new InputError(`FSAPI_CA_FILE in FSAPI_DOTENV names ${path}, which is not on this runner: leave that line out and give the certificate's PEM text as the FSAPI_CA_PEM secret`);
  return {};
}

/** Settings that name a target: declared empty in the job, they are a secret the job did not get. */
const TARGET_VARIABLES = ['FSAPI_DOTENV', 'FSAPI_BASE_URL'];

/**
 * The target's settings from FSAPI_DOTENV, one secret holding the lines of a .env (what `fsapi-conformance sandbox
 * --env` prints), for the run's environment; a variable the job sets itself wins; FSAPI_CA_PEM, the CA's PEM text,
 * becomes FSAPI_CA_FILE. And the guard of a job whose
 * secrets are missing (a pull request from a fork gets none): the variable is there but empty, and the run would
 * otherwise test the embedded sandbox and pass.
 * @param {NodeJS.ProcessEnv} env
 * @returns {Record<string, string>}
 */
export function targetSettings(env) {
  for (const name of TARGET_VARIABLES) {
    if (name in env && !(env[name] ?? '').trim()) {
      throw new InputError(`${name} is set but empty: the secret it names is not available to this job (pull requests from forks get no secrets), so there is no target to test`);
    }
  }
  const fromDotenv = dotenvSettings(env);
  return { ...fromDotenv, ...caSettings(env, fromDotenv) };
}

/**
 * The lines of FSAPI_DOTENV that the job does not set itself.
 * @param {NodeJS.ProcessEnv} env
 * @returns {Record<string, string>}
 */
function dotenvSettings(env) {
  const text = env['FSAPI_DOTENV'];
  if (!text) return {};
  /** @type {Record<string, string>} */
  const out = {};
  for (const [n, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Z][A-Z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m || !m[1]?.startsWith('FSAPI_')) throw new InputError(`FSAPI_DOTENV line ${n + 1} is not an FSAPI_NAME=value line (the lines of a .env, as \`fsapi-conformance sandbox --env\` prints them)`);
    const value = (m[2] ?? '').replace(/^(["'])(.*)\1$/, '$2');
    if (env[m[1]] === undefined || env[m[1]] === '') out[m[1]] = value;
  }
  return out;
}

/**
 * The `args` input: other flags of the command, split on spaces. Quotes would be taken literally, so they are
 * refused, naming where a value with spaces goes instead.
 * @param {NodeJS.ProcessEnv} env
 */
function passedThrough(env) {
  const text = input('args', env);
  if (/["'`]/.test(text)) throw new InputError('args are split on spaces and quotes are not read: give a value with spaces in its FSAPI_* variable (env:) instead');
  return text.split(/\s+/).filter(Boolean);
}

/**
 * The name the reports are uploaded under: one per job of a workflow (a shard's names its shard).
 * @param {NodeJS.ProcessEnv} env
 */
export function artifactName(env) {
  if (input('merge-from', env)) return 'fsapi-conformance-reports-merged';
  const shard = /^(\d+)\/(\d+)$/.exec(input('shard', env));
  return shard ? `fsapi-conformance-reports-shard-${shard[1]}-of-${shard[2]}` : 'fsapi-conformance-reports';
}

/**
 * A workflow command's data, escaped as GitHub reads it; `property` also escapes what ends a property.
 * @param {string} s
 * @param {boolean} [property]
 */
function escapeCommand(s, property = false) {
  const data = s.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
  return property ? data.replaceAll(':', '%3A').replaceAll(',', '%2C') : data;
}

/**
 * One `::error` annotation per failed MUST requirement: its id, how many checks failed, the first one's message.
 * @param {{ checks: { requirement: string; level: string; status: string; message?: string; name: string }[] }} report
 * @returns {string[]}
 */
export function mustAnnotations(report) {
  /** @type {Map<string, { message?: string; name: string }[]>} */
  const byRequirement = new Map();
  for (const c of report.checks) {
    if (c.level !== 'MUST' || (c.status !== 'failed' && c.status !== 'error')) continue;
    byRequirement.set(c.requirement, [...(byRequirement.get(c.requirement) ?? []), c]);
  }
  return [...byRequirement].map(([req, failed]) => {
    const first = failed[0];
    const more = failed.length > 1 ? ` (and ${failed.length - 1} more failed check${failed.length > 2 ? 's' : ''}; see the job summary)` : '';
    return `::error title=${escapeCommand(`${req} (MUST) failed`, true)}::${escapeCommand(`${first?.name}: ${first?.message ?? 'failed'}${more}`)}`;
  });
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
    setOutputs(env, { verdict: 'none', 'exit-code': USAGE, 'report-dir': '', 'artifact-name': '' });
    return USAGE;
  }
  const { args, extraEnv, reportDir } = command;
  // Keys and secrets read from FSAPI_DOTENV are masked in the log, as GitHub masks secrets it passes itself.
  for (const [k, v] of Object.entries(extraEnv)) if (/KEY|SECRET/.test(k) && v) console.log(`::add-mask::${v}`);
  const started = Date.now();
  console.log(`fsapi-conformance ${args.join(' ')}`);
  // FSAPI_DOTENV and FSAPI_CA_PEM are the action's, not settings of the command (which refuses unknown FSAPI_*
  // variables).
  const { FSAPI_DOTENV: _dotenv, FSAPI_CA_PEM: _pem, ...jobEnv } = env;
  // The report's "repeat this run" names the command a reader has, not the runner's path to the action.
  const r = spawnSync(process.execPath, [CLI, ...args], { stdio: 'inherit', env: { FSAPI_INVOKED_AS: 'npx --no fsapi-conformance', ...jobEnv, ...extraEnv } });
  // Killed by a signal: as a shell reports it.
  const code = r.status ?? 128 + (r.signal === 'SIGKILL' ? 9 : 15);

  // This run's report, if it wrote one: latest, newer than the start (an older one belongs to an earlier run).
  const latest = join(reportDir, 'latest');
  const reportFile = join(latest, 'conformance.json');
  const fresh = existsSync(reportFile) && statSync(reportFile).mtimeMs >= started - 1000;
  const verdict = fresh ? String(JSON.parse(readFileSync(reportFile, 'utf8')).verdict) : 'none';
  const dir = fresh ? relative(process.cwd(), realpathSync(latest)) || '.' : '';
  setOutputs(env, { verdict, 'exit-code': code, 'report-dir': dir, 'artifact-name': artifactName(env) });
  if (fresh) for (const line of mustAnnotations(JSON.parse(readFileSync(reportFile, 'utf8')))) console.log(line);

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
