/**
 * The CI templates in examples/ stay true: every file is valid YAML, every `fsapi-conformance <command> ...` they
 * run names a real command with real flags (and a sensible number of arguments), every use of the GitHub Action
 * gives only inputs it declares, at this package's version, the suite is installed from a lockfile or through the
 * pinned action (never fetched by a bare name), and every FSAPI_* variable they set is one the suite knows (an
 * unknown one makes `run` exit 2).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isMap, isPair, isScalar, parse, parseDocument, visit } from 'yaml';
import { HELP_OPTION, type CommandSpec } from '../src/cli/command.js';
import { COMMANDS } from '../src/cli/commands/index.js';
import { KNOWN_ENV } from '../src/config/variables.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLES = join(ROOT, 'examples');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

const FILES = filesUnder(EXAMPLES).map((p) => relative(ROOT, p));

/**
 * Splits one shell line into words: quotes, `${{ ... }}` expressions, `$( ... )` and `${...}` stay one word;
 * control operators (; | & && || > >> < 2>) and a `#` comment end the command, as the null word ''.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let i = 0;
  let word = '';
  let inWord = false;
  const flush = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const closing = (open: string, close: string, from: number): number => {
    let depth = 0;
    for (let j = from; j < line.length; j++) {
      if (line.startsWith(open, j)) depth++;
      else if (line.startsWith(close, j) && --depth === 0) return j + close.length;
    }
    throw new Error(`unbalanced ${open} in: ${line}`);
  };
  while (i < line.length) {
    const c = line[i]!;
    if (/\s/.test(c)) {
      flush();
      i++;
    } else if (c === '#' && !inWord) {
      break;
    } else if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unbalanced quote in: ${line}`);
      word += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (line.startsWith('${{', i)) {
      const end = closing('${{', '}}', i);
      word += line.slice(i, end);
      inWord = true;
      i = end;
    } else if (line.startsWith('$(', i) || line.startsWith('${', i)) {
      const [open, close] = line[i + 1] === '(' ? ['(', ')'] : ['{', '}'];
      const end = closing(open, close, i + 1);
      word += line.slice(i, end);
      inWord = true;
      i = end;
    } else if (/[;|&<>]/.test(c) || (c === '2' && line[i + 1] === '>' && !inWord)) {
      flush();
      words.push('');
      i += line.startsWith('2>', i) ? 2 : 1;
      while (i < line.length && /[|&>]/.test(line[i]!)) i++;
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  flush();
  return words;
}

interface Call {
  file: string;
  line: string;
  version: string | undefined;
  command: string;
  args: string[];
}

/**
 * Every invocation of the CLI in a shell script: `[npx [--yes]] fsapi-conformance[@version] <command> args...`,
 * in command position (first word, or after npx and its flags). A bare `fsapi-conformance` (a job's name) is none.
 */
function callsIn(script: string, file: string): Call[] {
  const calls: Call[] = [];
  for (const line of script.replace(/\\\n/g, ' ').split('\n')) {
    if (!line.includes('fsapi-conformance')) continue;
    const words = shellWords(line);
    words.forEach((w, i) => {
      const m = /^fsapi-conformance(?:@(.+))?$/.exec(w);
      if (!m) return;
      const start = words.lastIndexOf('', i) + 1;
      const before = words.slice(start, i);
      if (before.length > 0 && !(before[0] === 'npx' && before.slice(1).every((x) => x.startsWith('-')))) return;
      const end = words.indexOf('', i);
      const rest = words.slice(i + 1, end < 0 ? undefined : end);
      if (rest.length === 0) return;
      calls.push({ file, line: line.trim(), version: m[1], command: rest[0]!, args: rest.slice(1) });
    });
  }
  return calls;
}

/** What is wrong with a call, judged against the command's declaration (empty when nothing is). */
function problemsOf(call: Call): string[] {
  const cmd: CommandSpec | undefined = COMMANDS.find((c) => c.name === call.command);
  if (!cmd) return [`no command "${call.command}"`];
  const options = [...cmd.options, HELP_OPTION];
  const problems: string[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < call.args.length; i++) {
    const a = call.args[i]!;
    if (a.startsWith('--')) {
      const [name, value] = [a.slice(2).split('=')[0]!, a.includes('=') ? a.slice(a.indexOf('=') + 1) : undefined];
      const o = options.find((x) => x.name === name);
      if (!o) problems.push(`${cmd.name} has no option --${name}`);
      else if (o.type === 'boolean' && value !== undefined) problems.push(`--${name} takes no value`);
      else if (o.type === 'string' && value === undefined) {
        const next = call.args[i + 1];
        if (next === undefined || next.startsWith('-')) problems.push(`--${name} needs a value`);
        i++;
      }
    } else if (a.startsWith('-') && a.length > 1) {
      const o = options.find((x) => x.short === a.slice(1));
      if (!o) problems.push(`${cmd.name} has no option ${a}`);
      else if (o.type === 'string') i++;
    } else positionals.push(a);
  }
  const max = cmd.positionals?.max ?? (cmd.positionals ? Infinity : 0);
  const min = cmd.positionals?.min ?? 0;
  if (positionals.length > max) problems.push(`${cmd.name} takes at most ${max} arguments, given ${positionals.join(' ')}`);
  if (positionals.length < min) problems.push(`${cmd.name} needs ${cmd.positionals!.name}`);
  return problems;
}

/** Every string value of a YAML document (run steps, scripts, env values) and every key of an env mapping. */
function scan(text: string): { errors: string[]; strings: string[]; envKeys: string[] } {
  const doc = parseDocument(text, { prettyErrors: true });
  const strings: string[] = [];
  const envKeys: string[] = [];
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string') strings.push(node.value);
    },
    Pair(_key, pair) {
      if (isPair(pair) && isScalar(pair.key) && ['env', 'variables'].includes(String(pair.key.value)) && isMap(pair.value)) {
        for (const item of pair.value.items) if (isScalar(item.key)) envKeys.push(String(item.key.value));
      }
    },
  });
  return { errors: [...doc.errors, ...doc.warnings].map((e) => e.message), strings, envKeys };
}

const scanned = new Map(FILES.map((f) => [f, scan(readFileSync(join(ROOT, f), 'utf8'))]));
const ALL_CALLS = [...scanned].flatMap(([file, s]) => s.strings.flatMap((x) => callsIn(x, file)));

interface ActionStep {
  uses: string;
  with?: Record<string, string | number>;
}
const ACTION_INPUTS = Object.keys((parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { inputs: Record<string, unknown> }).inputs);
/** The steps of a GitHub workflow that use this repository's action (`uses: OWNER/fsapi-conformance@...`). */
function actionSteps(file: string): ActionStep[] {
  const wf = parse(readFileSync(join(ROOT, file), 'utf8')) as { jobs?: Record<string, { steps?: Partial<ActionStep>[] }> };
  return Object.values(wf.jobs ?? {}).flatMap((j) => (j.steps ?? []).filter((st): st is ActionStep => typeof st.uses === 'string' && /\/fsapi-conformance@/.test(st.uses)));
}

describe('the command-line parser of this test', () => {
  it('keeps expressions and substitutions whole and stops at shell operators', () => {
    expect(shellWords(`npx --yes fsapi-conformance@1.2.3 run --shard \${{ matrix.shard }}/4 --seed "$X" >> out # note`)).toEqual([
      'npx', '--yes', 'fsapi-conformance@1.2.3', 'run', '--shard', '${{ matrix.shard }}/4', '--seed', '$X', '', 'out',
    ]);
    expect(shellWords(`fsapi-conformance merge $(find s -name c.json -not -path '*/latest/*' -exec dirname {} \\;) --out r && echo`)).toEqual([
      'fsapi-conformance', 'merge', `$(find s -name c.json -not -path '*/latest/*' -exec dirname {} \\;)`, '--out', 'r', '', 'echo',
    ]);
    expect(problemsOf({ file: '', line: '', version: undefined, command: 'run', args: ['--shard', '1/4', '--sede=1'] })).toEqual(['run has no option --sede']);
    expect(problemsOf({ file: '', line: '', version: undefined, command: 'diff', args: ['a'] })).toEqual(['diff needs BASELINE CURRENT']);
    expect(problemsOf({ file: '', line: '', version: undefined, command: 'rnu', args: [] })).toEqual(['no command "rnu"']);
  });
});

describe('examples/', () => {
  it('holds the GitHub Actions workflows and the GitLab CI jobs, nothing else', () => {
    expect(FILES.sort()).toEqual(['examples/github/fsapi-conformance.yml', 'examples/github/fsapi-minimal.yml', 'examples/github/fsapi-regression.yml', 'examples/gitlab/fsapi-conformance.gitlab-ci.yml']);
  });

  it.each(FILES)('%s is valid YAML', (file) => {
    expect(scanned.get(file)!.errors).toEqual([]);
  });

  it.each(FILES)('%s runs fsapi-conformance with real commands and flags, or the action with real inputs at this version', (file) => {
    const calls = ALL_CALLS.filter((c) => c.file === file);
    const steps = actionSteps(file);
    expect(calls.length + steps.length).toBeGreaterThan(0);
    for (const call of calls) expect(problemsOf(call), call.line).toEqual([]);
    for (const step of steps) {
      // The repository has no tag yet (docs/releasing.md): the templates pin a commit, which the user fills in.
      expect(step.uses, 'the action pinned to a commit').toBe('OWNER/fsapi-conformance@COMMIT_SHA');
      for (const name of Object.keys(step.with ?? {})) expect(ACTION_INPUTS, `${file}: input ${name}`).toContain(name);
    }
  });

  it.each(FILES)('%s installs the suite from a lockfile or through the pinned action, never by fetching a bare name', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    expect(text).not.toMatch(/npx\s+(--yes|-y)\b/);
    for (const call of ALL_CALLS.filter((c) => c.file === file)) {
      expect(call.version, call.line).toBeUndefined();
      // `npx --no` runs the locally installed bin and fails rather than download one.
      expect(call.line, 'npx --no').toMatch(/npx --no fsapi-conformance /);
    }
    if (ALL_CALLS.some((c) => c.file === file)) expect(scanned.get(file)!.strings.some((x) => /^npm ci\b/m.test(x)), `${file}: npm ci`).toBe(true);
  });

  it.each(FILES)('%s sets only FSAPI_* variables the suite knows (an unknown one is a usage error)', (file) => {
    const s = scanned.get(file)!;
    const set = [...s.envKeys, ...s.strings.flatMap((x) => [...x.matchAll(/\b(FSAPI_[A-Z0-9_]+)=/g)].map((m) => m[1]!))].filter((k) => k.startsWith('FSAPI_'));
    // FSAPI_DOTENV (the lines of a .env in one secret) and FSAPI_CA_PEM (a CA's PEM text, written to a file for
    // FSAPI_CA_FILE) are the action's own, never passed to the command.
    for (const name of set) expect(KNOWN_ENV.has(name) || name === 'FSAPI_DOTENV' || name === 'FSAPI_CA_PEM', name).toBe(true);
  });

  it('shard with run --shard and merge, compare with run --baseline, and run on Node 20', () => {
    const flags = (command: string) => ALL_CALLS.filter((c) => c.command === command).flatMap((c) => c.args.filter((a) => a.startsWith('--')));
    for (const file of FILES) {
      const calls = ALL_CALLS.filter((c) => c.file === file);
      const steps = actionSteps(file);
      const text = readFileSync(join(ROOT, file), 'utf8');
      // The action sets up Node 20 itself; a job that runs the CLI directly says which Node.
      if (!file.startsWith('examples/github/')) expect(text).toMatch(/node-version: 20\b|image: node:20\b/);
      if (calls.some((c) => c.args.includes('--shard'))) expect(calls.some((c) => c.command === 'merge'), file).toBe(true);
      if (steps.some((st) => st.with?.['shard'])) expect(steps.some((st) => st.with?.['merge-from']), file).toBe(true);
    }
    const inputs = FILES.flatMap((f) => actionSteps(f).flatMap((st) => Object.keys(st.with ?? {})));
    expect(inputs).toEqual(expect.arrayContaining(['shard', 'seed', 'merge-from', 'baseline', 'ok-exit-codes']));
    expect(flags('run')).toEqual(expect.arrayContaining(['--shard', '--baseline', '--report-dir', '--seed']));
    expect(flags('merge')).toContain('--out');
  });

  it('the README pins the same version as the package, and never runs it with npx --yes', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const pins = [...readme.matchAll(/fsapi-conformance@v?(\d[^\s`]*)/g)].map((m) => m[1]);
    expect(pins.length).toBeGreaterThan(0);
    for (const v of pins) expect(v).toBe(VERSION);
    expect(readme).not.toMatch(/npx\s+(--yes|-y)\b/);
  });

  it('the GitHub workflows run the action (it writes summary.md to the job summary and uploads the reports)', () => {
    for (const file of FILES.filter((f) => f.startsWith('examples/github/'))) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      expect(actionSteps(file).length, file).toBeGreaterThan(0);
      expect(ALL_CALLS.filter((c) => c.file === file), `${file}: through the action`).toEqual([]);
      // Uploaded by the action itself, unless a step turns that off and uploads reports/ on its own.
      const own = /uses: actions\/upload-artifact@v4\n\s+with:\n(\s+.*\n)*?\s+path: reports\//.test(text);
      for (const step of actionSteps(file)) expect(step.with?.['upload'] !== 'false' || own, file).toBe(true);
    }
  });
});
