/**
 * What loading the suite's own modules costs each thread of a run, in CPU: what a vitest worker imports for its
 * suite files (vitest itself already loaded, as in a worker), and what the main thread of a run against a configured
 * target imports (runner, reports, HTTP client, preflight). Each measurement is a fresh process (nothing cached but
 * what the disk caches), repeated; with --against, another checkout's build is measured too, alternated round by
 * round with this one, so that a drift of the machine's speed falls on both.
 *
 *   npx tsx bench/module-load.ts [--rounds 8] [--against ../other-checkout]
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { benchArgs, ensureBuild, int, nodeChildOutput, printTable, ROOT, round, spread, type Spread, usage, writeResult } from './lib.js';

const USAGE = 'npx tsx bench/module-load.ts [--rounds 8] [--against DIR]';

/** The modules each thread imports, from a build's root. */
const SETS = {
  worker: { before: ['node_modules/vitest/dist/index.js'], load: ['dist/src/vitest-suite/suite.js', 'dist/src/harness/runtime.js'] },
  main: { before: [], load: ['dist/src/runner/run.js', 'dist/src/reports/index.js', 'dist/src/http/client.js', 'dist/src/runner/preflight.js'] },
} as const;
type SetName = keyof typeof SETS;

/** In a fresh node: imports `before` untimed, then `load`; prints the CPU (user + system, ms) the latter took. */
const CHILD = `
const [root, before, load] = [process.argv[1], JSON.parse(process.argv[2]), JSON.parse(process.argv[3])];
const { pathToFileURL } = await import('node:url');
for (const f of before) await import(pathToFileURL(root + '/' + f).href);
const c = process.cpuUsage();
for (const f of load) await import(pathToFileURL(root + '/' + f).href);
const u = process.cpuUsage(c);
console.log((u.user + u.system) / 1000);
`;

async function measure(root: string, set: SetName): Promise<number> {
  const what = `loading the ${set} modules of ${root}`;
  const out = await nodeChildOutput(['--input-type=module', '-e', CHILD, root, JSON.stringify(SETS[set].before), JSON.stringify(SETS[set].load)], what, { cwd: root });
  const ms = Number(out.trim());
  if (!Number.isFinite(ms)) throw new Error(`${what} printed no figure: ${out.trim().slice(0, 200)}`);
  return ms;
}

async function main(): Promise<void> {
  const { values } = benchArgs(USAGE, { options: { rounds: { type: 'string', default: '8' }, against: { type: 'string' } } });
  const rounds = int(values.rounds) ?? usage(USAGE);
  const against = values.against === undefined ? undefined : resolve(values.against);
  if (against && !existsSync(resolve(against, 'dist', '.build-stamp'))) usage(`${USAGE}\n--against names a checkout with a build (npm run build there first)`);
  const build = await ensureBuild();
  const roots = [ROOT, ...(against ? [against] : [])];
  const cpu = new Map(roots.map((r) => [r, { worker: [] as number[], main: [] as number[] }]));
  for (let i = 0; i < rounds; i++) {
    for (const r of i % 2 ? [...roots].reverse() : roots) for (const set of Object.keys(SETS) as SetName[]) cpu.get(r)![set].push(await measure(r, set));
  }
  const summary = roots.map((r) => ({ root: r, worker: spread(cpu.get(r)!.worker), main: spread(cpu.get(r)!.main), samples: cpu.get(r)! }));
  const cell = (s: Spread) => `${round(s.median, 0)} (${round(s.min, 0)}-${round(s.max, 0)})`;
  console.log(`\nCPU to load the suite's modules (ms, median and range of ${rounds} fresh processes each)`);
  printTable(['build', 'a worker (suite files, harness)', 'the main thread (runner, reports, client, preflight)'], summary.map((s) => [s.root === ROOT ? 'this checkout' : s.root, cell(s.worker), cell(s.main)]));
  console.log(`\nwritten: ${writeResult('module-load', { build, rounds, sets: SETS, builds: summary })}`);
}

await main();
