/** The report writers: conformance.json and its schema, summary.md, junit.xml, SHA256SUMS, reports/latest. */
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { CONFORMANCE_SCHEMA_PATH, renderJunit, renderSummary, SCHEMA_VERSION, serializeReport, validateReport, writeReports } from '../src/reports/index.js';
import { createAjv, describeErrors, type ValidateFunction } from '../src/catalogue/json-schema.js';
import { mdBlock, mdCode, mdEscape } from '../src/reports/markdown-text.js';
import { oneLine, redactUrl, stripXmlForbidden } from '../src/reports/text.js';
import type { CheckResult, RunReport } from '../src/results/model.js';
import { assessRun } from '../src/results/assess.js';
import { loadRequirements } from '../src/catalogue/requirements.js';
import { REQUIREMENTS_PATH } from '../src/catalogue/index.js';
import { allureMessages, DeferredAllureWriter, settleAllureResult } from '../src/runner/allure-writer.js';
import { AllureTestResults, plainTest } from '../src/runner/allure-test-result.js';
import { InMemoryWriter, ReporterRuntime } from 'allure-js-commons/sdk/reporter';
import type { RunnerTask, RunnerTestCase } from 'vitest';
import type { TestResult } from 'allure-js-commons';
import { check, largeReport, NASTY, report, standardChecks, standardReport } from './fixtures/reports/build.js';

const root = mkdtempSync(join(tmpdir(), 'fsapi-reports-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SECRET = 'sk_test_SENTINEL_9f8e7d6c5b4a';
let dir: string;
let written: Awaited<ReturnType<typeof writeReports>>;

beforeAll(async () => {
  // A secret in the environment, as a run has one: no writer may read it into a report.
  process.env['FSAPI_API_KEY'] = SECRET;
  dir = join(root, 'reports', 'run-1');
  written = await writeReports(standardReport(), { dir, reportRoot: join(root, 'reports'), html: false });
});
afterAll(() => {
  delete process.env['FSAPI_API_KEY'];
});

const read = (name: string) => readFileSync(join(dir, name), 'utf8');

/** Markdown with fenced blocks and code spans removed, as CommonMark delimits them (a run of n backticks closes at the next run of exactly n). */
function withoutCode(md: string): string {
  const noBlocks = md.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1\s*$/gm, '');
  let out = '';
  for (let i = 0; i < noBlocks.length; ) {
    const run = /^`+/.exec(noBlocks.slice(i))?.[0];
    if (!run) {
      out += noBlocks[i++];
      continue;
    }
    const close = new RegExp(`(?<!\`)${run}(?!\`)`, 'g');
    close.lastIndex = i + run.length;
    const m = close.exec(noBlocks);
    if (!m) {
      out += run;
      i += run.length;
      continue;
    }
    i = m.index + run.length;
  }
  return out;
}

describe('writeReports', () => {
  it('writes conformance.json, summary.md, junit.xml and SHA256SUMS last, and returns them', () => {
    expect(written.files.map((f) => f.slice(dir.length + 1))).toEqual(['conformance.json', 'summary.md', 'junit.xml', 'SHA256SUMS']);
    expect(written.regression).toBe(false);
    for (const f of written.files) expect(existsSync(f)).toBe(true);
  });

  it('points reports/latest at the run (a relative link), and moves it on the next run', async () => {
    const latest = join(root, 'reports', 'latest');
    expect(lstatSync(latest).isSymbolicLink()).toBe(true);
    expect(readlinkSync(latest)).toBe('run-1');
    expect(JSON.parse(readFileSync(join(latest, 'conformance.json'), 'utf8')).run.id).toBe(standardReport().run.id);
    const second = join(root, 'reports', 'run-2');
    await writeReports(report(standardChecks(), { id: 'run-2' }), { dir: second, reportRoot: join(root, 'reports'), html: false });
    expect(readlinkSync(latest)).toBe('run-2');
  });

  it('writes no secret from the environment and masks user info in the base URL', async () => {
    for (const f of written.files) expect(readFileSync(f, 'utf8')).not.toContain(SECRET);
    const r = standardReport();
    r.target.base_url = 'https://alice:hunter2@sandbox.example.test/v1';
    const d = join(root, 'userinfo');
    const w = await writeReports(r, { dir: d, reportRoot: root, html: false });
    for (const f of w.files) expect(readFileSync(f, 'utf8')).not.toContain('hunter2');
    expect(w.report.target.base_url).toBe('https://***:***@sandbox.example.test/v1');
    expect(redactUrl('https://sandbox.example.test/v1')).toBe('https://sandbox.example.test/v1');
  });
});

describe('a report that breaks its own schema', () => {
  it('is still written (the evidence is kept), then reported as an internal error', async () => {
    const r = standardReport();
    (r.checks[0] as { status: string }).status = 'flaky';
    const d = join(root, 'invalid');
    await expect(writeReports(r, { dir: d, reportRoot: root, html: false })).rejects.toThrow(/conformance\.json does not match its schema: \/checks\/0\/status/);
    expect(existsSync(join(d, 'conformance.json'))).toBe(true);
    expect(existsSync(join(d, 'SHA256SUMS'))).toBe(true);
  });
});

describe('conformance.json', () => {
  it('is the RunReport and validates against its schema', () => {
    const data = JSON.parse(read('conformance.json')) as RunReport;
    expect(validateReport(data)).toEqual([]);
    expect(data.checks).toHaveLength(standardChecks().length);
    // The exact evidence survives, control characters and all.
    expect(data.checks.find((c) => c.requirement === 'FSAPI-AUTH-002')!.message).toContain(NASTY);
  });

  it('validates every optional member (shard, merged_from, incomplete_reason, baseline)', () => {
    const r = report(standardChecks(), { shard: { index: 1, count: 2 }, incomplete: 'SIGINT after 3 s' });
    r.run.merged_from = ['a', 'b'];
    r.baseline = {
      baseline: { path: 'reports/old/conformance.json', run_id: 'old', verdict: 'conformant', started_at: '2025-01-01T00:00:00.000Z' },
      newly_failing: [{ id: 'x', requirement: 'FSAPI-AUTH-002', level: 'MUST', before: 'passed', after: 'failed', message: 'm' }],
      fixed: [],
      added: [],
      removed: [{ id: 'y', requirement: 'FSAPI-AUTH-001', level: 'MUST', before: 'passed' }],
      regression: true,
    };
    expect(validateReport(JSON.parse(JSON.stringify(r)))).toEqual([]);
  });

  it('rejects broken reports, naming the place', () => {
    const broken = (f: (r: Record<string, any>) => void) => {
      const r = JSON.parse(JSON.stringify(standardReport())) as Record<string, any>;
      f(r);
      return validateReport(r);
    };
    expect(broken((r) => (r['checks'][0].status = 'flaky'))[0]!.pointer).toBe('/checks/0/status');
    expect(broken((r) => delete r['verdict'])[0]!.pointer).toBe('/verdict');
    expect(broken((r) => (r['surprise'] = 1))[0]!.message).toMatch(/not allowed/);
    expect(broken((r) => (r['checks'][1].exchanges[0].response.status = 999)).length).toBeGreaterThan(0);
    expect(broken((r) => (r['spec'].sha256 = 'abc')).length).toBeGreaterThan(0);
    expect(broken((r) => (r['schema_version'] = 2)).length).toBeGreaterThan(0);
    // The schema states the version the code writes (SCHEMA_VERSION, src/results/model.ts), not another.
    const schema = JSON.parse(readFileSync(CONFORMANCE_SCHEMA_PATH, 'utf8')) as { properties: { schema_version: { const: unknown } } };
    expect(schema.properties.schema_version.const).toBe(SCHEMA_VERSION);
    expect(broken((r) => (r['checks'][1].id = r['checks'][0].id))[0]!.message).toMatch(/repeats the id/);
  });

  it("the build's standalone validator is made from the schema as it is, and judges as a fresh compile does", () => {
    // npm test builds first; this reads what `npm run build` wrote next to the compiled schema module.
    const pre = createRequire(import.meta.url)('../dist/src/reports/report-validator.cjs') as ValidateFunction & { SOURCE_SHA256: string };
    const schemaText = readFileSync(CONFORMANCE_SCHEMA_PATH, 'utf8');
    expect(pre.SOURCE_SHA256).toBe(createHash('sha256').update(schemaText).digest('hex'));
    const fresh = createAjv({ strict: true }).compile(JSON.parse(schemaText) as object);
    const variants: ((r: Record<string, any>) => void)[] = [
      () => {},
      (r) => (r['checks'][0].status = 'flaky'),
      (r) => delete r['verdict'],
      (r) => (r['surprise'] = 1),
      (r) => (r['checks'][1].exchanges[0].response.status = 999),
      (r) => (r['spec'].sha256 = 'abc'),
      (r) => (r['run'].started_at = 'yesterday'),
      (r) => (r['checks'] = 'none'),
    ];
    for (const [i, vary] of variants.entries()) {
      const r = JSON.parse(JSON.stringify(standardReport())) as Record<string, any>;
      vary(r);
      expect(pre(r), `variant ${i}`).toBe(fresh(r));
      expect(describeErrors(pre.errors), `variant ${i}`).toEqual(describeErrors(fresh.errors));
    }
  });
});

describe('summary.md', () => {
  it('puts the verdict and its exit code first', () => {
    const md = read('summary.md');
    expect(md.split('\n')[0]).toMatch(/^# ❌ Non-conformant/);
    expect(md).toMatch(/\*\*Verdict: non-conformant\*\*\. Exit code \*\*1\*\*/);
  });

  it('carries every check, each failure and error under its requirement, with level, its own message and reproduction', () => {
    const md = read('summary.md');
    for (const c of standardChecks()) expect(md, c.name).toContain(c.name);
    const failures = md.slice(md.indexOf('## Failures and errors'), md.indexOf('## Warnings'));
    for (const c of standardChecks().filter((c) => c.status === 'failed' || c.status === 'error')) {
      expect(failures).toContain(`${c.requirement} · ${c.level} · `);
      // Each failure is listed by name with its own message, not by name only.
      const line = failures.split('\n').find((l) => l.startsWith('- ') && l.includes(mdCode(c.name)));
      expect(line, c.name).toContain(mdCode(oneLine(c.message!)).slice(0, 40));
    }
    expect(failures).toContain('expected 401 without a key, got 200');
    expect(failures).toContain('```sh\ncurl -sS -X POST');
  });

  it('has sections in order: groups, failures, warnings (collapsed), gap report, footer', () => {
    const md = read('summary.md');
    const at = (s: string) => md.indexOf(s);
    const order = ['## Results by group', '## Failures and errors', '## Warnings', '## Gap report', 'Seed: `4242`'].map(at);
    expect(order.every((n) => n > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(md.slice(at('## Warnings'))).toMatch(/^## Warnings\n\n<details><summary>2 warnings/);
    expect(md).toContain('**FSAPI-GAP-005**: The pagination style of lists.');
    expect(md).toContain('observed: `GET /accounts without x-tenant-id: 400`');
    expect(md).toContain(`SHA-256 \`${'a'.repeat(64)}\``);
  });

  it('keeps hostile text inert: no raw HTML, no control characters, balanced <details>', () => {
    const md = read('summary.md');
    expect(md).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F]/);
    // Every occurrence of the hostile markup is inside a code span or block.
    const outsideCode = withoutCode(md);
    expect(outsideCode).not.toContain('<script>');
    expect(outsideCode).not.toContain('@octocat');
    expect((outsideCode.match(/<details>/g) ?? []).length).toBe((outsideCode.match(/<\/details>/g) ?? []).length);
    // Table rows keep their column count (an escaped pipe is not a separator).
    for (const row of md.split('\n').filter((l) => l.startsWith('| ') && l.includes('`FSAPI-'))) {
      expect(row.replace(/\\\|/g, '').split('|').length, row).toBeGreaterThanOrEqual(5);
    }
  });

  it('escapes Markdown helpers correctly', () => {
    expect(mdCode('a `b` c')).toBe('`` a `b` c ``');
    expect(mdCode('x | y', true)).toBe('`x \\| y`');
    expect(mdEscape('*a* <b> @c')).toBe('\\*a\\* \\<b\\> \\@c');
    expect(mdBlock('```\nx\n```')).toMatch(/^````text\n```\nx\n```\n````$/);
  });

  it('stays under the size budget for a large run, capping lists with "and N more"', () => {
    const big = largeReport(800, 2000);
    const md = renderSummary(big);
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(60_000);
    expect(md).toMatch(/…and \d+ more/);
    expect(md).toContain('conformance.json');
    expect(md.split('\n')[0]).toMatch(/^# ❌ Non-conformant/);
  });

  it('writes conformance.json and junit.xml in pieces, byte for byte what rendering them whole gives, and hashes those bytes', async () => {
    for (const r of [standardReport(), report([]), largeReport(40, 120)]) expect(serializeReport(r)).toBe(`${JSON.stringify(r, null, 2)}\n`);
    // Larger than the 4 MiB a file is written in at a time.
    const big = largeReport(800, 2000);
    const out = mkdtempSync(join(tmpdir(), 'fsapi-pieces-'));
    try {
      const w = await writeReports(big, { dir: join(out, 'run'), reportRoot: out, html: false });
      const sums = readFileSync(join(out, 'run', 'SHA256SUMS'), 'utf8');
      for (const [name, whole] of [['conformance.json', `${JSON.stringify(w.report, null, 2)}\n`], ['junit.xml', renderJunit(w.report)]] as const) {
        const bytes = readFileSync(join(out, 'run', name));
        expect(bytes.equals(Buffer.from(whole)), name).toBe(true);
        expect(sums).toContain(`${createHash('sha256').update(bytes).digest('hex')}  ${name}`);
      }
      expect(readFileSync(join(out, 'run', 'conformance.json')).length).toBeGreaterThan(4 * 1024 * 1024);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('fills the size budget with as many rows per group as fit: one more row would not', () => {
    // Rows as short as a row gets ("| ✅ | `FSAPI-X-1 a: v` | INFO |  |", 37 bytes): some 1,500 of them fit in 60 KB.
    const checks = Array.from({ length: 5_000 }, (_, i) => ({ ...check({ requirement: 'FSAPI-X-1', level: 'INFO', group: 'customers', status: 'passed', operation: 'a', variant: 'v' }), id: `FSAPI-X-1 a ${i}` }));
    const md = renderSummary(report(checks));
    const rows = md.split('\n').filter((l) => l.startsWith('| ✅ | `FSAPI-X-1'));
    const bytes = Buffer.byteLength(md);
    expect(bytes).toBeLessThanOrEqual(60_000);
    expect(rows.length).toBeGreaterThan(1_000);
    // Another row takes its own bytes and its newline, less at most a digit of the "…and N more" line.
    expect(60_000 - bytes).toBeLessThan(Buffer.byteLength(rows[0]!));
  });

  it('says incomplete, with exit 5 and the reason', () => {
    const md = renderSummary(report(standardChecks(), { incomplete: 'the run was interrupted (SIGINT/SIGTERM)' }));
    expect(md).toMatch(/^# ⏸️ Incomplete/);
    expect(md).toMatch(/Exit code \*\*5\*\*/);
    expect(md).toContain('Incomplete: the run was interrupted (SIGINT/SIGTERM)');
  });

  it('says conformant, with exit 0, for a clean run; and explains a regression', () => {
    const clean = report([check({ requirement: 'FSAPI-AUTH-001', level: 'MUST', group: 'customers', status: 'passed' })]);
    expect(renderSummary(clean)).toMatch(/^# ✅ Conformant[\s\S]*Exit code \*\*0\*\*/);
    clean.baseline = {
      baseline: { path: 'old.json', run_id: 'old', verdict: 'conformant', started_at: '2025-01-01T00:00:00.000Z' },
      newly_failing: [{ id: 'FSAPI-X', requirement: 'FSAPI-AUTH-009', level: 'MUST', before: 'passed', after: 'failed' }],
      fixed: [],
      added: [],
      removed: [],
      regression: true,
    };
    const md = renderSummary(clean);
    expect(md).toMatch(/Exit code \*\*4\*\*/);
    expect(md).toContain('## Compared with the baseline');
    expect(md).toContain('**Newly failing** (1)');
  });
});

describe('summary.md: what was not tested', () => {
  const skippedCheck = (requirement: string, group: RunReport['checks'][number]['group'], cause: 'credential' | 'waived', message: string) => {
    const c = check({ requirement, level: 'MUST', group, operation: 'getAccount', status: 'skipped', message, variant: cause });
    c.skip_cause = cause;
    return c;
  };
  function assessed(checks: RunReport['checks'], waivers: { requirement: string; reason: string }[] = []): RunReport {
    const r = report(checks);
    const a = assessRun({
      checks,
      requirements: [
        { id: 'FSAPI-AUTH-001', level: 'MUST', scope: 'target' },
        { id: 'FSAPI-TEN-001', level: 'MUST', scope: 'target' },
        { id: 'FSAPI-TEN-002', level: 'MUST', scope: 'target' },
      ],
      waivers,
      absent: () => ({ status: 'not-applicable', cause: 'not-applicable', reason: 'not in this run' }),
      operations: [{ operationId: 'getAccount', method: 'GET', path: '/accounts/{account_id}', group: 'accounts' }],
      baseUrl: r.target.base_url,
      leftOut: () => undefined,
      durationMs: r.run.duration_ms,
    });
    return { ...r, spec: { ...r.spec, title: 'Acme Payments API' }, ...a, ...(waivers.length ? { run: { ...r.run, waivers } } : {}) };
  }

  it('titles the summary with the document in use and says inconclusive, exit 6, naming what was not verified, before any table', () => {
    const why = 'needs a second business: set FSAPI_SECOND_API_KEY and FSAPI_SECOND_TENANT_ID';
    const r = assessed([
      check({ requirement: 'FSAPI-AUTH-001', level: 'MUST', group: 'accounts', operation: 'getAccount', status: 'passed' }),
      skippedCheck('FSAPI-TEN-001', 'accounts', 'credential', why),
      skippedCheck('FSAPI-TEN-002', 'accounts', 'credential', why),
    ]);
    expect(validateReport(r)).toEqual([]);
    const md = renderSummary(r);
    expect(md.split('\n')[0]).toBe('# ❔ Inconclusive: Acme Payments API');
    expect(md).toContain('**inconclusive: 2 MUST requirements not verified (FSAPI-TEN-001, FSAPI-TEN-002: needs a second business');
    expect(md).toMatch(/Exit code \*\*6\*\*/);
    const at = (x: string) => md.indexOf(x);
    expect(at('## Run diagnostics')).toBeGreaterThan(0);
    expect(at('## Run diagnostics')).toBeLessThan(at('## Coverage'));
    expect(at('## Coverage')).toBeLessThan(at('## Results by group'));
    expect(md).toContain(`| FSAPI-TEN-001 | MUST | ❔ not verified | \`${why}\` |`);
  });

  it('shows a waiver in the headline and the coverage table', () => {
    const r = assessed(
      [check({ requirement: 'FSAPI-AUTH-001', level: 'MUST', group: 'accounts', operation: 'getAccount', status: 'passed' }), skippedCheck('FSAPI-TEN-001', 'accounts', 'waived', 'waived (capabilities file): one business'), check({ requirement: 'FSAPI-TEN-002', level: 'MUST', group: 'accounts', operation: 'getAccount', status: 'passed', variant: 'x' })],
      [{ requirement: 'FSAPI-TEN-001', reason: 'one business' }],
    );
    expect(validateReport(r)).toEqual([]);
    const md = renderSummary(r);
    expect(md.split('\n')[0]).toBe('# ✅ Conformant: Acme Payments API');
    expect(md).toContain('**conformant: 2 of 3 MUST requirements verified; 1 MUST requirement waived (FSAPI-TEN-001: one business)');
    expect(md).toContain('| FSAPI-TEN-001 | MUST | 🏳️ waived | `one business` |');
  });

  it('shows a group with no executed check as not tested, not as passed', () => {
    const r = assessed([
      check({ requirement: 'FSAPI-AUTH-001', level: 'MUST', group: 'accounts', operation: 'getAccount', status: 'passed' }),
      check({ requirement: 'FSAPI-GAP-005', level: 'INFO', group: 'cards', status: 'passed', observation: 'nothing to see' }),
      skippedCheck('FSAPI-TEN-001', 'cards', 'credential', 'needs a second business'),
    ]);
    const md = renderSummary(r);
    expect(md).toMatch(/^\| Cards \(not tested\) \| 1 \|/m);
    expect(md).toContain('<b>Cards</b>: not tested (1 passed, 1 skipped)');
    expect(md).not.toMatch(/Accounts \(not tested\)/);
  });
});

describe('junit.xml', () => {
  const xml = () => read('junit.xml');

  it('is well-formed XML 1.0 with no forbidden character', () => {
    expect(XMLValidator.validate(xml())).toBe(true);
    expect(stripXmlForbidden(xml())).toBe(xml());
  });

  it('parses with a conforming XML parser (expat), when python3 is there', () => {
    const py = spawnSync('python3', ['-c', 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); print(len(r.findall("./testsuite/testcase")))', join(dir, 'junit.xml')], { encoding: 'utf8' });
    if (py.error) return; // no python3 here: the structural checks below still run
    expect(py.stderr).toBe('');
    expect(Number(py.stdout.trim())).toBe(standardChecks().length);
  });

  it('has one testcase per check with classname = group, name starting with the requirement, and properties', () => {
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (n) => ['testsuite', 'testcase', 'property'].includes(n) }).parse(xml());
    type Prop = { name: string; value: string };
    type Case = { classname: string; name: string; properties: { property: Prop[] }; failure?: unknown; error?: unknown; skipped?: { message: string }; 'system-out'?: string };
    const suites = doc.testsuites.testsuite as { name: string; testcase: Case[] }[];
    const cases = suites.flatMap((s) => s.testcase);
    const checks = standardChecks();
    expect(cases).toHaveLength(checks.length);
    expect(Number(doc.testsuites.tests)).toBe(checks.length);
    for (const c of checks) {
      const tc = cases.find((x) => x.properties.property.some((p) => p.name === 'check_id' && p.value === c.id));
      expect(tc, c.id).toBeDefined();
      expect(tc!.classname).toBe(c.group);
      expect(tc!.name.startsWith(c.requirement)).toBe(true);
      const prop = (n: string) => tc!.properties.property.find((p) => p.name === n)?.value;
      expect(prop('requirement')).toBe(c.requirement);
      expect(prop('level')).toBe(c.level);
      expect(prop('operation')).toBe(c.operation);
      expect(tc!.failure !== undefined).toBe(c.status === 'failed');
      expect(tc!.error !== undefined).toBe(c.status === 'error');
      expect(tc!.skipped !== undefined).toBe(c.status === 'skipped');
      if (c.status === 'skipped') expect(tc!.skipped!.message).toBe(c.message);
      if (c.status === 'warning') expect(tc!['system-out']).toMatch(/^WARNING \[(SHOULD|PROFILE)\]: /);
    }
    expect(Number(doc.testsuites.failures)).toBe(2);
    expect(Number(doc.testsuites.errors)).toBe(4);
    expect(Number(doc.testsuites.skipped)).toBe(5);
  });

  it('escapes markup in attributes and text, keeping the evidence readable', () => {
    const x = xml();
    expect(x).toContain('a &lt; b &amp;&amp; c &gt; d');
    expect(x).toContain('"q" \'s\'');
    expect(x).toContain('é 中文 😀');
    expect(x).not.toContain('<script>');
    // Exchanges of a failure are in its body.
    expect(x).toContain('&lt; 200 (');
    const one = renderJunit(report([check({ requirement: 'FSAPI-AUTH-001', level: 'MUST', group: 'customers', status: 'skipped', message: 'why "\n<x>' })]));
    expect(one).toContain('<skipped message="why &quot;&#10;&lt;x&gt;"/>');
  });
});

describe('SHA256SUMS', () => {
  it('verifies with sha256sum -c, and detects a tampered file', () => {
    const sums = read('SHA256SUMS');
    expect(sums).toMatch(/^[a-f0-9]{64} {2}conformance\.json$/m);
    expect(sums).not.toMatch(/SHA256SUMS/);
    expect(execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: dir, encoding: 'utf8' })).toMatch(/junit\.xml: OK/);
    const copy = join(root, 'tamper');
    mkdirSync(copy);
    for (const f of ['conformance.json', 'summary.md', 'junit.xml', 'SHA256SUMS']) writeFileSync(join(copy, f), read(f));
    writeFileSync(join(copy, 'summary.md'), read('summary.md').replace('non-conformant', 'conformant'));
    const r = spawnSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: copy, encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stdout).toMatch(/summary\.md: FAILED/);
  });

  it('covers files in subdirectories (allure-results)', async () => {
    const d = join(root, 'with-results');
    mkdirSync(join(d, 'allure-results'), { recursive: true });
    writeFileSync(join(d, 'allure-results', 'abc-result.json'), '{"name":"x"}');
    await writeReports(standardReport(), { dir: d, reportRoot: root, html: false });
    expect(readFileSync(join(d, 'SHA256SUMS'), 'utf8')).toMatch(/ {2}allure-results\/abc-result\.json$/m);
    expect(spawnSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: d }).status).toBe(0);
  });
});

describe('a large run', () => {
  it('writes 800 checks and 2000 exchanges (timing printed, not asserted)', async () => {
    const big = largeReport(800, 2000);
    expect(big.checks.reduce((n, c) => n + c.exchanges.length, 0)).toBe(2000);
    const d = join(root, 'large');
    const t0 = performance.now();
    const w = await writeReports(big, { dir: d, reportRoot: root, html: false });
    const ms = performance.now() - t0;
    const sizes = w.files.map((f) => `${f.slice(d.length + 1)} ${readFileSync(f).length} B`).join(', ');
    console.log(`[reports] large run (800 checks, 2000 exchanges): written in ${ms.toFixed(0)} ms: ${sizes}`);
    const xml = readFileSync(join(d, 'junit.xml'), 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(800);
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(validateReport(JSON.parse(readFileSync(join(d, 'conformance.json'), 'utf8')))).toEqual([]);
  });
});

describe('Allure results (src/runner/allure-writer.ts)', () => {
  const requirements = loadRequirements(REQUIREMENTS_PATH);
  const cited = requirements.all.find((r) => r.level === 'SHOULD' && 'standard' in r.source && r.source.url)!;

  it("turn a check's result into its labels, link, description and evidence", () => {
    const site = cited.checks[0]!;
    const c = check({ requirement: cited.id, level: 'SHOULD', group: 'customers', operation: 'createCustomer', family: 'idempotency', status: 'warning', variant: site.variants[0]! });
    const [meta, attachment, ...rest] = allureMessages(c, cited);
    expect(rest).toEqual([]);
    if (meta?.type !== 'metadata' || attachment?.type !== 'attachment_content') throw new Error('expected one metadata and one attachment message');
    expect(meta.data.labels).toEqual([
      { name: 'epic', value: 'Customers' },
      { name: 'feature', value: 'idempotency' },
      { name: 'story', value: cited.id },
      { name: 'severity', value: 'normal' },
      { name: 'requirement', value: cited.id },
      { name: 'level', value: 'SHOULD' },
      { name: 'operation', value: 'createCustomer' },
      { name: 'tag', value: 'warning' },
    ]);
    expect(meta.data.links).toEqual([{ url: (cited.source as { url: string }).url, name: `${cited.id}: ${(cited.source as { standard: string }).standard}` }]);
    expect(meta.data.description).toContain(cited.statement);
    expect(meta.data.description).toContain(`Source: ${c.clause}`);
    // Where the check is defined (the catalogue's index), so that a failure in the HTML report leads to its code.
    expect(meta.data.description).toContain(`Defined at: ${site.at}`);
    // Allure shows no message for a passed test: a warning's finding heads its description, the target's text inert.
    const warned = allureMessages({ ...c, message: 'answered 201 <b>twice</b>' }, cited)[0];
    expect(warned?.type === 'metadata' && warned.data.description).toMatch(/^\*\*Warning\*\* \(SHOULD: does not change the verdict; --strict makes it a failure\): `answered 201 <b>twice<\/b>`\n\n/);
    const passed = allureMessages({ ...c, status: 'passed', message: 'x' }, cited)[0];
    expect(passed?.type === 'metadata' && passed.data.description).toMatch(new RegExp(`^${cited.statement.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(JSON.parse(attachment.data.content)).toEqual(c.exchanges);
  });

  it('attach no evidence to a check that sent nothing, and tag only warnings', () => {
    const must = requirements.all.find((r) => r.level === 'MUST')!;
    const messages = allureMessages(check({ requirement: must.id, level: 'MUST', group: 'transport', status: 'passed', exchanges: [] }), must);
    expect(messages.map((m) => m.type)).toEqual(['metadata']);
    const [first] = messages;
    const labels = first?.type === 'metadata' ? (first.data.labels ?? []) : [];
    expect(labels).toContainEqual({ name: 'severity', value: 'blocker' });
    expect(labels.some((l) => l.name === 'tag' || l.name === 'operation')).toBe(false);
  });

  it("take the check's status: a non-conformance is failed, a check that could not complete broken, a warning passed and tagged", () => {
    // What allure-vitest built: broken for every thrown Error, in the tree of the file and describe block that ran it.
    const vitestMade = (): Partial<TestResult> => ({
      status: 'broken' as TestResult['status'],
      statusDetails: { message: 'FAILED: x', trace: 'Error: FAILED: x\n    at suites/fx.conformance.ts:1:1' },
      fullName: 'fsapi-conformance:dist/suites/waiting.conformance.js#waiting FSAPI-IDEM-002 ...',
      titlePath: ['fsapi-conformance', 'dist', 'suites', 'waiting.conformance.js', 'waiting'],
      labels: [
        { name: 'parentSuite', value: 'waiting' },
        { name: 'package', value: 'fsapi-conformance.dist.suites.waiting.conformance.js' },
        { name: 'epic', value: 'FX' },
      ],
    });
    const settled = (status: CheckResult['status'], message?: string) => {
      const tr = vitestMade();
      settleAllureResult(tr, check({ requirement: 'FSAPI-IDEM-002', level: status === 'warning' ? 'SHOULD' : 'MUST', group: 'fx', family: 'idempotency', operation: 'createFxTrade', status, ...(message ? { message } : {}) }));
      return tr;
    };
    expect(settled('failed', 'the retry created a second trade')).toMatchObject({ status: 'failed', statusDetails: { message: 'the retry created a second trade' } });
    expect(settled('error', 'the target did not answer in 10 s')).toMatchObject({ status: 'broken', statusDetails: { message: 'the target did not answer in 10 s' } });
    expect(settled('warning', 'answered 201')).toMatchObject({ status: 'passed', statusDetails: { message: 'WARNING [SHOULD]: answered 201' } });
    expect(settled('skipped', 'no second business')).toMatchObject({ status: 'skipped', statusDetails: { message: 'no second business' } });
    expect(settled('passed')).toMatchObject({ status: 'passed', statusDetails: {} });
    // The worker's stack says nothing about the target: no trace.
    expect(settled('failed', 'x').statusDetails?.trace).toBeUndefined();
    // The tree: group, family, requirement, not the file that ran the check; the full name is the check's id.
    const tr = settled('failed', 'x');
    expect(tr.titlePath).toEqual(['FX', 'idempotency', 'FSAPI-IDEM-002']);
    expect(tr.fullName).toBe('FSAPI-IDEM-002 createFxTrade default');
    // So are the test case and history ids (Allure's format: md5 of the full name, then md5 of the parameters),
    // whatever file ran the check and whatever ids it had: its history in the HTML report follows the check.
    const md5 = (s: string) => createHash('md5').update(s).digest('hex');
    expect(tr.testCaseId).toBe(md5('FSAPI-IDEM-002 createFxTrade default'));
    expect(tr.historyId).toBe(`${md5('FSAPI-IDEM-002 createFxTrade default')}:${md5('')}`);
    const elsewhere = { ...vitestMade(), fullName: 'fsapi-conformance:../tmp/parts/unbound.part-2-of-3.conformance.mjs#x', testCaseId: 'a', historyId: 'a:b', parameters: [] };
    settleAllureResult(elsewhere, check({ requirement: 'FSAPI-IDEM-002', level: 'MUST', group: 'fx', family: 'idempotency', operation: 'createFxTrade', status: 'failed', message: 'x' }));
    expect([elsewhere.testCaseId, elsewhere.historyId]).toEqual([tr.testCaseId, tr.historyId]);
    expect(tr.labels).toEqual([
      { name: 'epic', value: 'FX' },
      { name: 'package', value: 'fx.idempotency' },
      { name: 'parentSuite', value: 'FX' },
      { name: 'suite', value: 'idempotency' },
      { name: 'subSuite', value: 'FSAPI-IDEM-002' },
    ]);
    // A test that failed without a result crashed outside its check: a suite fault, broken, its error kept.
    const crashed: Partial<TestResult> = { status: 'failed' as TestResult['status'], statusDetails: { message: 'TypeError: x is undefined', trace: 'at y' } };
    settleAllureResult(crashed, undefined);
    expect(crashed).toEqual({ status: 'broken', statusDetails: { message: 'TypeError: x is undefined', trace: 'at y' } });
  });

  it('label the cause of an error or a skip when the result names one', () => {
    const must = requirements.all.find((r) => r.level === 'MUST')!;
    const c = { ...check({ requirement: must.id, level: 'MUST', group: 'transport', status: 'error', exchanges: [] }), cause: 'rate-limited' as const, skip_cause: 42 as unknown as undefined };
    const [first] = allureMessages(c, must);
    const labels = first?.type === 'metadata' ? (first.data.labels ?? []) : [];
    expect(labels).toContainEqual({ name: 'cause', value: 'rate-limited' });
    expect(labels.some((l) => l.name === 'skip_cause')).toBe(false);
  });

  it("are built as allure-vitest builds them, field for field, with what is the same for every test found once", async () => {
    const { default: AllureVitestReporter } = await import('allure-vitest/reporter');
    const must = requirements.all.find((r) => r.level === 'MUST')!;
    const messages = allureMessages(check({ requirement: must.id, level: 'MUST', group: 'customers', operation: 'createCustomer', status: 'failed' }), must);
    const root = { name: '', type: 'suite' } as unknown as RunnerTask['suite'];
    const file = { filepath: join(process.cwd(), 'dist', 'suites', 'customers.conformance.js') };
    const task = (name: string, state: 'pass' | 'fail' | 'skip', extra: Record<string, unknown> = {}): RunnerTestCase =>
      ({
        type: 'test',
        name,
        mode: state === 'skip' ? 'skip' : 'run',
        file,
        suite: { name: 'customers', suite: { name: 'MUST', suite: root } },
        meta: { allureRuntimeMessages: messages, vitestWorker: 2 },
        result: { state, startTime: 1_780_000_000_000, duration: 12, ...(state === 'fail' ? { errors: [{ name: 'Error', message: 'FAILED: x', stack: 'Error: FAILED: x' }] } : {}) },
        ...extra,
      }) as unknown as RunnerTestCase;
    const tasks = [
      task(`${must.id} createCustomer default`, 'pass'),
      task(`${must.id} createCustomer default`, 'fail'),
      task('skipped one', 'skip'),
      task('named @allure.label.owner:payments @allure.id:77', 'pass', { meta: { allureRuntimeMessages: [], vitestWorker: undefined } }),
      task('in a part', 'pass', { file: { filepath: '/elsewhere/unbound.part-2-of-3.conformance.mjs' } }),
    ];
    const before = process.env['ALLURE_LABEL_team'];
    process.env['ALLURE_LABEL_team'] = 'conformance';
    try {
      const stockWriter = new InMemoryWriter();
      const stock = new AllureVitestReporter({});
      Object.assign(stock, { allureReporterRuntime: new ReporterRuntime({ writer: stockWriter }) });
      for (const t of tasks) stock.handleTask(t);
      const ourWriter = new InMemoryWriter();
      const ourRuntime = new ReporterRuntime({ writer: ourWriter });
      const ours = new AllureTestResults();
      for (const t of tasks) {
        expect(plainTest(t)).toBe(true);
        ours.write(ourRuntime, t);
      }
      // Each result's uuid, its attachments' names and its steps' clock are its own; the rest must be equal.
      const comparable = (w: InMemoryWriter) =>
        JSON.parse(JSON.stringify(w.tests).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UUID').replace(/"(start|stop)":\d+/g, '"$1":0')) as unknown[];
      expect(ourWriter.tests).toHaveLength(tasks.length);
      expect(comparable(ourWriter)).toEqual(comparable(stockWriter));
      expect(JSON.stringify(ourWriter.tests)).toContain('"name":"team","value":"conformance"');
      expect(Object.values(ourWriter.attachments).map(String)).toEqual(Object.values(stockWriter.attachments).map(String));
    } finally {
      if (before === undefined) delete process.env['ALLURE_LABEL_team'];
      else process.env['ALLURE_LABEL_team'] = before;
    }
    // Anything else is left to allure-vitest: a failed hook, a test a plan skips, one that never ran.
    expect(plainTest(task('x', 'pass', { result: { state: 'fail', hooks: { beforeEach: 'fail' }, errors: [] } }))).toBe(false);
    expect(plainTest(task('x', 'pass', { meta: { allureSkip: true } }))).toBe(false);
    expect(plainTest(task('x', 'pass', { result: undefined }))).toBe(false);
  });

  it('are written when the run ends, each with its SHA-256, and a folder that cannot be made is named, not thrown', () => {
    const ok = new DeferredAllureWriter(join(root, 'allure-ok'));
    ok.writeAttachment('a-attachment.json', Buffer.from('[]'));
    ok.writeAttachment('b-attachment.json', Buffer.from('[1]'));
    expect(existsSync(join(root, 'allure-ok'))).toBe(false);
    const hashes = new Map<string, string>();
    expect(ok.flush(hashes)).toBeUndefined();
    expect(readFileSync(join(root, 'allure-ok', 'a-attachment.json'), 'utf8')).toBe('[]');
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    expect(hashes).toEqual(new Map([['allure-ok/a-attachment.json', sha('[]')], ['allure-ok/b-attachment.json', sha('[1]')]]));
    // Written once: a second flush has nothing left.
    expect(ok.flush(hashes)).toBeUndefined();
    writeFileSync(join(root, 'a-file'), 'x');
    const bad = new DeferredAllureWriter(join(root, 'a-file', 'allure-results'));
    bad.writeAttachment('b-attachment.json', Buffer.from('[]'));
    expect(bad.flush()).toMatch(/a-file\/allure-results cannot be made \(ENOTDIR\)/);
  });

  it('are written in slices once enough wait, so a large run does not hold them all, and the last flush gives every hash', () => {
    // A bound of 4 characters: the second file makes 5 waiting, so both are written then; the third waits for the flush.
    const sliced = new DeferredAllureWriter(join(root, 'allure-sliced'), 4);
    sliced.writeAttachment('a-attachment.json', Buffer.from('[]'));
    expect(existsSync(join(root, 'allure-sliced'))).toBe(false);
    sliced.writeAttachment('b-attachment.json', Buffer.from('[1]'));
    expect(readFileSync(join(root, 'allure-sliced', 'b-attachment.json'), 'utf8')).toBe('[1]');
    sliced.writeAttachment('c-attachment.json', Buffer.from('[2]'));
    expect(existsSync(join(root, 'allure-sliced', 'c-attachment.json'))).toBe(false);
    const hashes = new Map<string, string>();
    expect(sliced.flush(hashes)).toBeUndefined();
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    expect(hashes).toEqual(new Map([['allure-sliced/a-attachment.json', sha('[]')], ['allure-sliced/b-attachment.json', sha('[1]')], ['allure-sliced/c-attachment.json', sha('[2]')]]));
    // A failure in an early slice is still told at the flush.
    writeFileSync(join(root, 'b-file'), 'x');
    const bad = new DeferredAllureWriter(join(root, 'b-file', 'allure-results'), 1);
    bad.writeAttachment('a-attachment.json', Buffer.from('[]'));
    bad.writeAttachment('b-attachment.json', Buffer.from('[]'));
    expect(bad.flush()).toMatch(/b-file\/allure-results cannot be made \(ENOTDIR\)/);
  });
});
