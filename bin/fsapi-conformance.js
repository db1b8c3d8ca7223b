#!/usr/bin/env node
// Entry point. Runs the compiled build (dist/, made by `npm run build`, which `npm ci` runs through `prepare`)
// when it is current; otherwise the TypeScript sources through tsx, so an edited checkout still runs correctly,
// only slower. tsx's loader hooks see every module a run loads, which costs seconds of start-up each time.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.build-stamp');

function newestSource(dir) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function buildIsCurrent() {
  if (!existsSync(stamp)) return false;
  const built = statSync(stamp).mtimeMs;
  return ['src', 'sandbox', 'fixtures', 'suites'].every((d) => newestSource(join(root, d)) <= built);
}

// An installed package ships the compiled build and no sources (nor tsx): it always runs dist/.
const hasSources = existsSync(join(root, 'src', 'cli', 'main.ts'));

let main;
if (!hasSources || (process.env.FSAPI_FROM_SOURCE !== '1' && buildIsCurrent())) {
  ({ main } = await import('../dist/src/cli/main.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
