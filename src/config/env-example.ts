import { SETTINGS } from './variables.js';

/**
 * The text of .env.example, from the settings table (a test keeps the committed file equal to it). `run` is the
 * command the reader runs (src/cli/invocation.ts); the committed file names the installed one.
 */
export function renderEnvExample(run = 'npx --no fsapi-conformance run'): string {
  const lines = [
    '# fsapi-conformance settings. Copy to .env (git-ignored) and fill in what you need.',
    `# With nothing set, \`${run}\` runs against the embedded reference sandbox.`,
    '# Precedence: command-line flags > environment > .env > defaults. Secrets are never taken as flags.',
    `# Regenerate: ${run} --print-env-example > .env.example`,
    '',
  ];
  for (const s of SETTINGS) {
    lines.push(`# ${s.description}${s.default ? ` Default: ${s.default}.` : ''}${s.flag ? ` Flag: --${s.flag}.` : ''}${s.secret ? ' Secret: environment or .env only.' : ''}`);
    lines.push(`# ${s.env}=`);
    lines.push('');
  }
  return lines.join('\n');
}
