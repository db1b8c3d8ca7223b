#!/usr/bin/env node
// Entry point. Runs the compiled build (dist/, made by `npm run build`, which `npm ci` runs through `prepare`)
// when it is current; otherwise the TypeScript sources through tsx, so an edited checkout still runs correctly,
// only slower. tsx's loader hooks see every module a run loads, which costs seconds of start-up each time.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from './build-stamp.js';
import { tierUpLater } from './tiering.js';

tierUpLater(process.argv[2]);

// A run interrupted while it loads must still keep the promise it prints (the report, verdict incomplete): from the
// first moment, SIGINT/SIGTERM are noted here, and the run command takes them over once it has its own handler.
const noted = [];
const note = (sig) => noted.push(sig);
const interruptible = process.argv[2] === 'run';
if (interruptible) for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, note);
const takeEarlySignals = () => {
  for (const sig of ['SIGINT', 'SIGTERM']) process.off(sig, note);
  return noted.splice(0);
};

const root = fileURLToPath(new URL('..', import.meta.url));

// An installed package ships the compiled build and no sources (nor tsx): it always runs dist/.
const hasSources = existsSync(join(root, 'src', 'cli', 'main.ts'));

let main;
if (!hasSources || (process.env.FSAPI_FROM_SOURCE !== '1' && buildIsCurrent(root))) {
  ({ main } = await import('../dist/src/cli/main.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2), interruptible ? { takeEarlySignals } : {});
