/**
 * Vendor mode: a vendor's own OpenAPI document (FSAPI_SPEC) and a capabilities file. A faithful copy of the
 * reference profile (not byte-identical) against the clean sandbox must be conformant: the suite must not fail a
 * vendor for ids it made up. An operation the vendor moved but kept by id plays its reference operation, called with
 * real ids (an object the target holds; its 404 is the target's, and the only failure); an operation that plays
 * none falls back to the document's examples, and a "not found" for an example id is a precondition, not a contract
 * failure. Undeclared groups are skipped with the reason.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../sandbox/index.js';
import { REFERENCE_SPEC_PATH } from '../src/catalogue/index.js';
import type { RunReport } from '../src/results/model.js';
import { runCli, sandboxTargetEnv } from './helpers/cli.js';
import { busy } from './helpers/busy.js';

const dir = mkdtempSync(join(tmpdir(), 'fsapi-vendor-'));
const reference = parse(readFileSync(REFERENCE_SPEC_PATH, 'utf8'), { maxAliasCount: -1 }) as { paths: Record<string, Record<string, unknown>> };
const open: RunningSandbox[] = [];
afterAll(async () => Promise.all(open.map((s) => s.close())));
/** An operation of the vendor's that plays no reference operation: only its document's example names a statement. */
const STATEMENT_EXAMPLE = 'stm_example0001';
const getStatement = {
  get: {
    operationId: 'getStatement',
    tags: ['Accounts'],
    summary: 'A statement of an account',
    parameters: [{ name: 'statement_id', in: 'path', required: true, schema: { type: 'string' }, example: STATEMENT_EXAMPLE }],
    responses: { '200': { description: 'the statement', content: { 'application/json': { schema: { type: 'object' } } } }, '404': { description: 'no such statement' } },
  },
};
const load = (d: string) => JSON.parse(readFileSync(join(d, 'latest', 'conformance.json'), 'utf8')) as RunReport;

describe('vendor mode', { timeout: busy(300_000) }, () => {
  it('a faithful copy of the profile is conformant; a moved operation is called with real ids and its 404 is the only failure', async () => {
    writeFileSync(join(dir, 'copy.json'), JSON.stringify(reference, null, 1));
    // The vendor serves getAccount elsewhere (GET /accounts itself is the seed's, so it stays): no driver fits the
    // moved operation, and its examples name nothing on the target.
    const moved = structuredClone(reference);
    moved.paths['/ledger-accounts/{account_id}'] = moved.paths['/accounts/{account_id}']!;
    delete moved.paths['/accounts/{account_id}'];
    moved.paths['/statements/{statement_id}'] = getStatement;
    writeFileSync(join(dir, 'moved.json'), JSON.stringify(moved));
    writeFileSync(join(dir, 'caps.yaml'), 'groups: [accounts, customers]\n');
    // The moved document runs against a sandbox of this process, to ask it afterwards what the run called.
    const sb = await startSandbox({ httpPort: 0 });
    open.push(sb);
    const [copy, movedRun, capped] = [join(dir, 'r-copy'), join(dir, 'r-moved'), join(dir, 'r-caps')];
    const runs = await Promise.all([
      runCli(['run', '--embedded-sandbox', '--spec', join(dir, 'copy.json'), '--groups', 'accounts,customers', '--seed', '9', '--report-dir', copy], {}),
      runCli(['run', '--spec', join(dir, 'moved.json'), '--groups', 'accounts', '--seed', '9', '--report-dir', movedRun], { ...sandboxTargetEnv(sb), FSAPI_PLAIN_HTTP_URL: sb.plain_http_url! }),
      runCli(['run', '--capabilities', join(dir, 'caps.yaml'), '--groups', 'accounts,cards', '--seed', '9', '--report-dir', capped], {}),
    ]);
    expect(runs[0]!.code, runs[0]!.stderr).toBe(0);
    const c = load(copy);
    expect(c.spec.reference_profile).toBe(false);
    expect(c.verdict).toBe('conformant');
    expect(c.checks.filter((x) => x.status === 'failed' || x.status === 'error')).toEqual([]);

    // A moved operation that keeps its operationId and method still plays getAccount (an implied binding): it is
    // called with a real account the suite opened, so the target's 404 at the document's path is the target's
    // failure to serve its own document, and the only failure of the run.
    expect(runs[1]!.code, runs[1]!.stderr).toBe(1);
    const m = load(movedRun);
    expect(m.checks.filter((x) => x.status === 'failed' || x.status === 'error').map((x) => x.id)).toEqual(['FSAPI-CONTRACT-004 getAccount valid-request']);
    const get = m.checks.find((x) => x.id === 'FSAPI-CONTRACT-004 getAccount valid-request')!;
    const called = get.exchanges.at(-1)!;
    expect(called.response?.status).toBe(404);
    const [, accountId] = /\/v1\/ledger-accounts\/(acc_[A-Za-z0-9]+)$/.exec(called.request.url) ?? [];
    expect(accountId, called.request.url).toBeDefined();
    // Real: the target holds that account, at its own path.
    const agent = new Agent({ connect: { ca: sb.ca_pem } });
    const alpha = sb.tenants[0]!;
    const held = await request(`${sb.base_url}accounts/${accountId}`, { headers: { 'api-key': alpha.secret_key, 'x-tenant-id': alpha.tenant_id }, dispatcher: agent });
    await held.body.dump();
    await agent.close();
    expect(held.statusCode).toBe(200);

    // getStatement plays nothing: it is called with its document's example, and the target's 404 for that id is a
    // precondition the example did not meet, never a failure.
    const statement = m.checks.filter((x) => x.operation === 'getStatement');
    expect(statement.length).toBeGreaterThan(0);
    const valid = statement.find((x) => x.requirement === 'FSAPI-CONTRACT-004')!;
    expect(valid).toMatchObject({ status: 'skipped', skip_cause: 'prerequisite' });
    expect(valid.exchanges.at(-1)!.request.url).toMatch(new RegExp(`/v1/statements/${STATEMENT_EXAMPLE}$`));
    expect(valid.exchanges.at(-1)!.response?.status).toBe(404);

    // Capabilities: an undeclared group is skipped, check by check, with the reason.
    expect(runs[2]!.code, runs[2]!.stderr).toBe(0);
    const cards = load(capped).checks.filter((x) => x.group === 'cards');
    expect(cards.length).toBeGreaterThan(0);
    expect(cards.every((x) => x.status === 'skipped' && /not implemented \(capabilities file\)/.test(x.message ?? ''))).toBe(true);
  });
});
