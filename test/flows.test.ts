/**
 * The group flows (suites/*.conformance.ts) against the embedded sandbox, through the real CLI: with no fault every
 * flow check passes, and with the flow faults switched on exactly the flow requirements they document
 * (sandbox/faults.ts) fail. Faults whose flow requirements do not overlap share a run; the runs go three at a time.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULTS } from '../sandbox/faults.js';
import { GROUPS } from '../src/catalogue/groups.js';
import { firstDifference, LONG_NUMBER, sameJson, show, times, units } from '../src/world/flow-support.js';
import { runCli } from './helpers/cli.js';

interface Check {
  id: string;
  requirement: string;
  family: string;
  group: string;
  status: string;
  message?: string;
}

const root = mkdtempSync(join(tmpdir(), 'fsapi-flows-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ALL_GROUPS = GROUPS.map((g) => g.slug);

/** The flow requirements each group's suite judges (its flows, by requirement). */
const FLOW_REQUIREMENTS: Record<string, string[]> = {
  customers: ['FSAPI-CUS-001', 'FSAPI-CUS-002', 'FSAPI-CUS-003', 'FSAPI-CUS-004', 'FSAPI-CUS-005', 'FSAPI-CUS-006'],
  kyc: ['FSAPI-KYC-001', 'FSAPI-KYC-002', 'FSAPI-KYC-003'],
  features: ['FSAPI-FEAT-001', 'FSAPI-FEAT-002'],
  accounts: ['FSAPI-ACC-001', 'FSAPI-ACC-101'],
  'external-accounts': ['FSAPI-XACC-001'],
  transfers: ['FSAPI-TRF-001', 'FSAPI-TRF-002', 'FSAPI-TRF-003'],
  cards: ['FSAPI-CARD-001', 'FSAPI-CARD-002', 'FSAPI-CARD-003'],
  collections: ['FSAPI-COL-001', 'FSAPI-COL-002'],
  wallets: ['FSAPI-WAL-001'],
  fx: ['FSAPI-FX-001', 'FSAPI-FX-002', 'FSAPI-FX-003'],
  transactions: ['FSAPI-TXN-001', 'FSAPI-TXN-002'],
  webhooks: ['FSAPI-WH-001', 'FSAPI-WH-002', 'FSAPI-WH-003', 'FSAPI-WH-101', 'FSAPI-WH-102', 'FSAPI-WH-103', 'FSAPI-WH-104'],
};

/** Each run: groups and faults whose flow requirements do not overlap, so each fault shows on its own requirements. */
const RUNS: { groups: string[]; faults: string[] }[] = [
  {
    groups: ['customers', 'accounts', 'kyc', 'features'],
    faults: [
      'customer-type-individual-refused',
      'accounts-list-empty',
      'account-nonzero-opening-balance',
      'kyc-skip-review',
      'kyc-reject-ignored',
      'kyc-documents-not-listed',
      'features-without-kyc',
      'features-double-activation',
    ],
  },
  { groups: ['customers'], faults: ['date-format-unchecked', 'phone-format-unchecked', 'country-format-unchecked', 'state-format-unchecked', 'customer-not-stored'] },
  {
    groups: ['external-accounts', 'transfers', 'cards', 'collections'],
    faults: [
      'external-account-full-number',
      'transfer-no-credit',
      'transfer-overdraft',
      'transfer-external-stuck',
      'card-transition-unchecked',
      'card-without-feature',
      'card-full-number',
      'collections-no-credit',
      'collections-decline-ignored',
    ],
  },
  { groups: ['wallets', 'fx', 'transactions'], faults: ['wallet-any-network', 'fx-wrong-rate', 'fx-quote-reuse', 'fx-rates-empty', 'transactions-filter-ignored'] },
  { groups: ['transactions', 'transfers', 'collections', 'fx', 'webhooks'], faults: ['group-missing-transactions', 'webhooks-not-delivered'] },
  { groups: ['webhooks'], faults: ['webhooks-unsigned', 'webhooks-no-retry', 'events-not-viewable', 'webhooks-history-incomplete'] },
  { groups: ['webhooks'], faults: ['webhooks-wrong-secret', 'webhooks-new-id-on-retry', 'event-details-differ'] },
];

/** The faults of the flows: every fault that breaks a flow requirement. */
const FLOW_REQS = new Set(Object.values(FLOW_REQUIREMENTS).flat());
const FLOW_FAULTS = FAULTS.filter((f) => f.breaks.some((r) => FLOW_REQS.has(r))).map((f) => f.name);
const breaksOf = (fault: string) => FAULTS.find((f) => f.name === fault)!.breaks.filter((r) => FLOW_REQS.has(r));

let n = 0;
async function run(groups: string[], faults: string[]): Promise<Check[]> {
  const dir = join(root, `run-${n++}`);
  const args = ['run', '--groups', groups.join(','), '--seed', '1', '--report-dir', dir, '--timeout-ms', '30000', '--webhook-wait-ms', '4000', '--replay-delay-ms', '0', '--idempotency-parallel', '2'];
  for (const f of faults) args.push('--sandbox-fault', f);
  const res = await runCli(args, {});
  let text: string;
  try {
    text = readFileSync(join(dir, 'latest', 'conformance.json'), 'utf8');
  } catch {
    throw new Error(`no report (exit ${res.code}): ${res.stderr.slice(-2000)}`);
  }
  return (JSON.parse(text) as { checks: Check[] }).checks.filter((c) => c.family === 'flow');
}

const bad = (c: Check) => c.status === 'failed' || c.status === 'warning' || c.status === 'error';

/** Requirement → the message of its first bad flow check. */
function failing(checks: Check[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of checks.filter(bad)) if (!out.has(c.requirement)) out.set(c.requirement, `${c.status} ${c.id}: ${c.message ?? ''}`);
  return out;
}

/** At most `limit` promises at a time. */
async function pooled<T>(items: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out: T[] = new Array<T>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await items[i]!();
      }
    }),
  );
  return out;
}

describe('flow helpers', () => {
  it('does decimal money exactly', () => {
    expect(units('100.00')).toBe(10_000_000_000n);
    expect(units('0.9200')).toBe(92_000_000n);
    expect(units(12.5)).toBe(1_250_000_000n);
    expect(show(units('72.3304'))).toBe('72.3304');
    expect(show(units('-5.1'))).toBe('-5.10');
    expect(show(times(units('78.62'), units('0.92')))).toBe('72.3304');
    expect(() => units('12,50')).toThrow(/not a decimal amount/);
  });

  it('finds a card-length digit run, and not a shorter or longer one', () => {
    expect(LONG_NUMBER.test('{"metadata":{"pan":"4242424242424242"}}')).toBe(true);
    expect(LONG_NUMBER.test('{"last4":"4242","account_number":"4012345678","at":"2026-03-01T11:10:00Z"}')).toBe(false);
    expect(LONG_NUMBER.test('12345678901234567890')).toBe(false);
  });

  it('compares JSON regardless of member order and names the first difference', () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(firstDifference({ id: 'e', created_at: 'x' }, { created_at: 'y', id: 'e' })).toBe('created_at: "x" vs "y"');
  });
});

describe('the fault table of this test', () => {
  it('covers every fault that breaks a flow requirement, once, with no two faults of a run sharing a flow requirement', () => {
    const tabled = RUNS.flatMap((r) => r.faults);
    expect([...tabled].sort()).toEqual([...FLOW_FAULTS].sort());
    expect(new Set(tabled).size).toBe(tabled.length);
    for (const r of RUNS) {
      const reqs = r.faults.flatMap(breaksOf);
      expect(new Set(reqs).size, r.faults.join(', ')).toBe(reqs.length);
      for (const f of r.faults) for (const req of breaksOf(f)) expect(r.groups.some((g) => FLOW_REQUIREMENTS[g]!.includes(req)), `${f} → ${req} outside ${r.groups.join(',')}`).toBe(true);
    }
  });

  it('has every flow requirement broken by some fault (so every flow is seen to fail)', () => {
    const broken = new Set(FLOW_FAULTS.flatMap(breaksOf));
    expect([...FLOW_REQS].filter((r) => !broken.has(r))).toEqual([]);
  });
});

describe('the group flows against the embedded sandbox', { timeout: 900_000 }, () => {
  // Every run first (three child processes at a time), then one test per run, so a failure names its faults.
  let clean: Check[] = [];
  let faulty: Check[][] = [];
  beforeAll(async () => {
    [clean = [], ...faulty] = await pooled([() => run(ALL_GROUPS, []), ...RUNS.map((r) => () => run(r.groups, r.faults))], 3);
  }, 900_000);

  it('pass against the conformant sandbox: every flow requirement has a passing check, none fails or is skipped', () => {
    expect(failing(clean)).toEqual(new Map());
    for (const req of FLOW_REQS) expect(clean.filter((c) => c.requirement === req && c.status === 'passed').length, req).toBeGreaterThan(0);
    expect(clean.filter((c) => c.status === 'skipped').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
  });

  RUNS.forEach((r, i) => {
    it(`fail exactly the documented flow requirements with ${r.faults.join(', ')}`, () => {
      const want = [...new Set(r.faults.flatMap(breaksOf))].sort();
      const got = failing(faulty[i] ?? []);
      expect([...got.keys()].sort(), [...got.values()].join(' | ')).toEqual(want);
    });
  });
});
