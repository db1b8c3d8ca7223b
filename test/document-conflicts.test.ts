/**
 * One fact reported once: where the document itself contradicts a seed rule (the key carried only as a bearer
 * token, Idempotency-Key declared optional), the run states it once per requirement with the declaration's JSON
 * pointer and the operations it applies to, and groups under it the checks that failed for doing what the document
 * says, in every report. They still fail and count: the verdict and the counts are what they were.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../src/catalogue/openapi.js';
import { REFERENCE_SPEC_PATH } from '../src/catalogue/index.js';
import { conflictOf, declaredConflicts, groupConflicts } from '../src/results/document-conflicts.js';
import type { CheckResult, RunReport } from '../src/results/model.js';
import { fromRoot } from '../src/paths.js';
import { runCli } from './helpers/cli.js';
import { check, exchange } from './fixtures/reports/build.js';
import { busy } from './helpers/busy.js';

const FIXTURE = fromRoot('test', 'fixtures', 'openapi', 'bearer-only.yaml');

describe('the document contradicting a seed rule', () => {
  it('is found in the document: the bearer-only scheme and the optional Idempotency-Key, each with its pointer and operations', async () => {
    const { raw } = await loadSpec(FIXTURE);
    expect(declaredConflicts(raw)).toEqual([
      expect.objectContaining({ requirement: 'FSAPI-AUTH-003', pointer: '/components/securitySchemes/bearerAuth', places: 1, operations: ['listCustomers', 'createCustomer', 'getCustomer'], declaration: expect.stringMatching(/carry the key only as Authorization: Bearer \(bearerAuth: http bearer\)/) }),
      expect.objectContaining({ requirement: 'FSAPI-IDEM-001', pointer: '/components/parameters/IdempotencyKey', operations: ['createCustomer'] }),
      expect.objectContaining({ requirement: 'FSAPI-IDEM-101', pointer: '/components/parameters/IdempotencyKey', operations: ['createCustomer'] }),
    ]);
    // The reference profile contradicts nothing.
    expect(declaredConflicts((await loadSpec(REFERENCE_SPEC_PATH)).raw)).toEqual([]);
  });

  it('counts an operation whose security accepts a bearer token alone, even beside the Api-Key header, and not one that needs both', () => {
    const op = (security: unknown) => ({ post: { operationId: 'x', security, parameters: [{ name: 'idempotency-key', in: 'header', required: true }], responses: {} } });
    const raw = {
      paths: { '/a': op([{ ApiKey: [] }, { bearer: [] }]), '/b': op([{ ApiKey: [], bearer: [] }]), '/c': op([{ ApiKey: [] }]) },
      components: { securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'Api-Key' }, bearer: { type: 'http', scheme: 'Bearer' } } },
    };
    const [bearer, ...rest] = declaredConflicts(raw);
    expect(rest).toEqual([]);
    expect(bearer).toMatchObject({ requirement: 'FSAPI-AUTH-003', operations: ['x'], declaration: expect.stringMatching(/accepts the key as Authorization: Bearer alone .* besides the Api-Key header/) });
    // An inline optional key is pointed at where it is written.
    const inline = { paths: { '/p': { post: { operationId: 'p', parameters: [{ name: 'Idempotency-Key', in: 'header' }], responses: {} } } } };
    expect(declaredConflicts(inline).filter((x) => x.requirement.startsWith('FSAPI-IDEM')).map((x) => x.pointer)).toEqual(['/paths/~1p/post/parameters/0', '/paths/~1p/post/parameters/0']);
  });

  it('counts the operations the document serves without a key: security [], an optional {} alternative, a scheme of http none, or none declared', () => {
    const op = (id: string, security?: unknown) => ({ get: { operationId: id, ...(security === undefined ? {} : { security }), responses: {} } });
    const raw = {
      paths: { '/open': op('open', []), '/optional': op('optional', [{ ApiKey: [] }, {}]), '/public': op('public', [{ unauthenticated: [] }]), '/keyed': op('keyed'), '/both': op('both', [{ ApiKey: [] }]) },
      security: [{ ApiKey: [] }],
      components: { securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'Api-Key' }, unauthenticated: { type: 'http', scheme: 'none' } } },
    };
    const found = declaredConflicts(raw);
    expect(found.map((x) => x.requirement)).toEqual(['FSAPI-AUTH-001', 'FSAPI-AUTH-002', 'FSAPI-AUTH-003', 'FSAPI-AUTH-004', 'FSAPI-AUTH-007']);
    for (const x of found) expect(x).toMatchObject({ operations: ['open', 'optional', 'public'], pointer: '/paths/~1open/get/security', declaration: expect.stringMatching(/^it serves 3 operations without a key/) });
    // A document that declares no security at all serves every operation without one.
    expect(declaredConflicts({ paths: { '/a': op('a') } })[0]).toMatchObject({ requirement: 'FSAPI-AUTH-001', operations: ['a'], pointer: '/paths/~1a/get' });
    // A key check that got a 2xx there is grouped; a 401 there is no conflict's.
    const c = check({ requirement: 'FSAPI-AUTH-001', level: 'MUST', group: 'customers', operation: 'public', variant: 'no-key', status: 'failed' });
    c.exchanges = [{ ...exchange(0, { status: 200 }), operation: 'public' }];
    expect(conflictOf(found, c)?.requirement).toBe('FSAPI-AUTH-001');
  });

  it('groups a check that failed for doing what the document says, not one that failed otherwise nor one that passed', () => {
    const [conflict] = declaredConflicts({ paths: { '/a': { get: { operationId: 'getA', responses: {} } } }, security: [{ b: [] }], components: { securitySchemes: { b: { type: 'http', scheme: 'bearer' } } } });
    const answered = (status: number, result: CheckResult['status']): CheckResult => {
      const c = check({ requirement: 'FSAPI-AUTH-003', level: 'MUST', group: 'customers', operation: 'getA', variant: `bearer-only-${status}-${result}`, status: result });
      c.exchanges = [{ ...exchange(0, { status: 200 }), operation: 'getB' }, { ...exchange(1, { status }), operation: 'getA' }];
      return c;
    };
    expect(conflictOf([conflict!], answered(200, 'failed'))).toBe(conflict);
    expect(conflictOf([conflict!], answered(403, 'failed'))).toBeUndefined();
    expect(conflictOf([conflict!], answered(401, 'passed'))).toBeUndefined();
    const [grouped] = groupConflicts([conflict!], [answered(200, 'failed'), answered(403, 'failed'), answered(401, 'passed')]);
    expect(grouped).toMatchObject({ checks: ['FSAPI-AUTH-003 getA bearer-only-200-failed'], failed: 1, warning: 0 });
  });
});

const load = (dir: string) => JSON.parse(readFileSync(join(dir, 'latest', 'conformance.json'), 'utf8')) as RunReport;

describe('a bearer-only document run against a target that does what it says', { timeout: busy(300_000) }, () => {
  it('states each contradiction once in every report, its checks grouped and still failing; the same faults under the reference profile are listed one by one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-conflicts-'));
    const faults = ['--sandbox-fault', 'auth-accept-bearer', '--sandbox-fault', 'idem-key-optional'];
    const common = ['run', '--embedded-sandbox', '--groups', 'customers', '--seed', '4', ...faults];
    const [vendor, reference] = await Promise.all([
      runCli([...common, '--spec', FIXTURE, '--report-dir', join(dir, 'vendor')], {}),
      runCli([...common, '--report-dir', join(dir, 'reference')], {}),
    ]);
    expect(vendor.code, vendor.stderr).toBe(1);
    expect(reference.code, reference.stderr).toBe(1);
    const r = load(join(dir, 'vendor'));

    // conformance.json: each requirement once, with its evidence, the operations and the checks under it.
    const conflicts = r.document_conflicts!;
    expect(conflicts.map((x) => [x.requirement, x.pointer, x.operations.length])).toEqual([
      ['FSAPI-AUTH-003', '/components/securitySchemes/bearerAuth', 3],
      ['FSAPI-IDEM-001', '/components/parameters/IdempotencyKey', 1],
      ['FSAPI-IDEM-101', '/components/parameters/IdempotencyKey', 1],
    ]);
    const byId = new Map(r.checks.map((c) => [c.id, c]));
    const auth = r.checks.filter((c) => c.requirement === 'FSAPI-AUTH-003');
    expect(auth.length).toBeGreaterThanOrEqual(3);
    expect(conflicts[0]!.checks.sort()).toEqual(auth.filter((c) => c.status === 'failed').map((c) => c.id).sort());
    expect(conflicts[0]!.failed).toBe(auth.length);
    expect(conflicts[1]).toMatchObject({ failed: 1, warning: 0 });
    expect(conflicts[2]).toMatchObject({ failed: 0, warning: 1 });
    // Grouped, not hidden: every grouped check still fails (or warns), and the counts are the checks'.
    for (const x of conflicts) for (const id of x.checks) expect(['failed', 'warning']).toContain(byId.get(id)!.status);
    expect(r.counts.by_status.failed).toBe(r.checks.filter((c) => c.status === 'failed').length);
    expect(r.verdict).toBe('non-conformant');

    // The console: each contradiction on one line, none of its checks listed one by one.
    const out = vendor.stdout;
    expect(out).toContain('the document contradicts the seed (each stated once;');
    for (const req of ['FSAPI-AUTH-003', 'FSAPI-IDEM-001', 'FSAPI-IDEM-101']) expect(out.match(new RegExp(`^  ${req}: the document contradicts it: `, 'gm'))).toHaveLength(1);
    expect(out).toMatch(/on 3 operations; 3 checks failed for it/);
    expect(out).not.toMatch(/FAIL {2}FSAPI-AUTH-003/);
    expect(out).toMatch(/failures and errors \(besides the \d+ grouped above\):/);

    // summary.md: its own section; the failures heading still counts them, the list does not repeat them.
    const md = readFileSync(join(dir, 'vendor', 'latest', 'summary.md'), 'utf8');
    expect(md).toContain('## Where the document contradicts the seed');
    expect(md).toContain('`#/components/securitySchemes/bearerAuth`');
    expect(md).not.toMatch(/^### ❌ FSAPI-AUTH-003/m);
    expect(md).toMatch(new RegExp(`## Failures and errors \\(${r.counts.by_status.failed + r.counts.by_status.error} checks,`));
    expect(md).toMatch(/checks of FSAPI-AUTH-003, e\.g\. .* grouped: the document contradicts FSAPI-AUTH-003/);

    // junit.xml: a testsuite of their own, each testcase still failing; the totals unchanged.
    const xml = readFileSync(join(dir, 'vendor', 'latest', 'junit.xml'), 'utf8');
    expect(xml).toMatch(new RegExp(`<testsuites [^>]*failures="${r.counts.by_status.failed}"`));
    const suite = /<testsuite name="the document contradicts FSAPI-AUTH-003 \(#\/components\/securitySchemes\/bearerAuth\)" tests="(\d+)" failures="(\d+)"/.exec(xml);
    expect(suite?.slice(1)).toEqual([String(auth.length), String(auth.length)]);
    expect(xml).toContain('message="[the document contradicts FSAPI-AUTH-003: #/components/securitySchemes/bearerAuth] ');

    // Allure: the grouped checks under their own branch of the tree, still failed.
    const results = readdirSync(join(dir, 'vendor', 'latest', 'allure-results'))
      .filter((f) => f.endsWith('-result.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, 'vendor', 'latest', 'allure-results', f), 'utf8')) as { fullName: string; status: string; labels: { name: string; value: string }[] });
    const underConflict = results.filter((x) => x.labels.some((l) => l.name === 'parentSuite' && l.value === 'The document contradicts the seed'));
    expect(underConflict.map((x) => x.fullName).sort()).toEqual(conflicts.flatMap((x) => x.checks).sort());
    expect(underConflict.filter((x) => x.fullName.startsWith('FSAPI-AUTH-003')).every((x) => x.status === 'failed')).toBe(true);

    // The reference profile declares the Api-Key header and requires the key: the same faults are listed one by one.
    const ref = load(join(dir, 'reference'));
    expect(ref.document_conflicts).toBeUndefined();
    expect(reference.stdout).toMatch(/FAIL {2}FSAPI-AUTH-003 /);
    expect(ref.verdict).toBe(r.verdict);
  });
});
