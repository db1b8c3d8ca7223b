/**
 * Self-verification (issue: prove every verdict). The recorded full matrix (docs/self-verification.json, written by
 * `selfcheck --full --write`: every fault alone over every suite) must match the fault registry and prove every
 * fault caught; the coverage rules must hold; and, every time, the suite is run against the clean sandbox (nothing
 * may fail, warn or error) and against every fault, batched so that non-interfering faults share a run.
 */
import { readFileSync } from 'node:fs';
import type { SuiteSlug } from '../src/catalogue/groups.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAULTS } from '../sandbox/faults.js';
import { planChecks, type PlannedCheck } from '../src/checks/planner.js';
import { selfcheck } from '../src/cli/commands/selfcheck.js';
import { areasOf, batchFaults, coveringSuites, DOC_PATH, readRecord, renderDoc, type FaultRecord } from '../src/selfcheck/record.js';
import { loadCatalogue, type Catalogue } from '../src/binding/catalogue-in-use.js';
import { busy } from './helpers/busy.js';

let catalogue: Catalogue;
let planned: PlannedCheck[];
const record = readRecord();

beforeAll(async () => {
  catalogue = await loadCatalogue();
  planned = await planChecks(catalogue);
});

describe('the recorded full matrix', () => {
  it('holds every fault of the sandbox with its documented requirements, and the document renders it', () => {
    expect(record.faults.map((f) => f.name).sort()).toEqual(FAULTS.map((f) => f.name).sort());
    for (const f of FAULTS) expect([...record.faults.find((r) => r.name === f.name)!.breaks].sort(), f.name).toEqual([...f.breaks].sort());
    expect(readFileSync(DOC_PATH, 'utf8')).toBe(renderDoc(record, catalogue.requirements));
    expect(record.spec_sha256).toBe(catalogue.spec.sha256);
  });

  it('proves every fault caught exactly: its requirements and no other, with the verdict their levels call for', () => {
    expect(record.clean.verdict).toBe('conformant');
    for (const f of record.faults) {
      expect(Object.keys(f.caught_by).sort(), f.name).toEqual([...f.breaks].sort());
      for (const r of f.breaks) expect(f.caught_by[r]!.length, `${f.name} ${r}`).toBeGreaterThan(0);
      const blocking = f.breaks.some((r) => ['MUST', 'CONTRACT'].includes(catalogue.requirements.get(r).level));
      expect(f.verdict, f.name).toBe(blocking ? 'non-conformant' : 'conformant');
    }
  });
});

describe('coverage', () => {
  it('verifies every MUST and SHOULD requirement of a target by at least one check', () => {
    const checked = new Set(planned.map((p) => p.def.requirement));
    // A requirement checked only on a vendor's own operations (the lifecycle walk) names the test that plans and
    // breaks its checks on a document of ours, and says why no sandbox fault can (tested_by, not_tested).
    const vendorOnly = (r: (typeof catalogue.requirements.all)[number]) => r.level !== 'MUST' && r.testedBy !== undefined && r.notTested !== undefined;
    const missing = catalogue.requirements.all.filter((r) => r.scope === 'target' && (r.level === 'MUST' || r.level === 'SHOULD') && !checked.has(r.id) && !vendorOnly(r));
    expect(missing.map((r) => r.id)).toEqual([]);
  });

  it('names only requirements that exist, in every check and every fault', () => {
    for (const p of planned) expect(catalogue.requirements.byId.has(p.def.requirement), p.id).toBe(true);
    for (const f of FAULTS) for (const r of f.breaks) expect(catalogue.requirements.byId.has(r), `${f.name} ${r}`).toBe(true);
  });

  it('gives every check a unique id whose test name starts with its requirement', () => {
    const ids = planned.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of planned) expect(p.id.startsWith(`${p.def.requirement} `), p.id).toBe(true);
  });

  it('proves every MUST requirement of a target with a fault (client-scope ones by their own tests)', () => {
    const broken = new Set(FAULTS.flatMap((f) => f.breaks));
    const unproven = catalogue.requirements.all.filter((r) => r.level === 'MUST' && r.scope === 'target' && !broken.has(r.id));
    expect(unproven.map((r) => r.id)).toEqual([]);
  });

  it('gives every check family a fault that only that family catches', () => {
    const familyOf = new Map(planned.map((p) => [p.id, p.def.family]));
    const alone = new Set<string>();
    for (const f of record.faults) {
      const families = new Set(Object.values(f.caught_by).flatMap((checks) => checks.map((c) => familyOf.get(c.id) ?? '?')));
      if (families.size === 1) alone.add([...families][0]!);
    }
    const families = [...new Set(planned.map((p) => p.def.family))].filter((f) => f !== 'observation'); // INFO never fails
    expect(families.filter((f) => !alone.has(f))).toEqual([]);
  });
});

describe('batching', () => {
  const faults = FAULTS.map((f) => ({ name: f.name, breaks: [...f.breaks], ...(f.area ? { area: f.area } : {}) }));

  it('never puts two faults of one area, or two that break the same requirement, in one run', () => {
    const batches = batchFaults(faults);
    expect(batches.flat().map((f) => f.name).sort()).toEqual(faults.map((f) => f.name).sort());
    for (const b of batches) {
      const reqs = b.flatMap((f) => f.breaks);
      expect(new Set(reqs).size, b.map((f) => f.name).join(' + ')).toBe(reqs.length);
      const areas = b.flatMap((f) => areasOf(f));
      expect(new Set(areas).size, b.map((f) => f.name).join(" + ")).toBe(areas.length);
    }
    expect(batches.length).toBeLessThan(faults.length / 3);
    // The pair that taught this rule: text/plain bodies hide a schema drift from schema validation.
    expect(batches.some((b) => b.some((f) => f.name === 'text-plain-responses') && b.some((f) => f.name === 'schema-nested-drift'))).toBe(false);
  });

  it('puts a fault in the fitting batch whose suites grow least, counting each suite by its size', () => {
    const f = (name: string, area: string, breaks: string[]) => ({ name, area, breaks });
    const suitesOf: Record<string, SuiteSlug[]> = { a: ['fx'], b: ['accounts', 'customers'], c: ['customers'] };
    const size = (s: SuiteSlug) => ({ fx: 200, accounts: 100, customers: 150 })[s as 'fx'] ?? 0;
    // a and b open two batches (same area); c fits both and adds nothing to b's, but all of customers to a's.
    const batches = batchFaults([f('a', 'x', ['R1', 'R2', 'R3']), f('b', 'x', ['R4', 'R5']), f('c', 'y', ['R6'])], (x) => suitesOf[x.name]!, size);
    expect(batches.map((b) => b.map((x) => x.name))).toEqual([['a'], ['b', 'c']]);
    // Without costs the first fitting batch is taken.
    expect(batchFaults([f('a', 'x', ['R1', 'R2', 'R3']), f('b', 'x', ['R4', 'R5']), f('c', 'y', ['R6'])]).map((b) => b.map((x) => x.name))).toEqual([['a', 'c'], ['b']]);
  });

  it('covers every requirement a fault breaks with the fewest suites its recorded checks live in', () => {
    const f: FaultRecord = {
      name: 'x',
      description: '',
      breaks: ['A', 'B'],
      verdict: 'non-conformant',
      caught_by: { A: [{ id: 'a1', suite: 'customers' }, { id: 'a2', suite: 'accounts' }], B: [{ id: 'b1', suite: 'accounts' }] },
    };
    expect(coveringSuites(f, () => 1)).toEqual(['accounts']);
  });

  it("passes over a suite whose catching checks read only what other suites made, where another suite's check stands alone", () => {
    // tenant-list-leak-page-two: the webhooks suite caught it twice in the full run, on lists of deliveries and
    // events that other suites' writes filled; alone it sees no second page. The accounts suite fills its own list.
    const f: FaultRecord = {
      name: 'tenant-list-leak-page-two',
      description: '',
      breaks: ['FSAPI-TEN-001', 'FSAPI-X-001'],
      verdict: 'non-conformant',
      caught_by: {
        'FSAPI-TEN-001': [
          { id: 'FSAPI-TEN-001 listAccounts foreign-items', suite: 'accounts' },
          { id: 'FSAPI-TEN-001 listWebhookDeliveries foreign-items', suite: 'webhooks' },
          { id: 'FSAPI-TEN-001 listWebhookEvents foreign-items', suite: 'webhooks' },
        ],
        // Caught only where other suites' data is needed: that suite is still the one to run.
        'FSAPI-X-001': [{ id: 'FSAPI-X-001 listWebhookEvents x', suite: 'webhooks' }],
      },
    };
    const alone = (id: string) => !/listWebhook/.test(id);
    expect(coveringSuites({ ...f, breaks: ['FSAPI-TEN-001'] }, () => 1)).toEqual(['webhooks']);
    expect(coveringSuites({ ...f, breaks: ['FSAPI-TEN-001'] }, () => 1, alone)).toEqual(['accounts']);
    expect(coveringSuites(f, () => 1, alone)).toEqual(['accounts', 'webhooks']);
  });
});

describe('the fault matrix, every run', { timeout: busy(900_000) }, () => {
  it('the clean sandbox fails nothing, and every fault fails exactly its documented requirements', async () => {
    const lines: string[] = [];
    const summary = await selfcheck({ full: false, parallel: 2, seed: 1, log: (s) => lines.push(s) });
    expect(summary.cleanOk, lines.join('\n')).toBe(true);
    expect(summary.results.filter((r) => !r.ok).map((r) => r.fault.name), lines.join('\n')).toEqual([]);
    expect(summary.results).toHaveLength(FAULTS.length);
  });
});
