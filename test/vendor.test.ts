/**
 * Vendor mode: a vendor's own OpenAPI document (FSAPI_SPEC) and a capabilities file. A faithful copy of the
 * reference profile (not byte-identical) against the clean sandbox must be conformant: the suite must not fail a
 * vendor for ids it made up. An operation the vendor moved but kept by id plays its reference operation, called with
 * real ids (its 404 is the target's); operations that play none fall back to the document's examples, and a "not found"
 * for an example id is a precondition, not a contract failure. Undeclared groups are skipped with the reason.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { REFERENCE_SPEC_PATH } from '../src/catalogue/index.js';
import type { RunReport } from '../src/results/model.js';
import { runCli } from './helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'fsapi-vendor-'));
const reference = parse(readFileSync(REFERENCE_SPEC_PATH, 'utf8'), { maxAliasCount: -1 }) as { paths: Record<string, Record<string, { operationId?: string }>> };
const load = (d: string) => JSON.parse(readFileSync(join(d, 'latest', 'conformance.json'), 'utf8')) as RunReport;

describe('vendor mode', { timeout: 300_000 }, () => {
  it('a faithful copy of the profile is conformant; a moved operation is called with real ids and its 404 is the only failure', async () => {
    writeFileSync(join(dir, 'copy.json'), JSON.stringify(reference, null, 1));
    // The vendor serves getAccount elsewhere (GET /accounts itself is the seed's, so it stays): no driver fits the
    // moved operation, and its examples name nothing on the target.
    const moved = structuredClone(reference);
    moved.paths['/ledger-accounts/{account_id}'] = moved.paths['/accounts/{account_id}']!;
    delete moved.paths['/accounts/{account_id}'];
    writeFileSync(join(dir, 'moved.json'), JSON.stringify(moved));
    writeFileSync(join(dir, 'caps.yaml'), 'groups: [accounts, customers]\n');
    const [copy, movedRun, capped] = [join(dir, 'r-copy'), join(dir, 'r-moved'), join(dir, 'r-caps')];
    const runs = await Promise.all([
      runCli(['run', '--spec', join(dir, 'copy.json'), '--groups', 'accounts,customers', '--seed', '9', '--report-dir', copy], {}),
      runCli(['run', '--spec', join(dir, 'moved.json'), '--groups', 'accounts', '--seed', '9', '--report-dir', movedRun], {}),
      runCli(['run', '--capabilities', join(dir, 'caps.yaml'), '--groups', 'accounts,cards', '--seed', '9', '--report-dir', capped], {}),
    ]);
    expect(runs[0]!.code, runs[0]!.stderr).toBe(0);
    const c = load(copy);
    expect(c.spec.reference_profile).toBe(false);
    expect(c.verdict).toBe('conformant');
    expect(c.checks.filter((x) => x.status === 'failed' || x.status === 'error')).toEqual([]);

    // A moved operation that keeps its operationId and method still plays getAccount (an implied binding): it is
    // called with a real account the suite opened, so the target's 404 at the document's path is the target's
    // failure to serve its own document, and every other failure is absent.
    expect(runs[1]!.code, runs[1]!.stderr).toBe(1);
    const m = load(movedRun);
    const failed = m.checks.filter((x) => x.status === 'failed' || x.status === 'error');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((x) => x.operation === 'getAccount' || / \/v1\/ledger-accounts\//.test(x.message ?? '') || x.exchanges.some((e) => e.request.url.includes('/ledger-accounts/')))).toBe(true);
    const get = m.checks.find((x) => x.requirement === 'FSAPI-CONTRACT-004' && x.operation === 'getAccount')!;
    expect(get.status).toBe('failed');
    expect(get.exchanges.at(-1)!.request.url).toMatch(/\/v1\/ledger-accounts\/acc_/);

    // Capabilities: an undeclared group is skipped, check by check, with the reason.
    expect(runs[2]!.code, runs[2]!.stderr).toBe(0);
    const cards = load(capped).checks.filter((x) => x.group === 'cards');
    expect(cards.length).toBeGreaterThan(0);
    expect(cards.every((x) => x.status === 'skipped' && /not implemented \(capabilities file\)/.test(x.message ?? ''))).toBe(true);
  });
});
