/**
 * Throughput of the reference sandbox, as a client sees it: the sandbox runs in its own process
 * (`fsapi-conformance sandbox --json`), and this process drives a fixed mix of requests over undici keep-alive
 * connections at each concurrency level, then prints requests/second and latency percentiles per target and
 * writes them to bench/results/sandbox-throughput.json.
 *
 *   npx tsx bench/sandbox-throughput.ts [--requests N] [--concurrency 1,16] [--rounds N] [--warmup N] [--targets sandbox,sandbox-http,prism]
 *
 * Targets are rows: the sandbox over HTTPS, the same sandbox over plain HTTP (like for like with Prism), and Prism's
 * mock of spec/openapi.yaml (run on demand with npx). Prism keeps no
 * state and accepts any key, so it is compared with the sandbox on the kinds it answers alike (reads and
 * creates), each in a pass of its own: the peer ratio is sandbox req/s ÷ Prism req/s.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { benchArgs, ensureBuild, int, intList, printTable, round, usage, writeResult } from './lib.js';
import { prismTarget, sandboxTarget, TargetUnavailable, type Endpoint, type Kind, type Target } from './throughput-targets.js';

const USAGE = 'npx tsx bench/sandbox-throughput.ts [--requests N] [--concurrency 1,16] [--rounds N] [--warmup N] [--targets sandbox,sandbox-http,prism]';

/** The mix, by request index: 40% reads, 25% creates, 20% idempotent replays, 15% requests with a bad key. */
const MIX: { kind: Kind; share: number; expect: number }[] = [
  { kind: 'read', share: 8, expect: 200 },
  { kind: 'create', share: 5, expect: 201 },
  { kind: 'replay', share: 4, expect: 201 },
  { kind: 'unauthorized', share: 3, expect: 401 },
];
type Workload = 'mix' | 'read' | 'create';
/** The mixed wheel, and the single-kind wheels of the peer comparison. */
const WHEELS: Record<Workload, { kind: Kind; expect: number }[]> = {
  mix: MIX.flatMap((m) => Array.from({ length: m.share }, () => m)),
  read: [MIX[0]!],
  create: [MIX[1]!],
};

function customer(n: number): string {
  return JSON.stringify({
    first_name: 'Ada',
    last_name: `Bench${n}`,
    email: `bench.${n}@example.com`,
    phone: '+14155550123',
    type: 'individual',
    date_of_birth: '1990-12-10',
    address: { address_line1: '12 Analytical Way', city: 'San Francisco', country: 'US', postal_code: '94105', state: 'US-CA' },
  });
}

interface Level {
  target: string;
  workload: Workload;
  concurrency: number;
  requests: number;
  duration_ms: number;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  /** Answers of a checked kind with another status than expected (for a median row: over all its passes). */
  unexpected: number;
  /** For a median row: the rate of each of its passes, in the order they ran. */
  rounds_rps?: number[];
  /** Answers of kinds this target is not held to (Prism's replays and bad keys; for a median row: over all its passes). */
  unchecked: number;
  by_kind: Partial<Record<Kind, { count: number; p50_ms: number; p99_ms: number; statuses: Record<string, number> }>>;
}

interface Skipped {
  target: string;
  reason: string;
}

/** The pass with the median rate (the lower middle one for an even count), with every pass's rate alongside. */
function medianPass(passes: Level[]): Level {
  const sorted = [...passes].sort((a, b) => a.requests_per_second - b.requests_per_second);
  const mid = sorted[Math.floor((sorted.length - 1) / 2)]!;
  const sum = (f: (p: Level) => number) => passes.reduce((n, p) => n + f(p), 0);
  return { ...mid, rounds_rps: passes.map((p) => p.requests_per_second), unexpected: sum((p) => p.unexpected), unchecked: sum((p) => p.unchecked) };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function drive(target: Target, ep: Endpoint, workload: Workload, concurrency: number, total: number): Promise<Level> {
  const wheel = WHEELS[workload];
  const agent = new Agent({ connect: ep.ca ? { ca: ep.ca } : {}, connections: concurrency, keepAliveTimeout: 60_000, pipelining: 1 });
  const auth = { 'api-key': ep.apiKey, 'x-tenant-id': ep.tenantId };
  const send = async (kind: Kind, i: number, replays: { key: string; body: string }[]): Promise<number> => {
    const url = `${ep.baseUrl}${kind === 'read' || kind === 'unauthorized' ? 'accounts' : 'customers'}`;
    if (kind === 'read') return (await call(url, 'GET', auth)).status;
    if (kind === 'unauthorized') return (await call(url, 'GET', { ...auth, 'api-key': 'sk_sandbox_bench_not_a_key' })).status;
    const { key, body } = kind === 'create' ? { key: randomUUID(), body: customer(i) } : replays[i % replays.length]!;
    return (await call(url, 'POST', { ...auth, 'content-type': 'application/json', 'idempotency-key': key }, body)).status;
  };
  const call = async (url: string, method: 'GET' | 'POST', headers: Record<string, string>, body?: string): Promise<{ status: number }> => {
    const res = await request(url, { method, headers, body, dispatcher: agent });
    await res.body.dump();
    return { status: res.statusCode };
  };
  try {
    // Keys to replay, and a warm-up on every connection (TLS handshakes are not what is measured).
    const replays = Array.from({ length: 20 }, (_, n) => ({ key: randomUUID(), body: customer(1_000_000 + n) }));
    for (const r of replays) await call(`${ep.baseUrl}customers`, 'POST', { ...auth, 'content-type': 'application/json', 'idempotency-key': r.key }, r.body);
    await Promise.all(Array.from({ length: concurrency * 4 }, (_, n) => send('read', n, replays)));

    const latencies: Record<Kind, number[]> = { read: [], create: [], replay: [], unauthorized: [] };
    const statuses: Record<Kind, Record<string, number>> = { read: {}, create: {}, replay: {}, unauthorized: {} };
    let unexpected = 0;
    let unchecked = 0;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let i = next++; i < total; i = next++) {
          const m = wheel[i % wheel.length]!;
          const t0 = performance.now();
          const status = await send(m.kind, i, replays);
          latencies[m.kind].push(performance.now() - t0);
          statuses[m.kind][status] = (statuses[m.kind][status] ?? 0) + 1;
          if (!target.checked.includes(m.kind)) unchecked++;
          else if (status !== m.expect) unexpected++;
        }
      }),
    );
    const duration = performance.now() - started;
    const all = Object.values(latencies).flat().sort((a, b) => a - b);
    const byKind: Level['by_kind'] = {};
    for (const k of Object.keys(latencies) as Kind[]) {
      const s = [...latencies[k]].sort((a, b) => a - b);
      if (s.length) byKind[k] = { count: s.length, p50_ms: round(percentile(s, 50)), p99_ms: round(percentile(s, 99)), statuses: statuses[k] };
    }
    return {
      target: target.name,
      workload,
      concurrency,
      requests: total,
      duration_ms: Math.round(duration),
      requests_per_second: Math.round((total / duration) * 1000),
      p50_ms: round(percentile(all, 50)),
      p99_ms: round(percentile(all, 99)),
      unexpected,
      unchecked,
      by_kind: byKind,
    };
  } finally {
    await agent.close();
  }
}

async function main(): Promise<void> {
  const { values } = benchArgs(USAGE, {
    options: {
      requests: { type: 'string', default: '2000' },
      concurrency: { type: 'string', default: '1,16' },
      targets: { type: 'string', default: 'sandbox,sandbox-http,prism' },
      rounds: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '4000' },
    },
  });
  const total = int(values.requests) ?? usage(USAGE);
  const levels = intList(values.concurrency) ?? usage(USAGE);
  const rounds = int(values.rounds) ?? usage(USAGE);
  const warmup = int(values.warmup, 0) ?? usage(USAGE);
  const names = values.targets.split(',').map((s) => s.trim());
  if (names.some((n) => n !== 'sandbox' && n !== 'sandbox-http' && n !== 'prism')) usage(USAGE);

  const build = await ensureBuild();
  const sandboxes = [...(names.includes('sandbox') ? [sandboxTarget('https')] : []), ...(names.includes('sandbox-http') ? [sandboxTarget('http')] : [])];
  const prism = names.includes('prism') ? prismTarget() : undefined;
  const targets: Target[] = [...sandboxes, ...(prism ? [prism] : [])];
  const peer = !!prism && sandboxes.length > 0;
  const results: Level[] = [];
  const skipped: Skipped[] = [];
  for (const target of targets) {
    let ep: Endpoint;
    try {
      console.error(`${target.name}: starting`);
      ep = await target.start();
    } catch (e) {
      if (!(e instanceof TargetUnavailable)) throw e;
      skipped.push({ target: target.name, reason: e.message });
      console.error(`${target.name}: skipped: ${e.message}`);
      continue;
    }
    try {
      // Every target is a JavaScript server: their first few thousand requests run in the interpreter, at a third
      // of their later rate (seen on the sandbox: 2,800 -> 8,000 req/s over the first 12,000). The warm-up is
      // the mix at the highest concurrency, unmeasured, the same for every target.
      if (warmup > 0) {
        console.error(`${target.name}: warm-up, ${warmup} requests of the mix at concurrency ${Math.max(...levels)}`);
        await drive(target, ep, 'mix', Math.max(...levels), warmup);
      }
      // Rounds interleave the passes, so a drift of the machine's speed spreads over all of them; a row is the median.
      const passes: Level[] = [];
      for (let r = 1; r <= rounds; r++) {
        for (const c of levels) {
          passes.push(await drive(target, ep, 'mix', c, total));
          // The peer comparison: each kind both targets answer alike, alone.
          if (peer) for (const w of ['read', 'create'] as const) passes.push(await drive(target, ep, w, c, total));
        }
      }
      for (const w of ['mix', 'read', 'create'] as const) {
        for (const c of levels) {
          const same = passes.filter((p) => p.workload === w && p.concurrency === c);
          if (same.length) results.push(medianPass(same));
        }
      }
    } finally {
      await target.stop();
    }
  }

  const mixRows = results.filter((r) => r.workload === 'mix');
  console.log(`mix per ${WHEELS.mix.length} requests: ${MIX.map((m) => `${m.share} ${m.kind}`).join(', ')}; each row the median of ${rounds} passes (by req/s), after a warm-up of ${warmup}`);
  printTable(
    ['target', 'concurrency', 'requests', 'req/s', 'passes (req/s)', 'p50 ms', 'p99 ms', 'unexpected'],
    mixRows.map((r) => [r.target, String(r.concurrency), String(r.requests), String(r.requests_per_second), (r.rounds_rps ?? []).join(' '), r.p50_ms.toFixed(2), r.p99_ms.toFixed(2), r.unchecked ? `${r.unexpected} (+${r.unchecked} not checked)` : String(r.unexpected)]),
  );
  for (const s of skipped) console.log(`${s.target}: skipped (${s.reason})`);

  const peers: { target: string; transport: 'https' | 'http'; kind: Workload; concurrency: number; sandbox_rps: number; prism_rps: number; ratio: number }[] = [];
  if (peer) {
    for (const a of sandboxes) {
      for (const kind of ['mix', 'read', 'create'] as const) {
        for (const c of levels) {
          const x = results.find((r) => r.target === a.name && r.workload === kind && r.concurrency === c);
          const y = results.find((r) => r.target === prism.name && r.workload === kind && r.concurrency === c);
          if (x && y) peers.push({ target: a.name, transport: a.transport, kind, concurrency: c, sandbox_rps: x.requests_per_second, prism_rps: y.requests_per_second, ratio: round(x.requests_per_second / y.requests_per_second) });
        }
      }
    }
    if (peers.length) {
      console.log(`\npeer ratio (sandbox req/s ÷ ${prism.name} req/s; medians of ${rounds} passes of ${total} requests; mix as above, read and create one kind per pass; ${prism.name} over plain HTTP; the sandbox over HTTPS, as it serves the suite, and over plain HTTP, like for like)`);
      printTable(
        ['kind', 'concurrency', 'sandbox over', 'sandbox', prism.name, 'ratio'],
        peers.map((p) => [p.kind, String(p.concurrency), p.transport === 'https' ? 'HTTPS' : 'plain HTTP', String(p.sandbox_rps), String(p.prism_rps), p.ratio.toFixed(2)]),
      );
    }
  }

  const written = writeResult('sandbox-throughput', { build, mix: MIX, rounds, warmup, results, peer_ratios: peers, skipped });
  console.log(`\nwritten: ${written}`);
  if (results.some((r) => r.unexpected > 0)) process.exitCode = 1;
}

await main();
