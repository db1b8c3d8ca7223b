import { basename, dirname, relative, sep } from 'node:path';
import { INSTALLED } from './paths.js';

/**
 * The command line that runs this CLI the way the user just did, for the commands the suite prints (the .env
 * example, "repeat this run", "review it, then"): `npx --no fsapi-conformance` from an install in a project,
 * `fsapi-conformance` from a global one, `npm run conformance --` through the checkout's script, else
 * `node <path to bin>`. A message that names a command the user does not have is a dead end.
 */
export function invocation(command?: string, env: NodeJS.ProcessEnv = process.env, argv1 = process.argv[1] ?? '', cwd = process.cwd(), installed = INSTALLED): string {
  const withCommand = (prefix: string) => (command ? `${prefix} ${command}` : prefix);
  // Set by a wrapper whose own path means nothing to the reader (the GitHub Action runs bin/ from its cache).
  const told = env['FSAPI_INVOKED_AS']?.trim();
  if (told) return withCommand(told);
  // `npm run conformance` is `... run`: only the run command can go through it.
  if (!installed && env['npm_lifecycle_event'] === 'conformance' && command === 'run') return 'npm run conformance --';
  const viaBinLink = basename(argv1) === 'fsapi-conformance';
  if (viaBinLink && dirname(argv1).split(sep).slice(-2).join('/') === 'node_modules/.bin') return withCommand('npx --no fsapi-conformance');
  if (viaBinLink) return withCommand('fsapi-conformance');
  if (installed || !argv1) return withCommand('npx --no fsapi-conformance');
  return withCommand(`node ${relative(cwd, argv1) || argv1}`);
}
