// The build (`npm run build`, and `prepare` on `npm ci`): dist/ compiled afresh by tsc, then the validators the
// build precompiles, then the stamp that tells the bin dist/ is current (bin/build-stamp.js).
//
//   node tools/build.mjs [--no-check]
//
// --no-check emits without type-checking: `npm test` type-checks every file first (`tsc --noEmit`), so checking
// the compiled ones again cost its build 7-10 of its 15-19.5 CPU-s (about 6 s of wall time on 2 cores) for nothing.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Paths from the checkout's root, whatever folder the script is started from.
const root = fileURLToPath(new URL('..', import.meta.url));

const noCheck = process.argv.includes('--no-check');
const unknown = process.argv.slice(2).filter((a) => a !== '--no-check');
if (unknown.length) {
  console.error(`build: unknown option ${unknown.join(' ')} (usage: node tools/build.mjs [--no-check])`);
  process.exit(2);
}

rmSync(join(root, 'dist'), { recursive: true, force: true });
// The tsc an npm script runs: node_modules/.bin first on the PATH, through the shell (tsc.cmd on Windows).
// (Windows spells the variable Path: the one the environment has is the one extended, not a second beside it.)
const pathKey = Object.keys(process.env).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH';
const path = `${join(root, 'node_modules', '.bin')}${delimiter}${process.env[pathKey] ?? ''}`;
const command = `tsc -p tsconfig.build.json${noCheck ? ' --noCheck' : ''}`;
const compiled = spawnSync(command, { cwd: root, stdio: 'inherit', shell: true, env: { ...process.env, [pathKey]: path } });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

const built = (path) => import(new URL(`../dist/${path}`, import.meta.url).href);
await Promise.all([
  built('src/explore/reference-validators.js').then((m) => m.writeReferenceValidators()),
  built('src/reports/schema.js').then((m) => m.writeReportValidator()),
  built('src/certify/statement.js').then((m) => m.writePredicateValidator()),
]);
writeFileSync(join(root, 'dist', '.build-stamp'), new Date().toISOString());
