/**
 * What vitest, and vitest with Allure's results, cost by themselves for as many checks as a vendor run plans: the
 * floor under bench/load-plan.ts's CPU and memory per operation, with no request, no value and no validation. Test
 * files are generated as a vendor run's (checks per operation, parts of at most --part-checks checks, concurrent
 * describe blocks, one worker) whose tests do nothing (`vitest`), or attach a small exchange to the share of checks
 * that carry evidence in a run, through allure-vitest as it comes (`allure`) or through this build's own Allure
 * reporter, each test handing over a check's result as a run's checks do (`suite`). Each size is run in a fresh
 * process, rounds alternating modes and sizes. Per mode: the CPU and peak memory a planned operation adds, and what
 * is left at none.
 *
 *   npx tsx bench/framework-floor.ts [--cuts 100,400] [--checks-per-op 28.8] [--attachments-per-check 0.53]
 *                                    [--part-checks 5000] [--workers 1] [--concurrency 16] [--rounds 5]
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atExit, benchArgs, ensureBuild, int, intList, machine, nodeChildOutput, printTable, ROOT, round, spread, type Spread, usage, writeResult } from './lib.js';

const USAGE =
  'npx tsx bench/framework-floor.ts [--cuts 100,400] [--checks-per-op 28.8] [--attachments-per-check 0.53] [--part-checks 5000] [--workers 1] [--concurrency 16] [--rounds 5]';
const CHILD = join(ROOT, 'bench', 'framework-floor-child.mjs');
const MODES = ['vitest', 'allure', 'suite'] as const;
type Mode = (typeof MODES)[number];

/** Issue 34's targets for a vendor run: CPU and peak memory, per operation and fixed. */
const TARGET = { cpuMsPerOp: 20, cpuFixedS: 2, mibPerOp: 0.3, mibFixed: 150 };

/** About the size of a recorded exchange as a run attaches it (a request and a short JSON answer). */
const EXCHANGE = JSON.stringify({
  request: { method: 'POST', url: 'https://127.0.0.1/v1/customers', headers: { 'api-key': '[REDACTED:FSAPI_API_KEY]', 'idempotency-key': '0b1d2c3e' }, body: { name: 'x'.repeat(600) } },
  response: { status: 200, headers: { 'content-type': 'application/json' }, body: { id: 'cus_123', object: 'customer', description: 'y'.repeat(1800) } },
});

/**
 * The test files of one size: `checks` tests in files of at most `partChecks`, every test in a concurrent block. Each
 * file declares its tests in a loop, as a run's part files do (src/runner/suite-parts.ts): a line per test made files
 * of 0.2-0.4 MB whose transform by vite cost the main thread about 0.5 ms per operation, which a run does not pay.
 */
function writeSuite(dir: string, mode: Mode, checks: number, partChecks: number, attachRate: number): void {
  mkdirSync(dir, { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const files = Math.max(1, Math.ceil(checks / partChecks));
  // The test body of each mode: `attaches` says whether test `i` carries evidence (the share given by attachRate).
  const body = {
    vitest: `async () => {}`,
    allure: `async () => { if (attaches(i)) await attachment('exchange', EXCHANGE, 'application/json'); }`,
    // The check's result in the test's meta, as a run's checks hand it to the main thread.
    suite: `async ({ task }) => { task.meta.fsapi = { id: \`FSAPI-CONTRACT-001 op\${i} body\`, name: \`FSAPI-CONTRACT-001 op\${i} check\`, requirement: 'FSAPI-CONTRACT-001', level: 'CONTRACT', group: 'unbound', family: 'contract', operation: \`op\${i}\`, clause: 'paths.*.responses', title: 'the answer conforms', status: 'passed', duration_ms: 1, exchanges: attaches(i) ? [JSON.parse(EXCHANGE)] : [] }; }`,
  }[mode];
  let made = 0;
  for (let f = 0; f < files; f++) {
    const n = Math.round(((f + 1) * checks) / files) - made;
    const lines = [
      `import { describe, test } from 'vitest';`,
      ...(mode === 'allure' ? [`import { attachment } from 'allure-js-commons';`] : []),
      `const EXCHANGE = ${JSON.stringify(EXCHANGE)};`,
      `const attaches = (i) => Math.floor((i + 1) * ${attachRate}) > Math.floor(i * ${attachRate});`,
      `describe.concurrent('part ${f}', () => {`,
      `  for (let i = ${made}; i < ${made + n}; i++) test(\`FSAPI-CONTRACT-001 op\${i} check\`, ${body});`,
      '});',
      '',
    ];
    writeFileSync(join(dir, `part-${f}.test.mjs`), lines.join('\n'));
    made += n;
  }
}

/** A mode's line: what an operation adds, and what is left at none. */
interface ModeSummary {
  cpu_ms_per_op: number;
  cpu_s_fixed: number;
  mib_per_op: number;
  mib_fixed: number;
  per_cut: Record<string, { checks: number; cpu_s: Spread; max_rss_mib: Spread }>;
}

interface Measured {
  tests: number;
  files: number;
  cpu_s: number;
  max_rss_mib: number;
}

async function measure(dir: string, resultsDir: string, mode: Mode, workers: number, concurrency: number): Promise<Measured> {
  const out = await nodeChildOutput([CHILD, dir, mode, String(workers), String(concurrency), resultsDir], `the ${mode} child in ${dir}`, { cwd: dir });
  return JSON.parse(out.trim().split('\n').at(-1) ?? '') as Measured;
}

/** The least-squares line of y against x: what one more x adds, and y at x = 0. */
function line(points: [number, number][]): { slope: number; at0: number } {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const slope = sxx ? points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / sxx : 0;
  return { slope, at0: my - slope * mx };
}

async function main(): Promise<void> {
  const { values } = benchArgs(USAGE, {
    options: {
      cuts: { type: 'string', default: '100,400' },
      'checks-per-op': { type: 'string', default: '28.8' },
      'attachments-per-check': { type: 'string', default: '0.53' },
      'part-checks': { type: 'string', default: '5000' },
      workers: { type: 'string', default: '1' },
      concurrency: { type: 'string', default: '16' },
      rounds: { type: 'string', default: '5' },
    },
  });
  const cuts = intList(values.cuts) ?? usage(USAGE);
  const perOp = Number(values['checks-per-op']);
  const attachRate = Number(values['attachments-per-check']);
  const partChecks = int(values['part-checks']) ?? usage(USAGE);
  const workers = int(values.workers) ?? usage(USAGE);
  const concurrency = int(values.concurrency) ?? usage(USAGE);
  const rounds = int(values.rounds) ?? usage(USAGE);
  if (cuts.length < 2 || !(perOp > 0) || !(attachRate >= 0 && attachRate <= 1)) usage(`${USAGE}\n(at least two cuts; checks per operation > 0; attachments per check within 0-1)`);

  // `suite` runs this build's reporter from dist/.
  const build = await ensureBuild();
  const root = mkdtempSync(join(tmpdir(), 'fsapi-bench-framework-floor-'));
  atExit(() => {
    // On an interrupt a child may still be writing its results there as it ends: retried, then named if left.
    try {
      rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    } catch {
      console.error(`framework-floor: ${root} could not be removed`);
    }
  });
  const suites = MODES.flatMap((mode) => cuts.map((n) => ({ mode, n, dir: join(root, `${mode}-${n}`), checks: Math.round(n * perOp) })));
  for (const s of suites) writeSuite(s.dir, s.mode, s.checks, partChecks, attachRate);

  const runs = new Map(suites.map((s) => [s, [] as Measured[]]));
  for (let r = 0; r < rounds; r++) {
    // Each round in another order, so that a drift of the machine's speed falls on every mode and size alike.
    const order = r % 2 ? [...suites].reverse() : suites;
    for (const s of order) {
      // A fresh results folder each run, all removed at the end: files deleted just before a run made its file
      // creation slower on this VM's ext4 (still committing the deletion; see "A whole run").
      const m = await measure(s.dir, join(s.dir, `allure-results-${r}`), s.mode, workers, concurrency);
      if (m.tests !== s.checks) throw new Error(`the ${s.mode} child ran ${m.tests} tests of ${s.checks}`);
      // Each test's result file, and an attachment for the share that carries one: a mode that wrote less measured less.
      const files = s.mode === 'vitest' ? 0 : s.checks + Math.floor(s.checks * attachRate);
      if (m.files < files) throw new Error(`the ${s.mode} child wrote ${m.files} Allure files, not the ${files} its ${s.checks} tests make`);
      runs.get(s)!.push(m);
      console.error(`round ${r + 1}/${rounds} ${s.mode} N=${s.n}: ${s.checks} tests, ${m.files} files, CPU ${m.cpu_s.toFixed(2)} s, ${Math.round(m.max_rss_mib)} MiB`);
    }
  }

  const rows: string[][] = [];
  const summary: Partial<Record<Mode, ModeSummary>> = {};
  for (const mode of MODES) {
    const mine = suites.filter((s) => s.mode === mode);
    const cpu = new Map(mine.map((s) => [s.n, spread(runs.get(s)!.map((m) => m.cpu_s))] as const));
    const mib = new Map(mine.map((s) => [s.n, spread(runs.get(s)!.map((m) => m.max_rss_mib))] as const));
    const cpuLine = line(mine.map((s) => [s.n, cpu.get(s.n)!.median]));
    const mibLine = line(mine.map((s) => [s.n, mib.get(s.n)!.median]));
    for (const s of mine) {
      const c: Spread = cpu.get(s.n)!;
      const m: Spread = mib.get(s.n)!;
      rows.push([mode, String(s.n), String(s.checks), `${c.median.toFixed(2)} (${c.min.toFixed(2)}-${c.max.toFixed(2)})`, `${Math.round(m.median)} (${Math.round(m.min)}-${Math.round(m.max)})`]);
    }
    summary[mode] = {
      cpu_ms_per_op: round(cpuLine.slope * 1000),
      cpu_s_fixed: round(cpuLine.at0),
      mib_per_op: round(mibLine.slope, 3),
      mib_fixed: round(mibLine.at0, 0),
      per_cut: Object.fromEntries(mine.map((s) => [s.n, { checks: s.checks, cpu_s: cpu.get(s.n)!, max_rss_mib: mib.get(s.n)! }])),
    };
  }
  console.log(`\nvitest alone (vitest), with allure-vitest (allure), with this build's Allure reporter (suite), for checks that do nothing (median of ${rounds}, min-max)`);
  printTable(['mode', 'N', 'tests', 'CPU s', 'peak MiB'], rows);
  console.log('');
  for (const mode of MODES) {
    const s = summary[mode]!;
    console.log(`${mode}: ${s.cpu_ms_per_op} ms of CPU per operation (+${s.cpu_s_fixed} s); ${s.mib_per_op} MiB per operation (+${s.mib_fixed} MiB)`);
  }
  console.log(`issue 34's targets for the whole run: ${TARGET.cpuMsPerOp} ms per operation (+${TARGET.cpuFixedS} s); ${TARGET.mibPerOp} MiB per operation (+${TARGET.mibFixed} MiB)`);
  const file = writeResult('framework-floor', {
    machine: machine(),
    build,
    settings: { cuts, checks_per_op: perOp, attachments_per_check: attachRate, part_checks: partChecks, workers, concurrency, rounds },
    target: TARGET,
    summary,
  });
  console.log(`\nwritten: ${file}`);
}

main().catch((e: unknown) => {
  console.error(`framework-floor: ${(e as Error).message}`);
  process.exitCode = 1;
});
