/**
 * A check-level assertion the fault matrix (test/selfcheck.test.ts, requirement-level) does not make:
 * idem-short-retention is caught by the delayed replay, while the immediate replay still passes, so the delay is
 * what proves short retention. The families against every fault are proven by the matrix.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/results/model.js';
import { runCli } from './helpers/cli.js';
import { busy } from './helpers/busy.js';

const root = mkdtempSync(join(tmpdir(), 'fsapi-checks-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('idempotency retention', { timeout: busy(300_000) }, () => {
  it('idem-short-retention: only the delayed replay fails; the immediate one still passes', async () => {
    const dir = join(root, 'retention');
    const res = await runCli(['run', '--groups', 'customers', '--seed', '1', '--report-dir', dir, '--sandbox-fault', 'idem-short-retention'], {});
    expect(res.code, res.stderr).toBe(1);
    const { checks } = JSON.parse(readFileSync(join(dir, 'latest', 'conformance.json'), 'utf8')) as RunReport;
    const replay = (variant: string) => checks.find((c) => c.requirement === 'FSAPI-IDEM-002' && c.operation === 'createCustomer' && c.id.endsWith(` ${variant}`))!;
    expect(replay('replay-delayed').status).toBe('failed');
    expect(replay('replay').status).toBe('passed');
    const failing = new Set(checks.filter((c) => ['failed', 'warning', 'error'].includes(c.status)).map((c) => c.requirement));
    expect([...failing]).toEqual(['FSAPI-IDEM-002']);
  });
});
