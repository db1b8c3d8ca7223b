import { parseArgs } from 'node:util';
import { UsageError } from '../errors.js';
import { nearest } from '../nearest.js';

/** A command-line option. Help text and parsing both come from this one declaration. */
export interface OptionSpec {
  name: string;
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** Value placeholder in help, e.g. "N" or "FILE". */
  value?: string;
  description: string;
  default?: string;
  /** The environment variable that sets the same thing (flags win over it). */
  env?: string;
  /** The value the option takes when given alone (`--explore`, or `--explore --quiet`): its value may be left out. */
  bare?: string;
}

export interface EnvSpec {
  name: string;
  description: string;
  default?: string;
  secret?: boolean;
}

export interface CommandSpec {
  name: string;
  summary: string;
  usage: string;
  /** Paragraphs shown under the usage line. */
  description?: string;
  options: OptionSpec[];
  /** Environment variables read by the command that have no flag (secrets, for instance). */
  env?: EnvSpec[];
  exitCodes: { code: number; meaning: string }[];
  /** Whether positional arguments are accepted. */
  positionals?: { name: string; description: string; min?: number; max?: number };
  run(args: ParsedArgs, start?: CommandStart): Promise<number>;
}

/** What the entry point hands a command besides its arguments. */
export interface CommandStart {
  /**
   * The SIGINT/SIGTERM received since the process started, before the command could handle them (bin/ notes them
   * from its first line); calling it stops the noting, so call it once the command's own handler is in place.
   */
  takeEarlySignals?: () => NodeJS.Signals[];
}

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Read by every command (src/cli/main.ts), from the environment only. */
export const DEBUG_ENV: EnvSpec = { name: 'FSAPI_DEBUG', description: 'Set to 1: an internal error (exit 3) also prints its stack trace.' };

export const HELP_OPTION: OptionSpec = { name: 'help', short: 'h', type: 'boolean', description: 'Show this help and exit.' };

/** Parses argv against a command's options; unknown flags name the nearest valid one. */
export function parseCommandArgs(cmd: CommandSpec, argv: string[]): ParsedArgs {
  const options = [...cmd.options, HELP_OPTION];
  const config: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const o of options) {
    config[o.name] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) };
  }
  try {
    const { values, positionals } = parseArgs({ args: withBareValues(joinNegativeValues(argv, options), options), options: config, allowPositionals: true, strict: true });
    const max = cmd.positionals?.max ?? (cmd.positionals ? Infinity : 0);
    if (!values['help'] && positionals.length > max) {
      throw new UsageError(`${cmd.name}: unexpected argument "${positionals[max]}"`, { fix: `see: fsapi-conformance ${cmd.name} --help` });
    }
    if (!values['help'] && cmd.positionals?.min && positionals.length < cmd.positionals.min) {
      throw new UsageError(`${cmd.name}: missing ${cmd.positionals.name}`, { fix: `usage: ${cmd.usage}` });
    }
    return { values: values as ParsedArgs['values'], positionals };
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const msg = (e as Error).message;
    const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(msg);
    if (unknown) {
      const given = unknown[1]!.replace(/^-+/, '').split('=')[0]!;
      const near = nearest(given, options.map((o) => o.name));
      // One line: the option, the nearest valid one, where to look.
      throw new UsageError(`${cmd.name}: unknown option ${unknown[1]}${near ? ` (did you mean --${near}?)` : ''}; see fsapi-conformance ${cmd.name} --help`);
    }
    throw new UsageError(`${cmd.name}: ${msg.split('\n')[0]}`, { fix: `see: fsapi-conformance ${cmd.name} --help` });
  }
}

/**
 * `--rate-limit -1`: node's parser takes "-1" for an option and refuses the pair as ambiguous, which hides the real
 * mistake. A value option followed by what reads as a number is joined (`--rate-limit=-1`), so the setting's own
 * check names the range it accepts.
 */
function joinNegativeValues(argv: string[], options: readonly OptionSpec[]): string[] {
  const takesValue = (arg: string) => options.some((o) => o.type === 'string' && (arg === `--${o.name}` || (o.short !== undefined && arg === `-${o.short}`)));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    if (next !== undefined && /^-[\d.]/.test(next) && takesValue(arg)) {
      out.push(`${arg.startsWith('--') ? arg : `--${options.find((o) => arg === `-${o.short}`)!.name}`}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/**
 * node's parser takes no optional values: an option with a `bare` value given alone (the last argument, or followed
 * by another option) is given that value here (`--explore` → `--explore=24`), the one place argv is rewritten so.
 * What follows it otherwise is its value, as for any option (`--explore 8`; `--explore -1` was joined above).
 */
export function withBareValues(argv: readonly string[], options: readonly OptionSpec[]): string[] {
  return argv.map((arg, i) => {
    const o = options.find((x) => x.bare !== undefined && (arg === `--${x.name}` || (x.short !== undefined && arg === `-${x.short}`)));
    const next = argv[i + 1];
    return o && (next === undefined || next.startsWith('-')) ? `--${o.name}=${o.bare}` : arg;
  });
}

/** Renders `<command> --help`. */
export function renderHelp(cmd: CommandSpec): string {
  const lines = [`fsapi-conformance ${cmd.name}: ${cmd.summary}`, '', `usage: ${cmd.usage}`];
  if (cmd.description) lines.push('', cmd.description.trim());
  if (cmd.positionals) lines.push('', 'arguments:', `  ${cmd.positionals.name.padEnd(26)} ${cmd.positionals.description}`);
  const opts = [...cmd.options, HELP_OPTION];
  lines.push('', 'options:');
  for (const o of opts) {
    const placeholder = o.value ?? 'VALUE';
    const flag = `${o.short ? `-${o.short}, ` : ''}--${o.name}${o.type === 'string' ? ` ${o.bare !== undefined ? `[${placeholder}]` : placeholder}` : ''}`;
    const extra = [o.default !== undefined ? `default: ${o.default}` : '', o.env ? `env: ${o.env}` : '', o.multiple ? 'repeatable' : '']
      .filter(Boolean)
      .join('; ');
    lines.push(`  ${flag.padEnd(26)} ${o.description}${extra ? ` (${extra})` : ''}`);
  }
  if (cmd.env?.length) {
    lines.push('', 'environment (also read from .env):');
    for (const e of cmd.env) {
      lines.push(`  ${e.name.padEnd(26)} ${e.description}${e.default !== undefined ? ` (default: ${e.default})` : ''}${e.secret ? ' [secret: never a flag]' : ''}`);
    }
  }
  lines.push('', 'debugging (environment):', `  ${DEBUG_ENV.name.padEnd(26)} ${DEBUG_ENV.description}`);
  lines.push('', 'exit codes:');
  for (const x of cmd.exitCodes) lines.push(`  ${String(x.code).padEnd(4)} ${x.meaning}`);
  return lines.join('\n');
}
