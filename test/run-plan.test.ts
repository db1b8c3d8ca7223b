/**
 * How a run is laid out on vitest's workers (src/runner/run-plan.ts) and which of its parts an embedded run starts
 * (src/runner/target.ts): work the plan does not need is not paid for.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalogue } from '../src/binding/catalogue-in-use.js';
import type { SuiteSlug } from '../src/catalogue/groups.js';
import { planChecks } from '../src/checks/planner.js';
import { loadRunConfig } from '../src/config/run-config.js';
import { DOMINANT_SHARE, planRun } from '../src/runner/run-plan.js';
import { heapGrowingPercent } from '../src/runner/heap-growth.js';
import { DELIVERIES_READ_BY } from '../src/runner/target.js';
import { partFiles, partsOf, suiteOfFile } from '../src/runner/suite-parts.js';
import { readFileSync } from 'node:fs';
import { busy } from './helpers/busy.js';
import { runCli } from './helpers/cli.js';

const cwd = mkdtempSync(join(tmpdir(), 'fsapi-plan-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const plan = (groups: SuiteSlug[]) => planRun(loadRunConfig({ groups: groups.join(',') }, { env: {}, cwd }), 'run-plan-test', () => undefined);

describe('the run plan', () => {
  it('one suite runs its checks that wait in its own file, first, in slots of their own, on one worker', async () => {
    const p = await plan(['customers']);
    const waits = p.checksOf('customers').filter((d) => d.waits).length;
    expect(waits).toBeGreaterThan(0);
    expect(p.waiting).toBe(false);
    expect(p.waitsInSuite).toBe(waits);
    expect(p.maxConcurrency).toBe(p.cfg.concurrency + waits);
    expect(p.workers).toBe(1);
  });

  it('two suites or more keep the waiting file, whose wait overlaps the other suites on another worker', async () => {
    const p = await plan(['customers', 'accounts']);
    expect(p.waiting).toBe(true);
    expect(p.waitsHost).toBeUndefined();
    expect(p.waitsInSuite).toBe(0);
    expect(p.maxConcurrency).toBe(p.cfg.concurrency);
    expect(p.workers).toBe(2);
  });

  it(`a suite holding ${DOMINANT_SHARE * 100}% of the checks or more hosts every suite's checks that wait, on one worker (a vendor document's unbound)`, async () => {
    const p = await plan(['fx', 'transport', 'versioning']);
    const total = p.cfg.groups.reduce((n, g) => n + p.weight(g), 0);
    expect(p.weight('fx') / total).toBeGreaterThanOrEqual(DOMINANT_SHARE);
    const waits = p.cfg.groups.flatMap((g) => p.checksOf(g)).filter((d) => d.waits).length;
    expect(waits).toBeGreaterThan(0);
    expect(p.waitsHost).toBe('fx');
    expect(p.waiting).toBe(false);
    expect(p.waitsInSuite).toBe(waits);
    expect(p.maxConcurrency).toBe(p.cfg.concurrency + waits);
    expect(p.workers).toBe(1);
    // Short of the share, the waiting file and two workers as before.
    const near = await plan(['fx', 'webhooks']);
    expect(near.weight('fx') / (near.weight('fx') + near.weight('webhooks'))).toBeLessThan(DOMINANT_SHARE);
    expect([near.waitsHost, near.waiting, near.workers]).toEqual([undefined, true, 2]);
  });

  it('a hosted check that waits still runs and judges: the delayed replay catches a target that ignores Idempotency-Key', { timeout: busy(60_000) }, async () => {
    const r = await runCli(['run', '--groups', 'customers,transport', '--sandbox-fault', 'idem-ignored', '--seed', '3', '--report-dir', join(cwd, 'hosted')], {}, cwd);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^running 2 suites \(1 worker: customers holds \d+% of the checks, 16 checks in flight per suite; the 2 checks that wait for an event start first, in the customers file beside its own\)$/m);
    expect(r.stdout).toMatch(/FAIL {2}FSAPI-IDEM-002 \[MUST\] createCustomer: a retry after the replay delay/);
    expect(r.stdout).not.toMatch(/^ {2}\S+ +waiting /m);
  });

  it('a suite none of whose checks waits has no waiting file and nothing folded in', async () => {
    const p = await plan(['transport']);
    expect(p.waiting).toBe(false);
    expect(p.waitsInSuite).toBe(0);
    expect(p.workers).toBe(1);
  });

  it(`every check that reads webhook deliveries is in the ${DELIVERIES_READ_BY} suite (an embedded run without it starts no receiver)`, async () => {
    const readers = (await planChecks(await loadCatalogue())).filter((c) => c.def.needs?.includes('webhooks'));
    expect(readers.length).toBeGreaterThan(0);
    expect([...new Set(readers.map((c) => c.suite))]).toEqual([DELIVERIES_READ_BY]);
  });

  it('runs only unbound in parts, only on one worker and past FSAPI_PART_CHECKS; a part file names its suite and place, and declares only that', async () => {
    expect(partsOf('unbound', 57_413, 5000, 1)).toBe(12);
    expect(partsOf('unbound', 5000, 5000, 1)).toBe(1);
    expect(partsOf('unbound', 57_413, 0, 1)).toBe(1);
    expect(partsOf('unbound', 57_413, 5000, 2)).toBe(1);
    expect(partsOf('customers', 57_413, 5000, 1)).toBe(1);
    // defineSuitePart declares a suite's checks without its suite file's flows: a partable suite has none.
    expect((await import('../suites/unbound.conformance.js')).flows).toEqual([]);
    expect((await plan(['customers'])).parts.size).toBe(0);
    const files = partFiles('unbound', 3)!;
    expect(files.map((f) => suiteOfFile(f))).toEqual([1, 2, 3].map((index) => ({ suite: 'unbound', part: { index, count: 3 } })));
    expect(readFileSync(files[1]!, 'utf8')).toMatch(/\nawait defineSuitePart\("unbound", 2, 3\);\n$/);
    expect(suiteOfFile('/x/suites/customers.conformance.ts')).toEqual({ suite: 'customers' });
  });
});

describe("a large run's heap growth (src/runner/heap-growth.ts)", () => {
  it("keeps V8's own below 20,000 planned checks, then bounds it, more tightly from 40,000", () => {
    // bench/README.md, "A document of 2,000 operations": the 2,000-operation run (57,413 checks) stays under 1 GiB
    // only with the tighter bound; the 1,000-operation one (28,673) would pay 10% more CPU for it.
    expect(heapGrowingPercent(11_521)).toBeUndefined();
    expect(heapGrowingPercent(19_999)).toBeUndefined();
    expect(heapGrowingPercent(20_000)).toBe(80);
    expect(heapGrowingPercent(28_673)).toBe(80);
    expect(heapGrowingPercent(40_000)).toBe(50);
    expect(heapGrowingPercent(57_413)).toBe(50);
  });
});
