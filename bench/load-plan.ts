/**
 * What a large vendor document costs. (a) Load and plan: the document loaded as a run loads it (loadCatalogue), the
 * first time (no parsed-document cache: a fresh temporary directory) and again (cached, as every worker of a run
 * loads it), then every check of every suite planned; each in a child process, for its peak RSS and CPU time.
 * (b) The run's cost per operation: the document cut to its first N operations (components kept whole; past its own
 * operations, made larger by repeating them under renamed paths), each cut run with `run --spec` against a loopback
 * HTTPS stub that answers every request from the document, for requests, checks, CPU and peak memory against N.
 *
 * `--against DIR` measures another checkout's compiled build (e.g. main's, built in a copy) the same way,
 * interleaved with this one's, run for run: this machine's speed drifts by a third within an hour.
 *
 * `--profile DIR` writes a CPU profile (node --cpu-prof) of every thread of every run there, to read where the time
 * goes; with `--heap-profile`, a sampling heap profile (node --heap-prof: what is allocated and still held at exit).
 *
 *   npx tsx bench/load-plan.ts --spec FILE [--binding FILE] [--repeat 3] [--cuts 50,100,200,400 [--run-repeat 1] | --no-run] [--against DIR] [--seed N] [--timeout-ms MS] [--part-checks N] [--keep] [--profile DIR [--heap-profile]]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { httpsServer, type Cert, type TestServer } from '../test/helpers/servers.js';
import { assertRan, atExit, benchArgs, childEnv, ensureBuild, int, intList, nodeChildOutput, printTable, readLatestReport, ROOT, round, runCli, sec, spread, usage, writeResult } from './lib.js';

const USAGE = 'npx tsx bench/load-plan.ts --spec FILE [--binding FILE] [--repeat 3] [--cuts 50,100,200,400 [--run-repeat 1] | --no-run] [--against DIR] [--seed N] [--timeout-ms MS] [--part-checks N] [--keep] [--profile DIR [--heap-profile]]';
const DEFAULT_SEED = 20261120;
const CHILD = join(ROOT, 'bench', 'load-plan-child.mjs');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const API_KEY = 'sk_test_bench_load_plan';

const { values: args } = benchArgs(USAGE, {
  options: {
    spec: { type: 'string' },
    binding: { type: 'string' },
    repeat: { type: 'string', default: '3' },
    cuts: { type: 'string', default: '50,100,200,400' },
    'run-repeat': { type: 'string', default: '1' },
    'no-run': { type: 'boolean', default: false },
    against: { type: 'string' },
    seed: { type: 'string', default: String(DEFAULT_SEED) },
    'timeout-ms': { type: 'string' },
    'part-checks': { type: 'string' },
    keep: { type: 'boolean', default: false },
    profile: { type: 'string' },
    'heap-profile': { type: 'boolean', default: false },
  },
});
if (!args.spec) usage(USAGE);
const specPath = resolve(args.spec);
const bindingPath = args.binding ? resolve(args.binding) : undefined;
const repeat = int(args.repeat) ?? usage(USAGE);
const cuts = args['no-run'] ? [] : (intList(args.cuts) ?? usage(USAGE));
const runRepeat = int(args['run-repeat']) ?? usage(USAGE);
// The runs' per-request time limit (FSAPI_TIMEOUT_MS; the CLI's default when not given): a short one shows how the
// suite judges time limits on a loaded machine.
const timeoutMs = args['timeout-ms'] === undefined ? undefined : (int(args['timeout-ms']) ?? usage(USAGE));
// The runs' FSAPI_PART_CHECKS (the CLI's default when not given; 0: the unbound suite in one file).
const partChecks = args['part-checks'] === undefined ? undefined : /^\d+$/.test(args['part-checks']) ? Number(args['part-checks']) : usage(USAGE);
const seed = int(args.seed, 0) ?? usage(USAGE);
const builds = [{ name: 'this', root: ROOT }, ...(args.against ? [{ name: 'against', root: resolve(args.against) }] : [])];
for (const b of builds) if (!existsSync(join(b.root, 'dist', 'src', 'catalogue', 'index.js'))) usage(`${USAGE}\n(${b.root} has no compiled build: run \`npm run build\` there)`);

const work = mkdtempSync(join(tmpdir(), 'fsapi-bench-load-plan-'));
// Removed however the script ends (a run that did not run through, an interrupt), unless --keep asks for it.
if (!args.keep) atExit(() => rmSync(work, { recursive: true, force: true }));

type JsonObject = Record<string, unknown>;
const isObj = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

// -----------------------------------------------------------------------------------------------------------------
// (a) Load and plan

interface ChildFigures {
  load_ms: number;
  plan_ms: number;
  operations: number;
  warnings: number;
  checks: number;
  cpu_ms: number;
  max_rss_mb: number;
}

async function child(root: string, cacheDir: string): Promise<ChildFigures> {
  const out = await nodeChildOutput([CHILD, root, specPath, ...(bindingPath ? [bindingPath] : [])], `loading ${specPath} with ${root}`, { env: childEnv({ TMPDIR: cacheDir }) });
  return JSON.parse(out.trim().split('\n').pop()!) as ChildFigures;
}

interface LoadRound {
  build: string;
  first: ChildFigures;
  cached: ChildFigures;
}

async function loadAndPlan(): Promise<LoadRound[]> {
  const rounds: LoadRound[] = [];
  for (let i = 0; i < repeat; i++) {
    for (const b of i % 2 ? [...builds].reverse() : builds) {
      // A fresh temporary directory: no parsed or prepared document cached for the first load; the second finds them.
      const cacheDir = mkdtempSync(join(work, 'tmp-'));
      const first = await child(b.root, cacheDir);
      const cached = await child(b.root, cacheDir);
      rmSync(cacheDir, { recursive: true, force: true });
      rounds.push({ build: b.name, first, cached });
      console.error(`load ${b.name} #${i + 1}: first ${sec(first.load_ms, 2)} s (${Math.round(first.max_rss_mb)} MiB), cached ${sec(cached.load_ms, 2)} s, plan ${sec(cached.plan_ms, 2)} s`);
    }
  }
  return rounds;
}

// -----------------------------------------------------------------------------------------------------------------
// (b) The run's cost per operation

/**
 * The document with only its first `n` operations (in document order); components and everything else kept. Past
 * the document's own operations it is made larger by repetition: copy k of every path is served under `/repK` with
 * each operationId suffixed `_repK` (issue 34's synthetic document: the same schemas, the same work per operation,
 * so what grows faster than N is the suite's doing).
 */
function cutDocument(doc: JsonObject, n: number): { doc: JsonObject; operations: number; copies: number } {
  const paths: JsonObject = {};
  const source = Object.entries(isObj(doc['paths']) ? doc['paths'] : {});
  let kept = 0;
  let copies = 0;
  for (let copy = 1; kept < n; copy++) {
    const before = kept;
    for (const [p, item] of source) {
      if (!isObj(item) || kept >= n) continue;
      const out: JsonObject = {};
      for (const [k, v] of Object.entries(item)) {
        if (!(METHODS as readonly string[]).includes(k)) out[k] = v;
        else if (kept < n) {
          out[k] = copy === 1 || !isObj(v) || typeof v['operationId'] !== 'string' ? v : { ...v, operationId: `${v['operationId']}_rep${copy}` };
          kept++;
        }
      }
      paths[copy === 1 ? p : `/rep${copy}${p}`] = out;
    }
    if (kept === before) break; // a document without operations
    copies = copy;
  }
  return { doc: { ...doc, info: { ...(isObj(doc['info']) ? doc['info'] : {}), 'x-bench-cut': n, ...(copies > 1 ? { 'x-bench-copies': copies } : {}) }, paths }, operations: kept, copies };
}

interface StubOperation {
  method: string;
  pattern: RegExp;
  status: number;
  example: unknown;
  hasBody: boolean;
}

/**
 * A loopback HTTPS stub of the document: 401 without the key, 404 off its paths, 405 off its methods, else the
 * operation's first documented 2xx with its first JSON example (or {}). It judges nothing; it only answers, the
 * same way at every N, so that what grows with N is the suite's own work.
 */
async function startStub(doc: JsonObject): Promise<TestServer & { cert: Cert }> {
  const ops: StubOperation[] = [];
  const raw = doc;
  const follow = (v: unknown): unknown => {
    // One level of local $ref is enough for the stub's needs (a response given by reference).
    if (isObj(v) && typeof v['$ref'] === 'string' && v['$ref'].startsWith('#/')) {
      return v['$ref']
        .slice(2)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<unknown>((o, k) => (isObj(o) ? o[k] : undefined), raw);
    }
    return v;
  };
  for (const [p, item] of Object.entries(isObj(doc['paths']) ? doc['paths'] : {})) {
    if (!isObj(item)) continue;
    const pattern = new RegExp(`^${p.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}/?$`);
    for (const m of METHODS) {
      const op = item[m];
      if (!isObj(op)) continue;
      const responses = isObj(op['responses']) ? op['responses'] : {};
      const ok = Object.keys(responses).find((s) => /^2\d\d$/.test(s)) ?? Object.keys(responses).find((s) => s === '2XX');
      const response = ok ? follow(responses[ok]) : undefined;
      const media = isObj(response) && isObj(response['content']) ? (response['content']['application/json'] as unknown) : undefined;
      const example = isObj(media) ? (media['example'] ?? (isObj(media['examples']) ? (follow(Object.values(media['examples'])[0]) as JsonObject | undefined)?.['value'] : undefined)) : undefined;
      ops.push({ method: m.toUpperCase(), pattern, status: ok && /^\d+$/.test(ok) ? Number(ok) : 200, example: example ?? {}, hasBody: isObj(response) && isObj(response['content']) });
    }
  }
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (body === undefined) res.writeHead(status, headers).end();
    else res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
  return httpsServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'https://stub');
    // The base URL ends in /v1/; a document whose paths start with /v1 (Stripe's) is asked at /v1/v1/...
    const path = url.pathname.replace(/^\/v1(?=\/)/, '');
    if (req.headers['api-key'] !== API_KEY) return send(res, 401, { title: 'unauthorized' }, { 'www-authenticate': 'ApiKey' });
    const here = ops.filter((o) => o.pattern.test(path));
    if (here.length === 0) return send(res, 404, { title: 'not found' });
    const op = here.find((o) => o.method === req.method);
    if (!op) return send(res, 405, { title: 'method not allowed' }, { allow: [...new Set(here.map((o) => o.method))].join(', ') });
    return send(res, op.status, op.status === 204 || !op.hasBody ? undefined : op.example);
  });
}

interface RunRow {
  build: string;
  n: number;
  checks: number;
  requests: number;
  wall_ms: number;
  cpu_ms: number;
  max_rss_mb: number;
  code: number | null;
}

/**
 * One run of a cut, as a first run of that document: a fresh temporary directory (no parsed or prepared document,
 * no vite cache), so every build and every repeat starts alike.
 */
async function runOnce(b: { name: string; root: string }, n: number, file: string, stub: { url: string; caFile: string }): Promise<RunRow> {
  const reportRoot = mkdtempSync(join(work, `reports-${b.name}-${n}-`));
  const tmp = mkdtempSync(join(work, 'tmp-'));
  const env = { FSAPI_BASE_URL: stub.url, FSAPI_API_KEY: API_KEY, FSAPI_TENANT_ID: 'bench', FSAPI_CA_FILE: stub.caFile, FSAPI_RATE_LIMIT: '0', FSAPI_CONCURRENCY: '16', ...(timeoutMs === undefined ? {} : { FSAPI_TIMEOUT_MS: String(timeoutMs) }), ...(partChecks === undefined ? {} : { FSAPI_PART_CHECKS: String(partChecks) }), TMPDIR: tmp };
  const cliArgs = ['run', '--spec', file, ...(bindingPath ? ['--binding', bindingPath] : []), '--seed', String(seed), '--quiet', '--report-dir', reportRoot];
  const profileDir = args.profile ? resolve(args.profile, `${b.name}-${n}`) : undefined;
  const nodeArgs = profileDir ? (args['heap-profile'] ? ['--heap-prof', `--heap-prof-dir=${profileDir}`] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]) : [];
  const r = await runCli(cliArgs, { cwd: work, env, cpu: true, bin: join(b.root, 'bin', 'fsapi-conformance.js'), nodeArgs });
  // A vendor's document against a stub that honours nothing is rarely conformant: 6 (inconclusive) ran through too.
  if (r.code !== 6) assertRan(r, `run of the ${n}-operation cut (${b.name})`);
  const report = readLatestReport(reportRoot);
  const row: RunRow = {
    build: b.name,
    n,
    checks: report.checks.length,
    requests: report.run.requests_sent,
    wall_ms: r.wall_ms,
    cpu_ms: (r.cpu?.user_ms ?? NaN) + (r.cpu?.system_ms ?? NaN),
    max_rss_mb: r.cpu?.max_rss_mb ?? NaN,
    code: r.code,
  };
  console.error(`run ${b.name} N=${n}: ${row.checks} checks, ${row.requests} requests, ${sec(row.wall_ms)} s, CPU ${sec(row.cpu_ms)} s, ${Math.round(row.max_rss_mb)} MiB`);
  rmSync(tmp, { recursive: true, force: true });
  if (!args.keep) rmSync(reportRoot, { recursive: true, force: true });
  return row;
}

async function runCuts(): Promise<RunRow[]> {
  if (cuts.length === 0) return [];
  const text = readFileSync(specPath, 'utf8');
  const doc = (specPath.endsWith('.json') ? JSON.parse(text) : parse(text)) as JsonObject;
  const stub = await startStub(doc);
  const ca = join(work, 'stub-ca.pem');
  writeFileSync(ca, stub.cert.cert);
  const rows: RunRow[] = [];
  try {
    const files = new Map<number, string>();
    for (const n of cuts) {
      const cut = cutDocument(doc, n);
      if (cut.operations < n) {
        console.error(`cut ${n}: the document has no operations; skipped`);
        continue;
      }
      if (cut.copies > 1) console.error(`cut ${n}: the document's operations repeated ${cut.copies} times (copies under /rep2, /rep3, ...)`);
      const file = join(work, `cut-${n}.json`);
      writeFileSync(file, JSON.stringify(cut.doc));
      files.set(n, file);
    }
    // Interleaved: each build runs each cut in turn, and which build goes first alternates.
    let turn = 0;
    for (let i = 0; i < runRepeat; i++) {
      for (const [n, file] of files) {
        for (const b of turn++ % 2 ? [...builds].reverse() : builds) rows.push(await runOnce(b, n, file, { url: stub.url, caFile: ca }));
      }
    }
  } finally {
    await stub.close();
  }
  return rows;
}

/** Least-squares slope and intercept of y against x. */
function fit(points: { x: number; y: number }[]): { slope: number; intercept: number } {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  const slope = sxx ? points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx : NaN;
  return { slope, intercept: my - slope * mx };
}

// -----------------------------------------------------------------------------------------------------------------

const build = await ensureBuild();
const loads = await loadAndPlan();
const runs = await runCuts();

console.log(`\n${specPath}: load and plan (median of ${repeat}; min-max)`);
const mm = (xs: number[], f: (n: number) => string) => {
  const s = spread(xs);
  return `${f(s.median)} (${f(s.min)}-${f(s.max)})`;
};
const s2 = (ms: number) => sec(ms, 2);
const mib = (m: number) => String(Math.round(m));
printTable(
  ['build', 'ops', 'first load s', 'process CPU s', 'peak MiB', 'cached load s', 'process CPU s', 'peak MiB', 'plan s', 'checks'],
  builds.map((b) => {
    const rs = loads.filter((l) => l.build === b.name);
    return [
      b.name,
      String(rs[0]!.first.operations),
      mm(rs.map((r) => r.first.load_ms), s2),
      mm(rs.map((r) => r.first.cpu_ms), s2),
      mm(rs.map((r) => r.first.max_rss_mb), mib),
      mm(rs.map((r) => r.cached.load_ms), s2),
      mm(rs.map((r) => r.cached.cpu_ms), s2),
      mm(rs.map((r) => r.cached.max_rss_mb), mib),
      mm(rs.map((r) => r.cached.plan_ms), s2),
      String(rs[0]!.cached.checks),
    ];
  }),
);

const slopes: Record<string, object> = {};
if (runs.length > 0) {
  console.log(`\nthe run per number of operations (a cut of the document, against the loopback stub; median of ${runRepeat}, min-max)`);
  const cells = builds.flatMap((b) => cuts.map((n) => ({ build: b.name, n, rs: runs.filter((r) => r.build === b.name && r.n === n) }))).filter((c) => c.rs.length > 0);
  const med = (rs: RunRow[], f: (r: RunRow) => number) => spread(rs.map(f)).median;
  printTable(
    ['build', 'N', 'checks', 'requests', 'wall s', 'CPU s', 'peak MiB', 'CPU ms/op'],
    cells.map(({ build: name, n, rs }) => [name, String(n), String(rs[0]!.checks), String(rs[0]!.requests), mm(rs.map((r) => r.wall_ms), sec), mm(rs.map((r) => r.cpu_ms), sec), mm(rs.map((r) => r.max_rss_mb), mib), String(Math.round(med(rs, (r) => r.cpu_ms) / n))]),
  );
  for (const b of builds) {
    const mine = cells.filter((c) => c.build === b.name);
    if (mine.length < 2) continue;
    const point = (f: (r: RunRow) => number) => mine.map((c) => ({ x: c.n, y: med(c.rs, f) }));
    const cpu = fit(point((r) => r.cpu_ms));
    const mem = fit(point((r) => r.max_rss_mb));
    const req = fit(point((r) => r.requests));
    const chk = fit(point((r) => r.checks));
    // Linear: what each further operation costs is the same at the small end as at the large end.
    const [lo, mid, hi] = [mine[0]!, mine[Math.floor((mine.length - 1) / 2)]!, mine[mine.length - 1]!];
    const marginal = (a: typeof lo, z: typeof lo) => (z.n > a.n ? (med(z.rs, (r) => r.cpu_ms) - med(a.rs, (r) => r.cpu_ms)) / (z.n - a.n) : NaN);
    slopes[b.name] = {
      cpu_ms_per_op: round(cpu.slope),
      cpu_intercept_ms: round(cpu.intercept),
      mib_per_op: round(mem.slope, 3),
      mib_intercept: round(mem.intercept),
      requests_per_op: round(req.slope, 2),
      checks_per_op: round(chk.slope, 2),
      marginal_cpu_ms_per_op: { [`${lo.n}-${mid.n}`]: round(marginal(lo, mid)), [`${mid.n}-${hi.n}`]: round(marginal(mid, hi)) },
    };
    console.log(
      `${b.name}: CPU ${round(cpu.slope)} ms per operation (+${sec(cpu.intercept)} s): ${round(marginal(lo, mid))} ms/op from N ${lo.n} to ${mid.n}, ${round(marginal(mid, hi))} from ${mid.n} to ${hi.n}; ` +
        `peak memory ${round(mem.slope, 2)} MiB per operation (+${Math.round(mem.intercept)} MiB); ${round(chk.slope, 1)} checks and ${round(req.slope, 1)} requests per operation`,
    );
  }
}

const out = writeResult('load-plan', { build, spec: specPath, binding: bindingPath ?? null, repeat, run_repeat: runRepeat, builds, loads, runs, slopes });
console.log(`\nwritten: ${out}`);
if (args.keep) console.log(`kept: ${work}`);
