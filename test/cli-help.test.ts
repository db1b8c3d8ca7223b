/**
 * Every command's help, as a user gets it from the real executable: `--help` exits 0 and names every option
 * (with its short form, default and environment variable), every environment variable and every exit code of
 * the command's declaration; a mistyped command or option exits 2 with one line naming the nearest valid one.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCommandArgs, type CommandSpec } from '../src/cli/command.js';
import { COMMANDS } from '../src/cli/commands/index.js';
import { isUsageError } from '../src/errors.js';
import { runCli } from './helpers/cli.js';

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A typo of an option name one edit away: a letter doubled in the middle ("seed" -> "seeed"). */
const typo = (name: string): string => {
  const i = Math.floor(name.length / 2);
  return name.slice(0, i) + name[i] + name.slice(i);
};

/** Each command line below, run once by the executable; all started together (each takes most of a second). */
const runs = new Map<string, ReturnType<typeof runCli>>();
const cli = (args: string[]): ReturnType<typeof runCli> => {
  const key = JSON.stringify(args);
  if (!runs.has(key)) runs.set(key, runCli(args, {}));
  return runs.get(key)!;
};
const firstOption = (cmd: CommandSpec): string => cmd.options[0]?.name ?? 'help';
const UNKNOWN_COMMANDS: [string, string][] = [
  ['rnu', 'run'],
  ['sandbx', 'sandbox'],
  ['requirement', 'requirements'],
  ['selfchek', 'selfcheck'],
];
for (const args of [['--help'], ['-h'], [], ['xyzzy-plugh'], ...UNKNOWN_COMMANDS.map(([given]) => [given])]) void cli(args);
for (const c of COMMANDS) {
  void cli([c.name, '--help']);
  void cli([c.name, `--${typo(firstOption(c))}`]);
}

const helps = Promise.all([cli(['--help']), ...COMMANDS.map((c) => cli([c.name, '--help']))]).then(([top, ...each]) => ({
  top: top!,
  each: new Map(COMMANDS.map((c, i) => [c.name, each[i]!])),
}));

describe('fsapi-conformance --help', () => {
  it('exits 0 and lists every command, the help flag, FSAPI_DEBUG and the exit codes every command shares', async () => {
    const { top } = await helps;
    expect(top.code).toBe(0);
    expect(top.stderr).toBe('');
    for (const c of COMMANDS) expect(top.stdout).toMatch(new RegExp(`^  ${escape(c.name)} +${escape(c.summary)}$`, 'm'));
    expect(top.stdout).toContain('--help');
    expect(top.stdout).toContain('FSAPI_DEBUG');
    for (const code of [0, 2, 3]) expect(top.stdout).toMatch(new RegExp(`^  ${code} +\\S`, 'm'));
  });

  it('-h is --help; no command at all is a usage error: the help on stderr, nothing on stdout, exit 2', async () => {
    const [short, none] = await Promise.all([cli(['-h']), cli([])]);
    const { top } = await helps;
    expect(short.code).toBe(0);
    expect(short.stdout).toBe(top.stdout);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe(top.stdout);
  });
});

describe.each(COMMANDS.map((c) => [c.name, c] as [string, CommandSpec]))('fsapi-conformance %s --help', (_name, cmd) => {
  it('exits 0 and names every option, its short form, default and environment variable', async () => {
    const r = (await helps).each.get(cmd.name)!;
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const out = r.stdout;
    expect(out).toContain(`usage: ${cmd.usage}`);
    for (const o of cmd.options) {
      const line = out.split('\n').find((l) => new RegExp(`^  (-\\w, )?--${escape(o.name)}\\b`).test(l));
      expect(line, `--${o.name}`).toBeDefined();
      expect(line).toContain(o.description);
      if (o.short) expect(line).toContain(`-${o.short}, --${o.name}`);
      if (o.type === 'string') expect(line).toContain(o.bare !== undefined ? `--${o.name} [${o.value ?? 'VALUE'}]` : `--${o.name} ${o.value ?? 'VALUE'}`);
      if (o.default !== undefined) expect(line).toContain(`default: ${o.default}`);
      if (o.env) expect(line).toContain(`env: ${o.env}`);
    }
    expect(out).toMatch(/^  -h, --help +Show this help and exit\.$/m);
    for (const e of cmd.env ?? []) expect(out).toMatch(new RegExp(`^  ${escape(e.name)} +${escape(e.description)}`, 'm'));
    expect(out).toMatch(/^  FSAPI_DEBUG +/m);
    if (cmd.positionals) expect(out).toMatch(new RegExp(`^  ${escape(cmd.positionals.name)} +${escape(cmd.positionals.description)}$`, 'm'));
  });

  it('lists every exit code of the declaration, which includes the 0, 2 and 3 every command can return', async () => {
    const out = (await helps).each.get(cmd.name)!.stdout;
    const section = out.slice(out.indexOf('\nexit codes:\n'));
    for (const x of cmd.exitCodes) expect(section).toMatch(new RegExp(`^  ${x.code} +${escape(x.meaning)}$`, 'm'));
    // main() answers 2 for any usage error and 3 for any internal fault, whatever the command.
    const codes = cmd.exitCodes.map((x) => x.code);
    expect(codes).toEqual(expect.arrayContaining([0, 2, 3]));
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('a mistyped option exits 2 with one line naming the nearest valid one', async () => {
    const first = firstOption(cmd);
    const r = await cli([cmd.name, `--${typo(first)}`]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(`error: ${cmd.name}: unknown option --${typo(first)} (did you mean --${first}?); see fsapi-conformance ${cmd.name} --help`);
  });

  it('every option, mistyped, is the one suggested (also in the --name=value form)', () => {
    for (const o of [...cmd.options, { name: 'help' }]) {
      for (const arg of [`--${typo(o.name)}`, `--${typo(o.name)}=x`]) {
        let message = '';
        try {
          parseCommandArgs(cmd, [arg]);
        } catch (e) {
          if (!isUsageError(e)) throw e;
          expect(e.fix).toBeUndefined();
          message = e.describe();
        }
        expect(message, arg).toMatch(new RegExp(`unknown option --${escape(typo(o.name))}(=x)? \\(did you mean --${escape(o.name)}\\?\\)`));
        expect(message.split('\n')).toHaveLength(1);
      }
    }
  });
});

describe('unknown commands', () => {
  it.each(UNKNOWN_COMMANDS)('%s exits 2 with one line naming %s', async (given, near) => {
    const r = await cli([given]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: unknown command "${given}" (did you mean "${near}"?); see fsapi-conformance --help\n`);
  });

  it('a word like no command gets the same one line, without a guess', async () => {
    const r = await cli(['xyzzy-plugh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: unknown command "xyzzy-plugh"; see fsapi-conformance --help\n');
  });
});

describe('what a command loads', () => {
  // Every command's implementation used to load with the CLI: help took 0.4 s, and a run loaded the reports, the
  // planner and ajv before it could start the sandbox's thread (src/runner/begin.ts).
  /**
   * Runs the CLI with a module hook in its main thread only; returns what that thread loaded: every URL its ESM
   * loader resolved, and every file in its CommonJS cache when it exits (what `createRequire` loads never passes
   * an ESM resolve hook).
   */
  async function resolvedBy(args: string[]): Promise<{ code: number | null; stderr: string; resolved: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-loads-'));
    const log = join(dir, 'resolved.txt');
    writeFileSync(log, '');
    // Worker threads run `--import` again; they register nothing, so the log is the main thread's.
    const hook = `import { appendFileSync } from 'node:fs';
export async function resolve(spec, ctx, next) { const r = await next(spec, ctx); appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r; }`;
    const register = join(dir, 'register.mjs');
    writeFileSync(
      register,
      [
        `import { appendFileSync } from 'node:fs';`,
        `import Module, { register } from 'node:module';`,
        `import { isMainThread } from 'node:worker_threads';`,
        `if (isMainThread) {`,
        `  register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`,
        `  process.on('exit', () => appendFileSync(${JSON.stringify(log)}, ['# CommonJS cache at exit', ...Object.keys(Module._cache)].join('\\n') + '\\n'));`,
        `}`,
        '',
      ].join('\n'),
    );
    const r = await runCli(args, {}, undefined, ['--import', pathToFileURL(register).href]);
    const resolved = readFileSync(log, 'utf8');
    // The exit hook ran: the CommonJS side of the log is there.
    expect(resolved, 'no CommonJS cache written at exit').toContain('# CommonJS cache at exit\n');
    return { code: r.code, stderr: r.stderr, resolved };
  }

  it('help loads neither the HTTP client, ajv, vitest, Allure nor the runner', async () => {
    for (const args of [['--help'], ['run', '--help'], ['diff', '--help'], ['requirements', '--help']]) {
      const { code, stderr, resolved } = await resolvedBy(args);
      expect(code, stderr).toBe(0);
      expect(resolved, args.join(' ')).toContain('/cli/commands/run.');
      for (const heavy of [/node_modules\/undici\//, /node_modules\/ajv\//, /node_modules\/vitest\//, /node_modules\/allure/, /\/runner\/run\./, /\/reports\/index\./, /\/checks\/planner\./]) {
        expect(resolved, `${args.join(' ')} loaded ${heavy}`).not.toMatch(heavy);
      }
    }
  });

  // The main thread of an embedded run is its busiest before the checks start (the CLI, the catalogue, the planner
  // and vitest); the HTTP client and faker belong to the workers (and undici to the sandbox's thread), and ajv to
  // no thread at all when the build's compiled validators serve the reference profile.
  it('an embedded run loads neither undici, faker nor ajv in its main thread', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'fsapi-loads-run-'));
    const { code, stderr, resolved } = await resolvedBy(['run', '--groups', 'transport', '--report-dir', reports]);
    expect(code, stderr).toBe(0);
    // The claim is about the build (its compiled validators): from the sources, the schemas compile with ajv.
    expect(resolved, 'dist/ is older than the sources: run `npm run build` first').toContain('/dist/src/runner/run.js');
    expect(resolved).toMatch(/node_modules\/vitest\//);
    for (const heavy of [/node_modules\/undici\//, /node_modules\/@faker-js\//, /node_modules\/ajv\/dist\/(2020|ajv|standalone)/, /\/http\/client\./, /\/harness\/runtime\./]) {
      expect(resolved, `loaded ${heavy}`).not.toMatch(heavy);
    }
  });
});
