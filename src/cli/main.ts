import { isUsageError } from '../errors.js';
import { DEBUG_ENV, parseCommandArgs, renderHelp, type CommandStart } from './command.js';
import { COMMANDS } from './commands/index.js';
import { nearest } from '../nearest.js';
import { SUITE_VERSION } from '../paths.js';

function topHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return [
    'fsapi-conformance: conformance and contract tests for the Financial Services API v1',
    '',
    'usage: fsapi-conformance <command> [options]',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)} ${c.summary}`),
    '',
    'options:',
    '  -h, --help     Show this help and exit (also: help; through npx, which takes --help for its own).',
    '  -V, --version  Print the version and exit (also: version).',
    '',
    'debugging (environment):',
    `  ${DEBUG_ENV.name.padEnd(width)} ${DEBUG_ENV.description}`,
    '',
    'exit codes (every command; each lists its own others):',
    '  0    success (run: conformant)',
    '  2    usage error: unknown command or option, bad configuration (one message says what to fix)',
    '  3    internal error of the suite',
    '',
    'Run `fsapi-conformance <command> --help` for its options, environment variables and exit codes.',
  ].join('\n');
}

/** Runs the CLI and returns the exit code. Usage errors print one message; nothing prints a stack trace. */
export async function main(argv: string[], start: CommandStart = {}): Promise<number> {
  const [name, ...rest] = argv;
  try {
    // Asked for, the help is the output (stdout, exit 0); a bare command is a usage error (stderr, exit 2).
    if (name === undefined) {
      console.error(topHelp());
      return 2;
    }
    if (name === '--help' || name === '-h' || name === 'help') {
      console.log(topHelp());
      return 0;
    }
    if (name === '--version' || name === '-V' || name === 'version') {
      console.log(`fsapi-conformance ${SUITE_VERSION}`);
      return 0;
    }
    const cmd = COMMANDS.find((c) => c.name === name);
    if (!cmd) {
      const near = nearest(name, COMMANDS.map((c) => c.name));
      console.error(`error: unknown command "${name}"${near ? ` (did you mean "${near}"?)` : ''}; see fsapi-conformance --help`);
      return 2;
    }
    const args = parseCommandArgs(cmd, rest);
    if (args.values['help']) {
      console.log(renderHelp(cmd));
      return 0;
    }
    return await cmd.run(args, start);
  } catch (e) {
    if (isUsageError(e)) {
      console.error(`error: ${e.describe()}`);
      return 2;
    }
    // An internal fault: say so in one line; the stack only when asked for (FSAPI_DEBUG=1).
    console.error(`internal error: ${(e as Error).message}`);
    if (process.env['FSAPI_DEBUG']) console.error((e as Error).stack);
    return 3;
  }
}
