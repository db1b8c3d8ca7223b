/**
 * Throughput of the reference sandbox, as a client sees it: the sandbox runs in its own process
 * (`fsapi-conformance sandbox --json`), and this process drives a fixed mix of requests over undici keep-alive
 * connections at each concurrency level, then prints requests/second and latency percentiles per target and
 * writes them to bench/results/sandbox-throughput.json.
 *
 *   npx tsx bench/sandbox-throughput.ts [--requests N] [--concurrency 1,16]
 *
 * Targets are rows: another one (Prism's mock of spec/openapi.yaml, say) is a `Target` that starts, says where it
 * answers and stops; the workload and the report stay as they are.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';

const ROOT = join(import.meta.dirname, '..');
const RESULTS = join(ROOT, 'bench', 'results', 'sandbox-throughput.json');

/** Where a target answers and with which credentials. */
interface Endpoint {
  baseUrl: string;
  /** PEM to trust, for a target with its own certificate. */
  ca?: string;
  apiKey: string;
  tenantId: string;
}

interface Target {
  name: string;
  start(): Promise<Endpoint>;
  stop(): Promise<void>;
}

/** The embedded sandbox, started as the CLI starts it, in a child process. */
function sandboxTarget(): Target {
  let child: ChildProcess | undefined;
  return {
    name: 'fsapi sandbox',
    async start() {
      child = spawn(process.execPath, [join(ROOT, 'bin', 'fsapi-conformance.js'), 'sandbox', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
      const proc = child;
      let err = '';
      proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        proc.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const i = out.indexOf('\n');
          if (i >= 0) resolve(out.slice(0, i));
        });
        proc.once('exit', (code) => reject(new Error(`the sandbox exited (${code}) before it served: ${err.trim()}`)));
      });
      const info = JSON.parse(line) as { base_url: string; ca_file: string; tenants: { tenant_id: string; secret_key: string }[] };
      return { baseUrl: info.base_url, ca: readFileSync(info.ca_file, 'utf8'), apiKey: info.tenants[0]!.secret_key, tenantId: info.tenants[0]!.tenant_id };
    },
    async stop() {
      const proc = child;
      if (!proc || proc.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

type Kind = 'read' | 'create' | 'replay' | 'unauthorized';

/** The mix, by request index: 40% reads, 25% creates, 20% idempotent replays, 15% requests with a bad key. */
const MIX: { kind: Kind; share: number; expect: number }[] = [
  { kind: 'read', share: 8, expect: 200 },
  { kind: 'create', share: 5, expect: 201 },
  { kind: 'replay', share: 4, expect: 201 },
  { kind: 'unauthorized', share: 3, expect: 401 },
];
const WHEEL = MIX.flatMap((m) => Array.from({ length: m.share }, () => m));

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
  concurrency: number;
  requests: number;
  duration_ms: number;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  unexpected: number;
  by_kind: Record<Kind, { count: number; p50_ms: number; p99_ms: number }>;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (n: number): number => Math.round(n * 100) / 100;

async function drive(target: string, ep: Endpoint, concurrency: number, total: number): Promise<Level> {
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
    let unexpected = 0;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let i = next++; i < total; i = next++) {
          const m = WHEEL[i % WHEEL.length]!;
          const t0 = performance.now();
          const status = await send(m.kind, i, replays);
          latencies[m.kind].push(performance.now() - t0);
          if (status !== m.expect) unexpected++;
        }
      }),
    );
    const duration = performance.now() - started;
    const all = Object.values(latencies).flat().sort((a, b) => a - b);
    const byKind = Object.fromEntries(
      (Object.keys(latencies) as Kind[]).map((k) => {
        const s = [...latencies[k]].sort((a, b) => a - b);
        return [k, { count: s.length, p50_ms: round(percentile(s, 50)), p99_ms: round(percentile(s, 99)) }];
      }),
    ) as Level['by_kind'];
    return {
      target,
      concurrency,
      requests: total,
      duration_ms: Math.round(duration),
      requests_per_second: Math.round((total / duration) * 1000),
      p50_ms: round(percentile(all, 50)),
      p99_ms: round(percentile(all, 99)),
      unexpected,
      by_kind: byKind,
    };
  } finally {
    await agent.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { requests: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '1,16' } } });
  const total = Number(values.requests);
  const levels = values.concurrency.split(',').map(Number);
  if (!Number.isInteger(total) || total < 1 || levels.some((c) => !Number.isInteger(c) || c < 1)) {
    console.error('usage: npx tsx bench/sandbox-throughput.ts [--requests N] [--concurrency 1,16]');
    process.exitCode = 2;
    return;
  }
  const targets: Target[] = [sandboxTarget()];
  const results: Level[] = [];
  for (const target of targets) {
    const ep = await target.start();
    try {
      for (const c of levels) results.push(await drive(target.name, ep, c, total));
    } finally {
      await target.stop();
    }
  }

  const head = ['target', 'concurrency', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'unexpected'];
  const rows = results.map((r) => [r.target, String(r.concurrency), String(r.requests), String(r.requests_per_second), r.p50_ms.toFixed(2), r.p99_ms.toFixed(2), String(r.unexpected)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`mix per ${WHEEL.length} requests: ${MIX.map((m) => `${m.share} ${m.kind}`).join(', ')}`);
  console.log(line(head));
  for (const r of rows) console.log(line(r));

  mkdirSync(dirname(RESULTS), { recursive: true });
  const report = {
    generated_at: new Date().toISOString(),
    node: process.version,
    cpus: availableParallelism(),
    cpu_model: cpus()[0]?.model ?? 'unknown',
    mix: MIX,
    results,
  };
  writeFileSync(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nwritten: ${RESULTS.slice(ROOT.length + 1)}`);
  if (results.some((r) => r.unexpected > 0)) process.exitCode = 1;
}

await main();
