/**
 * A run against a remote target with default settings, against the embedded run: the sandbox is started apart
 * (`sandbox --json`, as a user starts one) and the suite runs against it with nothing but the target's settings
 * (its URL, CA, every credential, the webhook receiver's address), so its requests are paced as a remote
 * target's are by default; the embedded run is `run` alone. Pairs are interleaved, each pair in alternating order,
 * so a drift of the machine's speed falls on both. With --gateway R, the same remote run also goes through a
 * token-bucket gateway answering 429 (with Retry-After) beyond R requests/s, and is held to the direct run's
 * checks, statuses and verdict.
 *
 *   npx tsx bench/remote.ts [--pairs 3] [--groups G1,G2] [--seed 20261120] [--gateway 100] [--keep]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gateway } from '../test/helpers/gateway.js';
import { assertRan, benchArgs, ensureBuild, int, printTable, readLatestReport, round, runCli, type RunReport, sec, spread, startSandboxApart, tail, usage, writeResult } from './lib.js';

const USAGE = 'npx tsx bench/remote.ts [--pairs 3] [--groups G1,G2] [--seed N] [--gateway R] [--keep]';
const DEFAULT_SEED = 20261120;

interface Row {
  target: 'remote' | 'embedded' | 'gateway';
  pair: number;
  exit_code: number;
  verdict: string;
  wall_ms: number;
  suites_ms: number;
  requests_sent: number;
  throttling: { responses: number; waited_ms: number } | null;
  /** The console's pacing line. */
  pacing: string;
  /** The last progress line's pacing, when the run printed one (no --quiet; every 5 s in a log). */
  last_progress: string | null;
}

const outcomes = (r: RunReport) => new Map(r.checks.map((c) => [c.id, c.status]));

async function main(): Promise<void> {
  const { values } = benchArgs(USAGE, {
    options: {
      pairs: { type: 'string', default: '3' },
      groups: { type: 'string' },
      seed: { type: 'string', default: String(DEFAULT_SEED) },
      gateway: { type: 'string' },
      keep: { type: 'boolean', default: false },
    },
  });
  const pairs = int(values.pairs) ?? usage(USAGE);
  const seed = int(values.seed, 0) ?? usage(USAGE);
  const gatewayRate = values.gateway === undefined ? undefined : (int(values.gateway) ?? usage(USAGE));

  const build = await ensureBuild();
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-bench-remote-'));
  const sandbox = await startSandboxApart();
  const rows: Row[] = [];
  const reports = new Map<string, RunReport>();
  const run = async (target: Row['target'], pair: number, env: Record<string, string>): Promise<void> => {
    const root = join(dir, `${target}-${pair}`);
    const args = ['run', '--seed', String(seed), '--report-dir', root, ...(values.groups ? ['--groups', values.groups] : [])];
    console.error(`${target} ${pair}: node bin/fsapi-conformance.js ${args.join(' ')}${env['FSAPI_BASE_URL'] ? ` (against ${env['FSAPI_BASE_URL']})` : ''}`);
    const r = await runCli(args, { cwd: dir, env });
    // 6 (inconclusive) is a run that could not verify something: a missing setting, not a slow target.
    if (r.code !== 6) assertRan(r, `${target} run ${pair}`);
    const report = readLatestReport(root);
    reports.set(`${target}-${pair}`, report);
    const progress = r.stderr.split('\n').filter((l) => l.startsWith('progress ')).at(-1);
    rows.push({
      target,
      pair,
      exit_code: r.code!,
      verdict: report.verdict,
      wall_ms: Math.round(r.wall_ms),
      suites_ms: report.run.phases.suites_ms,
      requests_sent: report.run.requests_sent,
      throttling: report.run.throttling ?? null,
      pacing: r.stderr.split('\n').find((l) => l.startsWith('pacing:')) ?? '',
      last_progress: progress ?? null,
    });
    console.error(`${target} ${pair}: ${report.verdict} (exit ${r.code}), ${sec(r.wall_ms)} s wall, suites ${sec(report.run.phases.suites_ms)} s${r.code === 6 ? `\n${tail(r.stderr, 8)}` : ''}`);
  };
  try {
    for (let pair = 1; pair <= pairs; pair++) {
      const order: Row['target'][] = pair % 2 ? ['remote', 'embedded'] : ['embedded', 'remote'];
      for (const target of order) await run(target, pair, target === 'remote' ? sandbox.env : {});
    }
    let gatewayCheck: { limited: number; forwarded: number; same_statuses: boolean; differing: string[] } | undefined;
    if (gatewayRate !== undefined) {
      const burst = Math.max(5, Math.round(gatewayRate / 10));
      const gw = await gateway({ upstream: sandbox.info.base_url, upstreamCa: sandbox.ca, limit: { perSecond: gatewayRate, burst } });
      try {
        const pem = join(dir, 'gateway.pem');
        writeFileSync(pem, gw.cert.cert);
        console.error(`gateway: ${gatewayRate} requests/s (bucket of ${burst}) in front of ${sandbox.info.base_url}, at ${gw.url}`);
        await run('gateway', 1, { ...sandbox.env, FSAPI_BASE_URL: gw.url, FSAPI_CA_FILE: pem });
        const direct = outcomes(reports.get(`remote-${pairs}`)!);
        const through = outcomes(reports.get('gateway-1')!);
        const differing = [...new Set([...direct.keys(), ...through.keys()])].filter((id) => direct.get(id) !== through.get(id)).map((id) => `${id}: ${direct.get(id) ?? 'absent'} -> ${through.get(id) ?? 'absent'}`);
        gatewayCheck = { limited: gw.counts.limited, forwarded: gw.counts.forwarded, same_statuses: differing.length === 0, differing };
      } finally {
        await gw.close();
      }
    }

    const of = (t: Row['target']) => rows.filter((r) => r.target === t);
    const wall = (t: Row['target']) => spread(of(t).map((r) => r.wall_ms));
    const suites = (t: Row['target']) => spread(of(t).map((r) => r.suites_ms));
    const ratios = of('remote').map((r) => r.wall_ms / of('embedded').find((e) => e.pair === r.pair)!.wall_ms);
    const ratio = spread(ratios);
    console.log(`\n${pairs} pair(s), seed ${seed}, groups ${values.groups ?? 'all'}; remote: ${sandbox.info.base_url} (sandbox started apart), default settings`);
    const cells = (x: ReturnType<typeof spread>) => [sec(x.median, 1), sec(x.min, 1), sec(x.max, 1)];
    printTable(
      ['', 'median', 'min', 'max'],
      [
        ['embedded run, wall (s)', ...cells(wall('embedded'))],
        ['  suites phase (s)', ...cells(suites('embedded'))],
        ['remote run, wall (s)', ...cells(wall('remote'))],
        ['  suites phase (s)', ...cells(suites('remote'))],
        ['ratio remote ÷ embedded (wall, per pair)', `${ratio.median.toFixed(2)}×`, `${ratio.min.toFixed(2)}×`, `${ratio.max.toFixed(2)}×`],
        ...(of('gateway').length ? [[`through a ${gatewayRate} req/s gateway, wall (s)`, sec(of('gateway')[0]!.wall_ms, 1), '', '']] : []),
      ],
    );
    for (const r of rows) console.log(`${r.target} ${r.pair}: ${r.verdict}, ${r.requests_sent} requests${r.throttling?.responses ? `, ${r.throttling.responses} answers 429/503, ${sec(r.throttling.waited_ms)} s paused` : ''}${r.last_progress ? `; last progress: ${r.last_progress}` : ''}`);
    console.log(`pacing (remote): ${of('remote')[0]?.pacing ?? ''}`);
    if (gatewayCheck) {
      const g = of('gateway')[0]!;
      console.log(
        `gateway: ${gatewayCheck.limited} answered 429 by the gateway, ${gatewayCheck.forwarded} forwarded; verdict ${g.verdict} (direct: ${of('remote').at(-1)!.verdict}); ` +
          `${gatewayCheck.same_statuses ? 'every check has the direct run’s status' : `${gatewayCheck.differing.length} checks differ: ${gatewayCheck.differing.slice(0, 5).join('; ')}`}`,
      );
    }

    const written = writeResult('remote', {
      seed,
      groups: values.groups ?? 'all',
      build,
      pairs,
      summary: { embedded_wall_ms: wall('embedded'), remote_wall_ms: wall('remote'), embedded_suites_ms: suites('embedded'), remote_suites_ms: suites('remote'), ratio_wall: { median: round(ratio.median), min: round(ratio.min), max: round(ratio.max) } },
      ...(gatewayCheck ? { gateway: { rate: gatewayRate, ...gatewayCheck } } : {}),
      runs: rows,
      ...(values.keep ? { kept: dir } : {}),
    });
    console.log(`\nwritten: ${written}${values.keep ? `\nkept: ${dir}` : ''}`);
    const verdicts = new Set(rows.map((r) => r.verdict));
    if (verdicts.size !== 1 || (gatewayCheck && !gatewayCheck.same_statuses)) process.exitCode = 1;
  } finally {
    await sandbox.stop();
    if (!values.keep) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
