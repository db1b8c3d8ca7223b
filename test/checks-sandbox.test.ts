/**
 * The generic check families against the embedded sandbox, through the real CLI and harness: with no fault every
 * check of these families passes (or is skipped with a reason), and with faults switched on exactly the
 * requirements the faults document (sandbox/faults.ts) fail. Faults whose requirements do not overlap share a
 * run, so a handful of runs covers every family.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAULTS } from '../sandbox/faults.js';
import { runCli } from './helpers/cli.js';

interface Check {
  requirement: string;
  family: string;
  group: string;
  operation?: string;
  status: string;
  id: string;
  message?: string;
}

const root = mkdtempSync(join(tmpdir(), 'fsapi-checks-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Families built here (auth's 401 checks, the traffic judgements and the group flows are tested elsewhere). */
const MINE = new Set(['idempotency', 'headers', 'schema', 'input', 'tenancy', 'transport', 'versioning', 'http', 'observation']);
const mine = (c: Check) => MINE.has(c.family) || c.requirement === 'FSAPI-AUTH-007';
const bad = (c: Check) => c.status === 'failed' || c.status === 'warning' || c.status === 'error';

let n = 0;
async function run(groups: string[], faults: string[] = []): Promise<Check[]> {
  const dir = join(root, `run-${n++}`);
  const args = ['run', '--groups', groups.join(','), '--seed', '1', '--report-dir', dir, '--timeout-ms', '30000'];
  for (const f of faults) args.push('--sandbox-fault', f);
  const res = await runCli(args, {});
  const text = (() => {
    try {
      return readFileSync(join(dir, 'latest', 'conformance.json'), 'utf8');
    } catch {
      throw new Error(`no report (exit ${res.code}): ${res.stderr.slice(-2000)}`);
    }
  })();
  return (JSON.parse(text) as { checks: Check[] }).checks;
}

const documented = (faults: string[]) => new Set(faults.flatMap((f) => FAULTS.find((d) => d.name === f)!.breaks));

/** The requirements with a failing, warning or erroring check (of these families), with one message each. */
function failing(checks: Check[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of checks.filter((x) => mine(x) && bad(x))) if (!out.has(c.requirement)) out.set(c.requirement, `${c.status} ${c.id}: ${c.message ?? ''}`);
  return out;
}

/** Expects the failing requirements of these families to be exactly the documented ones they own. */
function expectExactly(checks: Check[], faults: string[]): void {
  const want = [...documented(faults)].filter((r) => checks.some((c) => mine(c) && c.requirement === r)).sort();
  const got = failing(checks);
  const extra = [...got.keys()].filter((r) => !want.includes(r)).map((r) => got.get(r));
  expect(extra, 'failing beyond the documented breaks').toEqual([]);
  expect([...got.keys()].sort(), `faults ${faults.join(', ')}`).toEqual(want);
}

describe('the generic check families against the embedded sandbox', { timeout: 600_000 }, () => {
  it('a conformant sandbox passes every check of these families (customers, kyc, transport, versioning)', async () => {
    const checks = await run(['customers', 'kyc', 'transport', 'versioning']);
    const ours = checks.filter(mine);
    expect(failing(checks)).toEqual(new Map());
    // Every family ran, and most checks were judged rather than skipped.
    for (const f of MINE) expect(ours.filter((c) => c.family === f && c.status === 'passed').length, f).toBeGreaterThan(0);
    const skipped = ours.filter((c) => c.status === 'skipped');
    expect(skipped.length, skipped.map((c) => `${c.id}: ${c.message}`).slice(0, 5).join('\n')).toBeLessThan(ours.length / 20);
  });

  // Each set: faults whose documented requirements do not overlap, so each must show on its own requirement.
  const SETS: { groups: string[]; faults: string[] }[] = [
    {
      groups: ['customers'],
      faults: [
        'idem-key-optional',
        'idem-accept-different-body',
        'idem-case-insensitive',
        'auth-writes-before-check',
        'tenant-header-optional',
        'tenant-isolation-broken',
        'no-415',
        'no-413',
        'malformed-json-500',
        'validation-skip-required',
        'validation-errors-unnamed',
        'mass-assignment',
        'unknown-path-500',
        'no-405',
        'pagination-repeats',
      ],
    },
    { groups: ['customers'], faults: ['idem-ignored', 'tenant-header-trusted', 'tenant-list-leak-page-two'] },
    { groups: ['customers'], faults: ['idem-replay-new-id', 'idem-shared-across-tenants', 'idem-truncated-keys'] },
    { groups: ['customers', 'kyc'], faults: ['idem-race', 'unbounded-limit'] },
    { groups: ['transport', 'versioning'], faults: ['plain-http-processed', 'version-ignored'] },
    { groups: ['transport', 'versioning'], faults: ['plain-http-redirect', 'unversioned-base-path'] },
  ];
  for (const set of SETS) {
    it(`${set.faults.join(' + ')}: exactly their requirements fail`, async () => {
      expectExactly(await run(set.groups, set.faults), set.faults);
    });
  }

  it('idem-short-retention: only the delayed replay fails; the immediate one still passes', async () => {
    const checks = await run(['customers'], ['idem-short-retention']);
    expectExactly(checks, ['idem-short-retention']);
    const replay = (variant: string) => checks.find((c) => c.requirement === 'FSAPI-IDEM-002' && c.operation === 'createCustomer' && c.id.endsWith(` ${variant}`))!;
    expect(replay('replay-delayed').status).toBe('failed');
    expect(replay('replay').status).toBe('passed');
  });
});
