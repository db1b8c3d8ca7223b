/**
 * A whole conformance run as a user starts it (`node bin/fsapi-conformance.js run`, embedded sandbox), N times,
 * each in its own child process with a fresh report directory: median, min and max of the wall time, of each
 * phase (start-up, preflight, suites from conformance.json; report writing from the console's "written in X s"),
 * of the child's CPU time, and the checks run and requests sent.
 *
 *   npx tsx bench/full-run.ts [--runs 5] [--groups customers,accounts] [--seed 20261120] [--keep]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertRan, benchArgs, ensureBuild, int, printTable, readLatestReport, reportWritingMs, round, runCli, sec, spread, type Spread, usage, writeResult } from './lib.js';

const USAGE = 'npx tsx bench/full-run.ts [--runs 5] [--groups G1,G2] [--seed N] [--keep]';
const DEFAULT_SEED = 20261120;

interface RunRow {
  run: number;
  run_id: string;
  exit_code: number;
  verdict: string;
  wall_ms: number;
  startup_ms: number;
  preflight_ms: number;
  suites_ms: number;
  /** Parsed from "written in X s" (0.1 s resolution). */
  reports_ms: number | null;
  /** Wall time outside runConformance: node start, loading the CLI, exit. */
  outside_ms: number;
  cpu_ms: number | null;
  max_rss_mb: number | null;
  checks: number;
  requests_sent: number;
  report_dir?: string;
}

async function main(): Promise<void> {
  const { values } = benchArgs(USAGE, {
    options: {
      runs: { type: 'string', default: '5' },
      groups: { type: 'string' },
      seed: { type: 'string', default: String(DEFAULT_SEED) },
      keep: { type: 'boolean', default: false },
    },
  });
  const runs = int(values.runs) ?? usage(USAGE);
  const seed = int(values.seed, 0) ?? usage(USAGE);

  const build = await ensureBuild();
  const rows: RunRow[] = [];
  const made: string[] = [];
  for (let i = 1; i <= runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-bench-full-'));
    const reportRoot = join(dir, 'reports');
    try {
      const args = ['run', '--seed', String(seed), '--report-dir', reportRoot, ...(values.groups ? ['--groups', values.groups] : [])];
      console.error(`run ${i}/${runs}: node bin/fsapi-conformance.js ${args.join(' ')}`);
      const r = await runCli(args, { cwd: dir, cpu: true });
      assertRan(r, `run ${i}`);
      const report = readLatestReport(reportRoot);
      const reportsMs = reportWritingMs(r.stdout);
      const p = report.run.phases;
      rows.push({
        run: i,
        run_id: report.run.id,
        exit_code: r.code!,
        verdict: report.verdict,
        wall_ms: Math.round(r.wall_ms),
        startup_ms: p.startup_ms,
        preflight_ms: p.preflight_ms,
        suites_ms: p.suites_ms,
        reports_ms: reportsMs ?? null,
        outside_ms: Math.round(r.wall_ms - report.run.duration_ms - (reportsMs ?? 0)),
        cpu_ms: r.cpu ? Math.round(r.cpu.user_ms + r.cpu.system_ms) : null,
        max_rss_mb: r.cpu ? round(r.cpu.max_rss_mb, 1) : null,
        checks: report.counts.by_status.total,
        requests_sent: report.run.requests_sent,
        ...(values.keep ? { report_dir: dir } : {}),
      });
      console.error(`run ${i}/${runs}: ${report.verdict}, ${report.counts.by_status.total} checks, ${sec(r.wall_ms)} s wall`);
    } catch (e) {
      if (!values.keep) rmSync(dir, { recursive: true, force: true });
      throw e;
    }
    made.push(dir);
  }
  // Deleted after the last run, not between runs: a run's ~2600 report files deleted just before the next run
  // starts slow that run's own report writing (the disk still commits the deletion), which a user running the
  // suite does not meet.
  if (!values.keep) for (const d of made) rmSync(d, { recursive: true, force: true });

  const pick = (f: (r: RunRow) => number | null): Spread => spread(rows.map(f).filter((x): x is number => x !== null));
  const summary = {
    wall_ms: pick((r) => r.wall_ms),
    startup_ms: pick((r) => r.startup_ms),
    preflight_ms: pick((r) => r.preflight_ms),
    suites_ms: pick((r) => r.suites_ms),
    reports_ms: pick((r) => r.reports_ms),
    outside_ms: pick((r) => r.outside_ms),
    cpu_ms: pick((r) => r.cpu_ms),
    max_rss_mb: pick((r) => r.max_rss_mb),
    checks: pick((r) => r.checks),
    requests_sent: pick((r) => r.requests_sent),
  };

  console.log(`\n${runs} run(s), seed ${seed}, groups ${values.groups ?? 'all'}; build ${build === 'current' ? 'was current' : 'rebuilt first'}`);
  const s3 = (x: Spread, f: (n: number) => string) => [f(x.median), f(x.min), f(x.max)];
  const seconds = (n: number) => sec(n, 2);
  const whole = (n: number) => (Number.isNaN(n) ? '-' : String(Math.round(n)));
  printTable(
    ['', 'median', 'min', 'max'],
    [
      ['wall (s)', ...s3(summary.wall_ms, seconds)],
      ['  start-up (s)', ...s3(summary.startup_ms, seconds)],
      ['  preflight (s)', ...s3(summary.preflight_ms, seconds)],
      ['  suites (s)', ...s3(summary.suites_ms, seconds)],
      ['  report writing (s)', ...s3(summary.reports_ms, seconds)],
      ['  node start, CLI load, exit (s)', ...s3(summary.outside_ms, seconds)],
      ['CPU, user+system (s)', ...s3(summary.cpu_ms, seconds)],
      ['peak RSS (MB)', ...s3(summary.max_rss_mb, whole)],
      ['checks', ...s3(summary.checks, whole)],
      ['requests sent', ...s3(summary.requests_sent, whole)],
    ],
  );
  const verdicts = [...new Set(rows.map((r) => r.verdict))];
  console.log(`verdicts: ${rows.map((r) => r.verdict).join(', ')}`);
  if (values.keep) for (const r of rows) console.log(`kept run ${r.run}: ${r.report_dir}`);

  const written = writeResult('full-run', { command: 'node bin/fsapi-conformance.js run', seed, groups: values.groups ?? 'all', build, summary, runs: rows });
  console.log(`\nwritten: ${written}`);
  // Against the embedded reference sandbox every run should be conformant; anything else is a broken measurement.
  if (verdicts.length !== 1 || verdicts[0] !== 'conformant') {
    console.error('not every run was conformant: the figures are not those of a normal run');
    process.exitCode = 1;
  }
}

await main();
