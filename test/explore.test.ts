/**
 * The exploration phase in whole runs of the customers group (the one with the most input): against the clean
 * sandbox it finds nothing and keeps to its budget; against a sandbox that answers 500 to a plus-addressed e-mail
 * (the crash-plus-email fault) its listCustomers check fails under FSAPI-CONTRACT-002 with the minimal request,
 * and the reproduction script sends that request.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckResult, RunReport } from '../src/results/model.js';
import { SHRINK_BUDGET } from '../src/explore/shrink.js';
import { runCli } from './helpers/cli.js';
import { parse } from 'yaml';
import { REFERENCE_SPEC_PATH } from '../src/catalogue/index.js';
import { loadSpec } from '../src/catalogue/openapi.js';
import { exploreFamily } from '../src/checks/explore.js';
import { answerOf, judgeOutcome } from '../src/harness/judge.js';

const BUDGET = 6;
const explorations = (r: RunReport): CheckResult[] => r.checks.filter((c) => c.id.endsWith(' explore'));

async function run(faults: string[], extra: string[] = []): Promise<{ code: number | null; report: RunReport; stdout: string; summary: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-explore-'));
  const r = await runCli(['run', '--groups', 'customers', '--seed', '33', '--explore', String(BUDGET), '--quiet', '--report-dir', dir, ...extra, ...faults.flatMap((f) => ['--sandbox-fault', f])], {});
  const read = (f: string) => readFileSync(join(dir, 'latest', f), 'utf8');
  return { code: r.code, stdout: r.stdout, report: JSON.parse(read('conformance.json')) as RunReport, summary: read('summary.md') };
}

describe('the exploration phase in a run', { timeout: 240_000 }, () => {
  it('finds nothing on the clean sandbox, within its budget, and catches a crash on a plus-addressed e-mail with the minimal request', async () => {
    const [clean, broken, spec] = await Promise.all([run([]), run(['crash-plus-email']), loadSpec(REFERENCE_SPEC_PATH)]);

    expect(clean.code).toBe(0);
    expect(clean.report.checks.filter((c) => c.status !== 'passed' && c.status !== 'skipped')).toEqual([]);
    const ran = explorations(clean.report);
    expect(ran.map((c) => c.operation).sort()).toEqual(['createCustomer', 'listCustomers', 'updateCustomer']);
    for (const c of ran) {
      expect(c.status, c.id).toBe('passed');
      expect(c.facts?.['explore_requests'], c.id).toBeGreaterThan(0);
      expect(c.facts?.['explore_requests'], c.id).toBeLessThanOrEqual(BUDGET);
    }
    // createCustomer has more variants than the budget: the run says so in its headline.
    expect(clean.report.headline).toMatch(/exploration: \d+ valid requests over 3 operations( \(\+\d+ shrinking\))?, \d+ variants left unexplored by the budget/);

    expect(broken.code).toBe(1);
    // A write keeps the e-mail the run labels what it makes by (so it stays findable); the list's e-mail filter is explored.
    for (const op of ['createCustomer', 'updateCustomer']) expect(explorations(broken.report).find((c) => c.operation === op)!.status, op).toBe('passed');
    const failed = explorations(broken.report).find((c) => c.operation === 'listCustomers')!;
    expect(failed.status).toBe('failed');
    expect(failed.requirement).toBe('FSAPI-CONTRACT-002');
    expect(failed.message).toMatch(/minimal request: query email = .*\(e-mail: plus-addressed\), answered 500/);
    expect(failed.facts?.['explore_shrink_requests']).toBeLessThanOrEqual(SHRINK_BUDGET);
    // The minimal request is the one the reproduction sends: the e-mail it shrank to, with its plus, in the query.
    const sent = [...(failed.reproduce ?? '').matchAll(/[?&]email=([^&'"\s]*)/g)].at(-1)?.[1];
    expect(decodeURIComponent(sent ?? '')).toMatch(/\+.*@/);
    if (sent!.length <= 42) expect(failed.message).toContain(`minimal request: query email = ${JSON.stringify(decodeURIComponent(sent!))}`);
    // Nothing but the exploration and the observed statuses fails: the fault breaks exactly FSAPI-CONTRACT-002, and
    // warns under FSAPI-CONTRACT-102 (a server error to a valid request, a SHOULD) with the same minimal request.
    expect([...new Set(broken.report.checks.filter((c) => c.status === 'failed').map((c) => c.requirement))]).toEqual(['FSAPI-CONTRACT-002']);
    expect(broken.report.checks.filter((c) => c.status === 'warning').map((c) => c.id)).toEqual(['FSAPI-CONTRACT-102 listCustomers explore-5xx']);
    expect(broken.stdout).toContain('exploration: ');
    // verify's re-judging: the checks' own judges, on the answers rebuilt from the recorded evidence, give the
    // recorded verdicts and messages (and a failure flipped to passed would differ).
    // The server-error check is judged on what its sibling explored and recorded, passing ones too.
    for (const c of [...explorations(broken.report), ...broken.report.checks.filter((x) => x.id.endsWith(' explore-5xx'))]) {
      const def = exploreFamily.forOperation!(spec.byId.get(c.operation!)!, { spec, isReferenceProfile: true }).find((d) => c.id.endsWith(` ${d.variant}`))!;
      const source = def.judgesEvidenceOf ? broken.report.checks.find((x) => x.id === def.judgesEvidenceOf)! : c;
      const answers = source.exchanges.flatMap((x) => answerOf(x) ?? []);
      expect(answers.length, c.id).toBeGreaterThan(0);
      const o = judgeOutcome(def.judge!, answers, c.level, false, c.facts ?? {});
      expect(o.status, c.id).toBe(c.status);
      if (o.message && c.status !== 'passed') expect(c.message, c.id).toBe(o.message);
    }
    expect(failed.message).toMatch(/^\d+ of \d+ explored valid requests \(the shrinking's among them\) answered 500, not documented for listCustomers; minimal request: /);
    for (const c of clean.report.checks.filter((c) => c.requirement === 'FSAPI-CONTRACT-102')) expect(c.status, c.id).toBe('passed');
    // The reference's own business rules refuse some explored values: here an address whose state is no
    // subdivision of its country (a rule its document states in prose only). Shown as suggestions, no verdict.
    for (const c of clean.report.checks.filter((c) => c.refused_value)) expect(c.refused_value!.detail, c.id).toMatch(/must be a subdivision of/);
  });

  it('shows a documented 422 refusing a value the document allows as a suggestion with its minimal request, never as a verdict', async () => {
    const { code, report, stdout, summary } = await run(['refuse-non-ascii-name']);
    expect(code).toBe(0);
    expect(report.checks.filter((c) => c.status !== 'passed' && c.status !== 'skipped')).toEqual([]);
    const create = report.checks.find((c) => c.id === 'FSAPI-CONTRACT-002 createCustomer explore')!;
    const v = create.refused_value!;
    // Shrunk to the one member, its value cut down to the character that draws the refusal.
    expect(v.member).toMatch(/^(first|middle|last)_name$/);
    expect(v.request).toMatch(/^(first|middle|last)_name = "[^\x00-\x7f]" \(unicode: [^)]+\); triggering characters: "[^\x00-\x7f]" \(U\+[0-9A-F]{4}\)$/u);
    expect(v).toMatchObject({ status: 422, title: 'Unsupported characters' });
    expect(v.detail).toContain(`/${v.member} holds characters`);
    expect(v.refused).toBeGreaterThan(0);
    expect(v.refused).toBeLessThanOrEqual(v.explored);
    // Counted in the headline, listed in summary.md with the operation, the minimal request, the status and the problem.
    expect(report.headline).toMatch(/\d+ operations? refused a value the document allows \(suggestions in summary\.md\)/);
    expect(stdout).toContain('refused a value the document allows');
    expect(summary).toMatch(/## Values the document allows that the target refused \(\d+ suggestions?\)/);
    expect(summary).toContain(`| \`createCustomer\` | \`${v.request}\` | 422 \`Unsupported characters: ${v.detail}\` | ${v.refused} of ${v.explored} explored |`);
  });

  it('shares a total budget out before any request: one request each to the first operations by id, the rest skipped, and the headline says so', async () => {
    const { code, report } = await run([], ['--explore-total', '2']);
    expect(code).toBe(0);
    expect(report.run.settings?.explore_total).toBe(2);
    const byOp = (op: string) => explorations(report).find((c) => c.operation === op)!;
    for (const op of ['createCustomer', 'listCustomers']) expect(byOp(op).facts?.['explore_requests'], op).toBe(1);
    expect(byOp('updateCustomer')).toMatchObject({ status: 'skipped', skip_cause: 'not-applicable', exchanges: [] });
    expect(report.checks.find((c) => c.id === 'FSAPI-CONTRACT-102 updateCustomer explore-5xx')).toMatchObject({ status: 'skipped', skip_cause: 'not-applicable' });
    expect(report.headline).toMatch(/exploration: 2 valid requests over 2 operations.*, the total budget \(FSAPI_EXPLORE_TOTAL\) held each operation to 1 request and left (\d+ variants and )?1 operation unexplored/);
  });

  it('holds a server error the document lists to FSAPI-CONTRACT-102 (a SHOULD), shrunk to the minimal request, where FSAPI-CONTRACT-002 is blind', async () => {
    // The reference document with a 500 listed for listCustomers, as vendors' documents list it almost everywhere.
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-explore-500-'));
    const doc = parse(readFileSync(REFERENCE_SPEC_PATH, 'utf8'), { maxAliasCount: -1 }) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    doc.paths['/customers']!['get']!.responses['500'] = { description: 'The server erred', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
    const file = join(dir, 'with-500.json');
    writeFileSync(file, JSON.stringify(doc));
    const [clean, broken] = await Promise.all([run([], ['--embedded-sandbox', '--spec', file]), run(['crash-plus-email'], ['--embedded-sandbox', '--spec', file])]);

    expect(clean.code).toBe(0);
    expect(clean.report.checks.filter((c) => c.status !== 'passed' && c.status !== 'skipped')).toEqual([]);

    // Documented, so no undocumented status anywhere: a SHOULD warning, the verdict conformant.
    expect(broken.code).toBe(0);
    expect(broken.report.checks.filter((c) => c.status === 'failed')).toEqual([]);
    const byId = (id: string) => broken.report.checks.find((c) => c.id === id)!;
    expect(byId('FSAPI-CONTRACT-002 listCustomers explore').status).toBe('passed');
    expect(byId('FSAPI-CONTRACT-002 listCustomers observed-status').status).toBe('passed');
    const server = byId('FSAPI-CONTRACT-102 listCustomers explore-5xx');
    expect(server.status).toBe('warning');
    expect(server.message).toMatch(/answered a server error: 500 \(documented\); minimal request: query email = "[^"]*\+[^"]*@[^"]*" \(e-mail: plus-addressed\), answered 500; triggering characters: "\+" \(U\+002B\)/);
    // The reproduction sends the minimal request.
    const sent = [...(server.reproduce ?? '').matchAll(/[?&]email=([^&'"\s]*)/g)].at(-1)?.[1];
    expect(decodeURIComponent(sent ?? '')).toMatch(/^[^@]*\+[^@]*@/);
  });
});
