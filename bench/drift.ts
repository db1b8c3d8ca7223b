/**
 * False drift: a clean baseline against clean runs, through a gateway that answers a parallel burst's duplicates
 * in flight with 409 at random (or holds them for the upstream to replay), as a conforming target may either way.
 * The sandbox is started apart and never changes, so every drift finding other than latency is a false one.
 * Each run gets its own suite seed (as a nightly job's would) and its own gateway seed.
 *
 *   npx tsx bench/drift.ts [--runs 10] [--conflict 0.5] [--seed 20261120] [--groups G1,G2] [--keep]
 *   npx tsx bench/drift.ts --from DIR     # judge the reports a --keep left in DIR again with this checkout's drift
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gateway } from '../test/helpers/gateway.js';
import { behaviourDrift } from '../src/regression/drift.js';
import { describeDrift } from '../src/reports/regression-render.js';
import type { DriftFinding } from '../src/results/regression-model.js';
import { benchArgs, ensureBuild, int, printTable, readLatestReport, runCli, type RunReport, startSandboxApart, tail, usage, writeResult } from './lib.js';

const USAGE = 'npx tsx bench/drift.ts [--runs 10] [--conflict 0.5] [--seed N] [--groups G1,G2] [--keep] | --from DIR';
const DEFAULT_SEED = 20261120;

interface Row {
  run: number;
  seed: number;
  exit_code: number | null;
  verdict: string;
  /** Checks that passed in the baseline and do not now (a busy machine's timeouts among them), of which intermittent. */
  newly_failing: number;
  intermittent: number;
  /** The gateway's draws over the run: duplicates answered 409, and held for the upstream's replay. */
  conflicted?: number;
  held?: number;
  /** As the run reported it (the build's drift) and as this checkout judges the same two reports. */
  reported: { other: number; latency: number };
  judged: { other: number; latency: number };
  findings: string[];
}

const split = (fs: readonly DriftFinding[]) => ({ other: fs.filter((f) => f.kind !== 'latency').length, latency: fs.filter((f) => f.kind === 'latency').length });

function judge(run: number, seed: number, baseline: RunReport, report: RunReport, code: number | null): Row {
  const judged = behaviourDrift(baseline, report, report.baseline?.drift?.latency_ratio);
  return {
    run,
    seed,
    exit_code: code,
    verdict: report.verdict,
    newly_failing: report.baseline?.newly_failing.length ?? 0,
    intermittent: report.baseline?.intermittent?.length ?? 0,
    reported: split(report.baseline?.drift?.findings ?? []),
    judged: split(judged.findings),
    findings: judged.findings.filter((f) => f.kind !== 'latency').map(describeDrift),
  };
}

function print(rows: Row[]): void {
  printTable(
    ['run', 'seed', 'exit', 'verdict', 'newly failing (intermittent)', '409 / held', 'reported drift (other, latency)', 'judged now (other, latency)'],
    rows.map((r) => [String(r.run), String(r.seed), String(r.exit_code ?? '-'), r.verdict, `${r.newly_failing} (${r.intermittent})`, r.conflicted === undefined ? '-' : `${r.conflicted} / ${r.held}`, `${r.reported.other}, ${r.reported.latency}`, `${r.judged.other}, ${r.judged.latency}`]),
  );
  const sum = (f: (r: Row) => number) => rows.reduce((n, r) => n + f(r), 0);
  console.log(`\n${rows.length} runs: ${sum((r) => r.reported.other)} drift findings other than latency as reported, ${sum((r) => r.judged.other)} as this checkout judges them (${sum((r) => r.judged.latency)} latency)`);
  for (const r of rows) for (const f of r.findings) console.log(`  run ${r.run}: ${f}`);
}

async function fromKept(dir: string): Promise<void> {
  const baseline = readLatestReport(join(dir, 'baseline'));
  const runs = readdirSync(dir).filter((d) => /^run-\d+$/.test(d)).sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)));
  const rows = runs.map((d) => {
    const r = readLatestReport(join(dir, d));
    return judge(Number(d.slice(4)), r.run.seed, baseline, r, null);
  });
  print(rows);
}

async function main(): Promise<void> {
  const { values } = benchArgs(USAGE, {
    options: {
      runs: { type: 'string', default: '10' },
      conflict: { type: 'string', default: '0.5' },
      seed: { type: 'string', default: String(DEFAULT_SEED) },
      groups: { type: 'string' },
      keep: { type: 'boolean', default: false },
      from: { type: 'string' },
    },
  });
  if (values.from) {
    if (!existsSync(join(values.from, 'baseline'))) usage(`${values.from} holds no baseline/ of a kept bench/drift.ts run\n${USAGE}`);
    return fromKept(values.from);
  }
  const runs = int(values.runs) ?? usage(USAGE);
  const seed = int(values.seed, 0) ?? usage(USAGE);
  const conflict = Number(values.conflict);
  if (!(conflict >= 0 && conflict <= 1)) usage(USAGE);

  const build = await ensureBuild();
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-bench-drift-'));
  const sandbox = await startSandboxApart();
  const rows: Row[] = [];
  try {
    const once = async (name: string, runSeed: number, gatewaySeed: number, extra: string[]) => {
      const gw = await gateway({ upstream: sandbox.info.base_url, upstreamCa: sandbox.ca, inFlight: { conflict, seed: gatewaySeed } });
      try {
        const pem = join(dir, `${name}.pem`);
        writeFileSync(pem, gw.cert.cert);
        const args = ['run', '--seed', String(runSeed), '--report-dir', join(dir, name), ...(values.groups ? ['--groups', values.groups] : []), ...extra];
        // No pacing: a burst paced apart never has a duplicate in flight.
        const r = await runCli(args, { cwd: dir, env: { ...sandbox.env, FSAPI_BASE_URL: gw.url, FSAPI_CA_FILE: pem, FSAPI_RATE_LIMIT: '0' } });
        // A verdict, whatever it is (with a baseline: 4 regression, 7 intermittent); anything else is a run that broke.
        if (![0, 1, 4, 6, 7].includes(r.code ?? -1)) throw new Error(`${name} exited ${r.code ?? r.signal}:\n${tail(r.stderr)}`);
        console.error(`${name}: exit ${r.code}; the gateway answered ${gw.counts.duplicatesConflicted} duplicates in flight 409 and held ${gw.counts.duplicatesHeld}`);
        return { code: r.code, counts: { ...gw.counts } };
      } finally {
        await gw.close();
      }
    };
    await once('baseline', seed, seed, []);
    const baseline = readLatestReport(join(dir, 'baseline'));
    for (let i = 1; i <= runs; i++) {
      const { code, counts } = await once(`run-${i}`, seed + i, seed + i, ['--baseline', join(dir, 'baseline', 'latest')]);
      rows.push({ ...judge(i, seed + i, baseline, readLatestReport(join(dir, `run-${i}`)), code), conflicted: counts.duplicatesConflicted, held: counts.duplicatesHeld });
    }
    print(rows);
    const written = writeResult('drift', { seed, conflict, groups: values.groups ?? 'all', build, runs: rows, ...(values.keep ? { kept: dir } : {}) });
    console.log(`\nwritten: ${written}${values.keep ? `\nkept: ${dir} (judge again with --from ${dir})` : ''}`);
    if (rows.some((r) => r.judged.other > 0)) process.exitCode = 1;
  } finally {
    await sandbox.stop();
    if (!values.keep) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
