// @ts-check
/**
 * The action's first step: install the suite from this repository's own lockfile (`npm ci`, which builds dist/
 * through `prepare`), so a workflow runs exactly the code of the tag it pins, and nothing is fetched by a bare
 * package name. A checkout whose build is current already (a self-hosted runner's second job, a local try) is
 * used as it is.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from '../bin/build-stamp.js';

const root = fileURLToPath(new URL('..', import.meta.url));

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.log(`::error::fsapi-conformance needs Node.js 20.19 or newer; this job has ${process.version} (add actions/setup-node with node-version: 20 before this step)`);
  process.exit(2);
}

if (existsSync(join(root, 'node_modules')) && buildIsCurrent(root)) {
  console.log(`fsapi-conformance: installed and built already in ${root}`);
} else {
  // The build needs the dev tools (TypeScript), also where a workflow sets NODE_ENV=production.
  const r = spawnSync('npm', ['ci', '--include=dev', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.log(`::error::npm ci of fsapi-conformance failed (exit ${r.status ?? r.signal}); see the log above`);
    process.exit(3);
  }
}
