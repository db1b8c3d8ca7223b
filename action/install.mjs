// @ts-check
/**
 * The action's first step: install the suite from this repository's own lockfile (`npm ci`, which builds dist/
 * through `prepare`), so a workflow runs exactly the code of the tag it pins, and nothing is fetched by a bare
 * package name. An install restored from the action's cache (CACHE_HIT), or a checkout whose build is current
 * already (a self-hosted runner's second job, a local try), is used as it is.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from '../bin/build-stamp.js';

const root = fileURLToPath(new URL('..', import.meta.url));

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.log(`::error::fsapi-conformance needs Node.js 20.19 or newer; this job has ${process.version} (add actions/setup-node with node-version: 20 before this step)`);
  process.exit(2);
}

const restored = process.env['CACHE_HIT'] === 'true' && existsSync(join(root, 'node_modules')) && existsSync(join(root, 'dist', '.build-stamp'));
if (restored) {
  // The cache key is the hash of the lockfile and every source (cache-key.mjs): the restored build is this one's.
  // Its stamp keeps the time it was built, older than this checkout's files, so it is renewed.
  const now = new Date();
  utimesSync(join(root, 'dist', '.build-stamp'), now, now);
  console.log(`fsapi-conformance: install restored from the cache in ${root}`);
} else if (existsSync(join(root, 'node_modules')) && buildIsCurrent(root)) {
  console.log(`fsapi-conformance: installed and built already in ${root}`);
} else {
  // The build needs the dev tools (TypeScript), also where a workflow sets NODE_ENV=production.
  const r = spawnSync('npm', ['ci', '--include=dev', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.log(`::error::npm ci of fsapi-conformance failed (exit ${r.status ?? r.signal}); see the log above`);
    process.exit(3);
  }
}
