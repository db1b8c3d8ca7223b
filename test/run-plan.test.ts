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
import { planRun } from '../src/runner/run-plan.js';
import { DELIVERIES_READ_BY } from '../src/runner/target.js';

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
    expect(p.waitsInSuite).toBe(0);
    expect(p.maxConcurrency).toBe(p.cfg.concurrency);
    expect(p.workers).toBe(2);
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
});
