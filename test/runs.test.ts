/**
 * Whole runs through the CLI: the same checks against an embedded and a separately started sandbox;
 * determinism by seed; a baseline that catches a regression a fault introduces, and its fix; shards that merge
 * into the single run.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import type { SandboxJsonLine } from '../src/cli/commands/sandbox.js';
import { parse } from 'yaml';
import { REFERENCE_SPEC_PATH } from '../src/catalogue/index.js';
import type { RunReport } from '../src/results/model.js';
import { LABEL_EMAIL_DOMAIN } from '../fixtures/factories.js';
import { runCli, sandboxTargetEnv } from './helpers/cli.js';
import { busy } from './helpers/busy.js';

const BIN = new URL('../bin/fsapi-conformance.js', import.meta.url).pathname;
const tmp = () => mkdtempSync(join(tmpdir(), 'fsapi-runs-'));
const load = (dir: string) => JSON.parse(readFileSync(join(dir, 'latest', 'conformance.json'), 'utf8')) as RunReport;
const outcomes = (r: RunReport) => Object.fromEntries(r.checks.map((c) => [c.id, c.status]));
const children: ChildProcessWithoutNullStreams[] = [];
interface AllureResult {
  name: string;
  status: string;
  titlePath: string[];
  labels: { name: string; value: string }[];
  steps: { attachments: { name: string; source: string }[] }[];
}
afterAll(() => children.forEach((c) => c.kill('SIGTERM')));

async function startSandboxProcess(): Promise<Required<SandboxJsonLine>> {
  const child = spawn(process.execPath, [BIN, 'sandbox', '--json', '--http-port', '0'], { env: { PATH: process.env['PATH'] ?? '' } });
  children.push(child);
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
  });
  return JSON.parse(first) as Required<SandboxJsonLine>;
}

describe('whole runs', { timeout: busy(300_000) }, () => {
  const groups = 'accounts,transport,versioning';

  it('gives the same checks and verdict against the sandbox in another process as embedded, and repeats by seed', async () => {
    const sb = await startSandboxProcess();
    const [a, b] = sb.tenants;
    const remoteEnv = {
      ...sandboxTargetEnv(sb),
      FSAPI_PLAIN_HTTP_URL: sb.plain_http_url,
    };
    const [embedded, again, remote] = [tmp(), tmp(), tmp()];
    const results = await Promise.all([
      runCli(['run', '--groups', groups, '--seed', '7', '--report-dir', embedded], {}),
      runCli(['run', '--groups', groups, '--seed', '7', '--report-dir', again], {}),
      runCli(['run', '--groups', groups, '--seed', '7', '--report-dir', remote], remoteEnv),
    ]);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    // Nothing of Node's own on the console: no leak or deprecation warning from any thread of a run.
    for (const r of results) expect(r.stderr).not.toMatch(/Warning/);
    const [e, g, m] = [load(embedded), load(again), load(remote)];
    expect(e.checks.length).toBeGreaterThan(90);
    expect(e.target.embedded).toBe(true);
    expect(m.target.embedded).toBe(false);
    // Same seed, same target kind: the same checks with the same statuses (determinism).
    expect(outcomes(g)).toEqual(outcomes(e));
    // Another process, configured only through the environment: the same checks and verdict.
    expect(outcomes(m)).toEqual(outcomes(e));
    expect(m.verdict).toBe(e.verdict);
    // Every MUST requirement of these suites verified, and the console says so in one line.
    expect(e.headline).toMatch(/^conformant: (\d+) of \1 MUST requirements verified; /);
    expect(e.coverage!.must.not_verified).toBe(0);
    expect(results[0]!.stdout).toContain(e.headline!);
    expect(m.headline).toBe(e.headline);

    // The Allure results, written in the main thread from each check's result: one per check, each carrying its
    // own requirement's labels (not a concurrent neighbour's) and its evidence.
    const allureDir = join(embedded, 'latest', 'allure-results');
    const written = readdirSync(allureDir).filter((f) => f.endsWith('-result.json'));
    // SHA256SUMS covers every file, the Allure results hashed as they were written: what is on disk checks out.
    const sums = readFileSync(join(embedded, 'latest', 'SHA256SUMS'), 'utf8');
    expect(sums.split('\n').filter((l) => l.includes('  allure-results/'))).toHaveLength(readdirSync(allureDir).length);
    expect(spawnSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: join(embedded, 'latest') }).status).toBe(0);
    expect(written).toHaveLength(e.checks.length);
    const byName = new Map(e.checks.map((c) => [c.name, c]));
    for (const f of written) {
      const r = JSON.parse(readFileSync(join(allureDir, f), 'utf8')) as AllureResult;
      const check = byName.get(r.name);
      expect(check, r.name).toBeDefined();
      const label = (n: string) => r.labels.filter((l) => l.name === n).map((l) => l.value);
      expect(label('requirement'), r.name).toEqual([check!.requirement]);
      expect(label('story'), r.name).toEqual([check!.requirement]);
      expect(label('level'), r.name).toEqual([check!.level]);
      expect(label('feature'), r.name).toEqual([check!.family]);
      expect(label('thread')[0], r.name).toMatch(/vitest-worker-\d+$/);
      // Settled from the check's result in the main thread: its status, and the tree group > family > requirement.
      expect(r.status, r.name).toBe({ passed: 'passed', warning: 'passed', failed: 'failed', error: 'broken', skipped: 'skipped' }[check!.status]);
      expect(r.titlePath.slice(1), r.name).toEqual([check!.family, check!.requirement]);
      expect(label('subSuite'), r.name).toEqual([check!.requirement]);
      const evidence = r.steps.flatMap((s) => s.attachments).filter((a) => a.name === 'evidence.json');
      expect(evidence.length, r.name).toBe(check!.exchanges.length ? 1 : 0);
      for (const a of evidence) expect(JSON.parse(readFileSync(join(allureDir, a.source), 'utf8'))).toHaveLength(check!.exchanges.length);
    }

    // Everything the remote run created carries its label, and the report counts exactly what the target holds.
    const agent = new Agent({ connect: { ca: readFileSync(sb.ca_file, 'utf8') } });
    const all = async (path: string, t: { tenant_id: string; secret_key: string }) => {
      const items: { email?: string; metadata?: Record<string, string> }[] = [];
      for (let cursor: string | undefined, more = true; more; ) {
        const res = await request(`${sb.base_url}${path}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
          dispatcher: agent,
          headers: { 'api-key': t.secret_key, 'x-tenant-id': t.tenant_id },
        });
        const page = (await res.body.json()) as { data: typeof items; has_more: boolean; next_cursor: string | null };
        items.push(...page.data);
        [more, cursor] = [page.has_more, page.next_cursor ?? undefined];
      }
      return items;
    };
    const customers = [...(await all('customers', a!)), ...(await all('customers', b!))];
    const accounts = [...(await all('accounts', a!)), ...(await all('accounts', b!))];
    await agent.close();
    const created = m.run.resources_created;
    expect(created.label).toContain(m.run.id);
    expect(customers.length).toBeGreaterThan(0);
    for (const c of customers) {
      expect(c.email).toMatch(new RegExp(`@${LABEL_EMAIL_DOMAIN.replace(/\./g, '\\.')}$`));
      expect(c.metadata?.['fsapi_run']).toBe(m.run.id);
    }
    for (const x of accounts) expect(x.metadata?.['fsapi_run']).toBe(m.run.id);
    expect(created.by_type['createCustomer']).toBe(customers.length);
    expect(created.by_type['createAccount']).toBe(accounts.length);
  });

  it('without a second business the run is inconclusive (exit 6), naming the tenant-isolation requirements', async () => {
    const sb = await startSandboxProcess();
    // Every credential but the second business's.
    const { FSAPI_SECOND_API_KEY: _key, FSAPI_SECOND_TENANT_ID: _tenant, ...oneBusiness } = sandboxTargetEnv(sb);
    const env = {
      ...oneBusiness,
      FSAPI_PLAIN_HTTP_URL: sb.plain_http_url,
      FSAPI_RATE_LIMIT: '0',
    };
    const dir = tmp();
    const r = await runCli(['run', '--groups', 'accounts', '--seed', '8', '--report-dir', dir], env);
    expect(r.code, r.stderr).toBe(6);
    const rep = load(dir);
    expect(rep.verdict).toBe('inconclusive');
    expect(rep.headline).toMatch(/^inconclusive: 2 MUST requirements not verified \(FSAPI-TEN-001, FSAPI-TEN-002: needs a second business: set FSAPI_SECOND_API_KEY and FSAPI_SECOND_TENANT_ID\)/);
    expect(rep.coverage!.requirements.filter((x) => x.status === 'not-verified' && x.level === 'MUST').map((x) => [x.id, x.cause])).toEqual([
      ['FSAPI-TEN-001', 'credential'],
      ['FSAPI-TEN-002', 'credential'],
    ]);
    expect(r.stdout).toContain('verdict: INCONCLUSIVE');
    expect(r.stdout).toContain(rep.headline!);
    const md = readFileSync(join(dir, 'latest', 'summary.md'), 'utf8');
    expect(md.split('\n')[0]).toMatch(/^# ❔ Inconclusive: /);
    expect(md).toMatch(/Exit code \*\*6\*\*/);
    expect(md).toContain('| FSAPI-TEN-001 | MUST | ❔ not verified |');
  });

  it('without the webhook settings, the fix names them alone; with them but no delivery reaching the receiver, one diagnosis says so', async () => {
    const sb = await startSandboxProcess();
    const env = { ...sandboxTargetEnv(sb), FSAPI_PLAIN_HTTP_URL: sb.plain_http_url, FSAPI_WEBHOOK_WAIT_MS: '300' };
    const missing = tmp();
    const r = await runCli(['run', '--groups', 'webhooks', '--seed', '8', '--report-dir', missing], env);
    expect(r.code, r.stderr).toBe(6);
    const credential = load(missing).diagnostics!.filter((d) => d.kind === 'unverified-must');
    expect(credential.map((d) => d.cause)).toEqual(['credential']);
    expect(credential[0]!.fix).toMatch(/^set FSAPI_WEBHOOK_SECRET and FSAPI_WEBHOOK_LISTEN for FSAPI-WH-/);
    expect(credential[0]!.fix).not.toMatch(/FSAPI_SECOND/);
    // The settings given, but this sandbox was started without --webhook-url: nothing reaches the receiver.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const silent = tmp();
    const r2 = await runCli(['run', '--groups', 'webhooks', '--seed', '8', '--report-dir', silent], { ...env, FSAPI_WEBHOOK_SECRET: sb.webhook_secret, FSAPI_WEBHOOK_LISTEN: `127.0.0.1:${port}` });
    expect(r2.code, r2.stderr).toBe(1);
    const d = load(silent).diagnostics!.find((x) => x.kind === 'no-webhook-delivery')!;
    expect(d.message).toContain(`FSAPI_WEBHOOK_LISTEN 127.0.0.1:${port}`);
    expect(d.fix).toMatch(/tunnel/);
    expect(r2.stdout).toContain(d.message);
  });

  it('a document whose paths are not the target\'s gets one diagnosis first, with the fix, not only failures', async () => {
    // The reference profile with every path under /api: the sandbox has none of them (as with a wrong base URL).
    const doc = parse(readFileSync(REFERENCE_SPEC_PATH, 'utf8'), { maxAliasCount: -1 }) as { paths: Record<string, unknown> };
    doc.paths = Object.fromEntries(Object.entries(doc.paths).map(([p, item]) => [`/api${p}`, item]));
    const dir = tmp();
    writeFileSync(join(dir, 'moved.json'), JSON.stringify(doc));
    const r = await runCli(['run', '--embedded-sandbox', '--spec', join(dir, 'moved.json'), '--groups', 'accounts', '--seed', '4', '--report-dir', dir], {});
    expect(r.code, r.stderr).toBe(1);
    const rep = load(dir);
    const d = rep.diagnostics!.find((x) => x.kind === 'not-found')!;
    expect(d.message).toMatch(/^(\d+) of \1 operations answered their valid request with 404/);
    expect(d.fix).toMatch(/FSAPI_BASE_URL/);
    const out = r.stdout;
    expect(out.indexOf('run diagnostics')).toBeGreaterThan(0);
    expect(out.indexOf('run diagnostics')).toBeLessThan(out.indexOf('failures and errors:'));
    const md = readFileSync(join(dir, 'latest', 'summary.md'), 'utf8');
    expect(md.indexOf('## Run diagnostics')).toBeLessThan(md.indexOf('## Results by group'));
    expect(md).toContain('operations answered their valid request with 404');
  });

  it('a baseline catches the regression a fault introduces (exit 4), then lists it as fixed', async () => {
    const [clean, broken, fixed] = [tmp(), tmp(), tmp()];
    expect((await runCli(['run', '--groups', 'accounts', '--seed', '3', '--report-dir', clean], {})).code).toBe(0);
    const regressed = await runCli(['run', '--groups', 'accounts', '--seed', '3', '--report-dir', broken, '--sandbox-fault', 'accounts-list-empty', '--baseline', join(clean, 'latest', 'conformance.json')], {});
    expect(regressed.code, regressed.stderr).toBe(4);
    const b = load(broken).baseline!;
    expect(b.regression).toBe(true);
    expect(b.newly_failing.map((d) => d.requirement)).toContain('FSAPI-ACC-001');
    // The failing check leads to its code: its definition's file and declaration, in the report and wherever it is shown.
    const failing = load(broken).checks.find((c) => c.requirement === 'FSAPI-ACC-001' && c.status === 'failed')!;
    const [file, name] = failing.defined_at!.split('#');
    expect(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')).toMatch(new RegExp(`^(export )?(async )?(function|const) ${name}\\b`, 'm'));
    expect(regressed.stdout).toContain(`defined at ${failing.defined_at}`);
    expect(readFileSync(join(broken, 'latest', 'summary.md'), 'utf8')).toContain(`\`${failing.defined_at}\``);
    expect(readFileSync(join(broken, 'latest', 'junit.xml'), 'utf8')).toContain(`defined at: ${failing.defined_at}`);
    const back = await runCli(['run', '--groups', 'accounts', '--seed', '3', '--report-dir', fixed, '--baseline', join(broken, 'latest', 'conformance.json')], {});
    expect(back.code, back.stderr).toBe(0);
    const f = load(fixed).baseline!;
    expect(f.regression).toBe(false);
    expect(f.fixed.map((d) => d.requirement)).toContain('FSAPI-ACC-001');
    expect(readFileSync(join(fixed, 'latest', 'summary.md'), 'utf8')).toMatch(/fixed/i);
  });

  it('shard reports merge into the single run: the same checks, statuses and verdict', async () => {
    // Shards take whole suites (a suite's traffic checks judge all of its traffic, as in the single run), the
    // largest first to the least loaded shard: here one suite each.
    const groups4 = 'fx,accounts,transport,versioning';
    const [single, merged] = [tmp(), join(tmp(), 'merged')];
    const shards = [1, 2, 3, 4].map(() => tmp());
    const runs = await Promise.all([
      runCli(['run', '--groups', groups4, '--seed', '5', '--report-dir', single], {}),
      ...shards.map((dir, i) => runCli(['run', '--groups', groups4, '--seed', '5', '--shard', `${i + 1}/4`, '--report-dir', dir], {})),
    ]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(shards.map((d) => load(d).run.groups)).toEqual([['fx'], ['accounts'], ['transport'], ['versioning']]);
    expect(runs[1]!.stderr).toMatch(/shard 1\/4: fx/);
    const m = await runCli(['merge', ...shards.map((d) => join(d, 'latest')), '--out', merged], {});
    expect(m.code, m.stderr).toBe(0);
    const mergedReport = JSON.parse(readFileSync(join(merged, 'conformance.json'), 'utf8')) as RunReport;
    expect(outcomes(mergedReport)).toEqual(outcomes(load(single)));
    expect(mergedReport.verdict).toBe(load(single).verdict);
    // Coverage recomputed over the merged checks: each shard alone is conformant for its own suites, and the merge
    // says what the single run says.
    expect(mergedReport.coverage).toEqual(load(single).coverage);
    expect(mergedReport.headline).toBe(load(single).headline);
  });
});
