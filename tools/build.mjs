// The build (`npm run build`, and `prepare` on `npm ci`): dist/ compiled afresh by tsc, then the validators the
// build precompiles, then the stamp that tells the bin dist/ is current (bin/build-stamp.js).
//
//   node tools/build.mjs [--no-check]
//
// --no-check emits without type-checking: `npm test` type-checks every file first (`tsc --noEmit`), so checking
// the compiled ones again cost its build about 5 s of a 2-core machine for nothing.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const noCheck = process.argv.includes('--no-check');
const unknown = process.argv.slice(2).filter((a) => a !== '--no-check');
if (unknown.length) {
  console.error(`build: unknown option ${unknown.join(' ')} (usage: node tools/build.mjs [--no-check])`);
  process.exit(2);
}

rmSync('dist', { recursive: true, force: true });
// The tsc npm scripts run (node_modules/.bin), whichever package provides it.
const tsc = fileURLToPath(new URL('../node_modules/.bin/tsc', import.meta.url));
const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', ...(noCheck ? ['--noCheck'] : [])], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

const built = (path) => import(new URL(`../dist/${path}`, import.meta.url).href);
await Promise.all([
  built('src/explore/reference-validators.js').then((m) => m.writeReferenceValidators()),
  built('src/reports/schema.js').then((m) => m.writeReportValidator()),
  built('src/certify/statement.js').then((m) => m.writePredicateValidator()),
]);
writeFileSync('dist/.build-stamp', new Date().toISOString());
