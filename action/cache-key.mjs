// @ts-check
/**
 * The key of the action's install cache (node_modules and dist/): the lockfile and every source the build reads,
 * hashed, with the platform and Node's major version. Content, not a ref: a key that matches is the very install
 * `npm ci` and the build would make here, so install.mjs can take it as it is (actions/cache's hashFiles() cannot
 * read the action's own folder, which lies outside the workspace).
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What `npm ci` and the build read. */
const INPUTS = ['package-lock.json', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'bin', 'src', 'sandbox', 'fixtures', 'suites', 'spec'];

/**
 * @param {string} root
 * @returns {string}
 */
export function cacheKey(root = ROOT) {
  const hash = createHash('sha256');
  /** @param {string} p */
  const add = (p) => {
    if (!existsSync(p)) return;
    if (statSync(p).isDirectory()) for (const e of readdirSync(p).sort()) add(join(p, e));
    else hash.update(relative(root, p)).update('\0').update(readFileSync(p)).update('\0');
  };
  for (const p of INPUTS) add(join(root, p));
  return `fsapi-conformance-${process.platform}-${process.arch}-node${process.versions.node.split('.')[0]}-${hash.digest('hex').slice(0, 32)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const line = `key=${cacheKey()}\n`;
  if (process.env['GITHUB_OUTPUT']) appendFileSync(process.env['GITHUB_OUTPUT'], line);
  else process.stdout.write(line);
}
