/**
 * Vendor bindings (src/binding): the loader names the entry that is wrong, the translation reads a vendor's
 * envelopes, lists and names in the reference's terms, `bind` infers a names dialect of the reference profile,
 * and a run through the binding is as deep as the reference run.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { Binding } from '../src/binding/binding.js';
import type { BindingFile } from '../src/binding/format.js';
import { inferBinding } from '../src/binding/infer.js';
import { loadBinding } from '../src/binding/load.js';
import { loadCatalogue, REFERENCE_SPEC_PATH, type SpecDocument } from '../src/catalogue/index.js';
import type { RunReport } from '../src/results/model.js';
import { runCli } from './helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'fsapi-binding-'));
type Doc = { paths: Record<string, Record<string, { operationId?: string; tags?: string[]; parameters?: { in: string; name: string }[] }>>; components: { parameters: Record<string, { in: string; name: string }> } };
const camel = (s: string) => s.replace(/_([a-z])/g, (_, l: string) => l.toUpperCase());
const VERB: Record<string, string> = { get: 'retrieve', list: 'list', create: 'create', update: 'update', delete: 'remove' };

/**
 * A names dialect, as a vendor might spell the reference profile: dotted operationIds (customer.retrieve), camelCase
 * path parameters, its own tags. Paths stay, so the embedded sandbox serves it. Returns the document and the truth.
 */
function namesDialect(): { path: string; truth: Record<string, string> } {
  const doc = parse(readFileSync(REFERENCE_SPEC_PATH, 'utf8'), { maxAliasCount: -1 }) as Doc;
  const truth: Record<string, string> = {};
  const paths: Doc['paths'] = {};
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const op of Object.values(item)) {
      if (!op || typeof op !== 'object' || !op.operationId) continue;
      const id = op.operationId;
      const m = /^(get|list|create|update|delete)(.+)$/.exec(id);
      op.operationId = m ? `${m[2]!.charAt(0).toLowerCase()}${m[2]!.slice(1)}.${VERB[m[1]!]}` : `${id}.run`;
      truth[id] = op.operationId;
      op.tags = (op.tags ?? []).map((t) => `Vendor ${t}`);
      for (const prm of op.parameters ?? []) if (prm.in === 'path') prm.name = camel(prm.name);
    }
    paths[p.replace(/\{([a-z_]+)\}/g, (_, n: string) => `{${camel(n)}}`)] = item;
  }
  doc.paths = paths;
  for (const prm of Object.values(doc.components.parameters ?? {})) if (prm.in === 'path') prm.name = camel(prm.name);
  const path = join(dir, 'names.json');
  writeFileSync(path, JSON.stringify(doc));
  return { path, truth };
}

let reference: SpecDocument;
let names: { path: string; truth: Record<string, string> };
let vendor: SpecDocument;

beforeAll(async () => {
  reference = (await loadCatalogue()).spec;
  names = namesDialect();
  vendor = (await loadCatalogue({ specPath: names.path })).spec;
});

const write = (name: string, data: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, stringify(data));
  return p;
};

describe('binding file', () => {
  it('refuses, naming the entry and the fix: an unknown reference operation, a missing vendor operation, a wrong path parameter, a moved seed operation', () => {
    const cases: [BindingFile | Record<string, unknown>, RegExp][] = [
      [{ binding: 1, operations: { getClient: { operation: 'customer.retrieve' } } }, /"getClient" is not an operation of the reference profile/],
      [{ binding: 1, operations: { getCustomer: { operation: 'customer.fetch' } } }, /operations\.getCustomer: the document has no operation "customer.fetch"/],
      [{ binding: 1, operations: { getCustomer: { operation: 'customer.retrieve', path_params: { customer_id: 'id' } } } }, /\/customers\/\{customerId\} has no path parameter "id"/],
      [{ binding: 1, operations: { createCustomer: { operation: 'kycStatus.retrieve' } } }, /is a POST in the reference profile/],
      [{ binding: 1, operations: { createCustomer: { operation: 'account.create' } } }, /createCustomer is POST \/customers by the seed itself; it cannot be bound to POST \/accounts/],
      [{ binding: 1, operations: { createCustomer: { operation: 'customer.create', fields: { first_name: 'firstName' } } } }, /renames first_name, which the seed fixes/],
      [{ binding: 1, operations: { listCustomers: { operation: 'customers.list', list: { cursor_param: 'after' } } } }, /says nothing of where the items are/],
      [{ binding: 2 }, /the binding version must be 1/],
      [{ binding: 1, grups: {} }, /unknown key "grups" \(did you mean groups\?\)/],
    ];
    for (const [data, message] of cases) {
      const p = write('bad.yaml', data);
      expect(() => loadBinding(p, vendor, reference), JSON.stringify(data)).toThrow(message);
    }
  });

  it('an error names its line in the file', async () => {
    const p = join(dir, 'lines.yaml');
    writeFileSync(p, 'binding: 1\noperations:\n  getCustomer:\n    operation: customer.retrieve\n    path_params: { customer_id: nope }\n');
    const { UsageError } = await import('../src/errors.js');
    try {
      loadBinding(p, vendor, reference);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      expect((e as InstanceType<typeof UsageError>).where).toBe('5');
    }
  });
});

describe('translation', () => {
  it('reads an enveloped resource, a cursor list and a page-number list in the reference terms, and writes requests in the vendor terms', () => {
    const file: BindingFile = {
      binding: 1,
      fields: { first_name: 'firstName', customer_id: 'customerId' },
      states: { frozen: 'locked' },
      events: { 'card.frozen': 'card.locked' },
      operations: {
        getCustomer: { operation: 'customer.retrieve', envelope: 'data' },
        listCustomers: { operation: 'customers.list', list: { items: 'results', next_cursor: 'next', cursor_param: 'after', limit_param: 'size' } },
        listCards: { operation: 'cards.list', list: { items: 'items', page_param: 'page', total_pages: 'pages', limit_param: 'per_page' } },
        updateCustomer: { operation: 'customer.update' },
        createCustomer: { operation: 'customer.create' },
      },
    };
    const b = new Binding(vendor, reference, file);
    const get = b.resolve('getCustomer')!;
    expect(get.vendor.path).toBe('/customers/{customerId}');
    expect(b.toVendor(get, { pathParams: { customer_id: 'cus_1' } })).toEqual({ pathParams: { customerId: 'cus_1' } });
    expect(b.toReference(get, { data: { id: 'cus_1', firstName: 'Ada', status: 'locked', kycStatus: 'locked', note: 'locked' } })).toEqual({ id: 'cus_1', first_name: 'Ada', status: 'frozen', kycStatus: 'frozen', note: 'locked' });

    const list = b.resolve('listCustomers')!;
    expect(b.queryToVendor(list, { cursor: 'c2', limit: 50, customer_id: 'cus_1' })).toEqual({ after: 'c2', size: 50, customerId: 'cus_1' });
    expect(b.toReference(list, { results: [{ id: 'a', firstName: 'X' }], next: 'c3' })).toEqual({ data: [{ id: 'a', first_name: 'X' }], has_more: true, next_cursor: 'c3' });
    expect(b.toReference(list, { results: [], next: null })).toEqual({ data: [], has_more: false });

    const cards = b.resolve('listCards')!;
    expect(b.queryToVendor(cards, { cursor: '2', limit: 10 })).toEqual({ page: '2', per_page: 10 });
    expect(b.toReference(cards, { items: [{ id: 'c' }], pages: 3 }, { cursor: '2' })).toEqual({ data: [{ id: 'c' }], has_more: true, next_cursor: '3' });
    expect(b.toReference(cards, { items: [{ id: 'c' }], pages: 3 }, { cursor: '3' })).toEqual({ data: [{ id: 'c' }], has_more: false });

    const update = b.resolve('updateCustomer')!;
    expect(b.bodyToVendor(update, { status: 'frozen', metadata: { event: 'card.frozen' } })).toEqual({ status: 'locked', metadata: { event: 'card.locked' } });
    // The seed's customer fields are never renamed in POST /customers, whatever the global map says.
    const create = b.resolve('createCustomer')!;
    expect(b.bodyToVendor(create, { first_name: 'Ada', customer_id: 'x' })).toEqual({ first_name: 'Ada', customerId: 'x' });
  });

  it('a path parameter the binding cannot place is a binding gap with the fix, not a request with a hole', () => {
    const b = new Binding(vendor, reference, { binding: 1, operations: { getCustomer: { operation: 'customer.retrieve' } } });
    const get = b.resolve('getCustomer')!;
    expect(() => b.toVendor(get, { pathParams: { account_id: 'x' } })).toThrow(/add operations\.getCustomer\.path_params\.account_id/);
  });

  it('accounts for every operation of the document: bound, group only, or unbound with the reason', () => {
    const b = new Binding(vendor, reference, { binding: 1, operations: { getCustomer: { operation: 'customer.retrieve' } }, groups: { 'customers.list': 'customers' } });
    const rows = b.accounting();
    expect(rows).toHaveLength(vendor.operations.length);
    expect(rows.find((r) => r.operation === 'customer.retrieve')).toMatchObject({ status: 'bound', bound_to: 'getCustomer', group: 'customers' });
    expect(rows.find((r) => r.operation === 'customers.list')).toMatchObject({ status: 'group-only', group: 'customers', reason: 'bound to its group by the binding' });
    // With no entry, no implied name and tags that name no group, an operation is unbound, with the reason.
    const lone = new Binding(vendor, reference, { binding: 1 }).accounting();
    expect(lone.find((r) => r.operation === 'customer.retrieve')).toMatchObject({ status: 'unbound', reason: expect.stringMatching(/its tags \(Vendor Customers\) name no group/) });
  });
});

describe('bind', () => {
  it('infers every operation of a names dialect right, with its path parameters', () => {
    const { binding } = inferBinding(vendor, reference, 'names.json');
    const wrong = Object.entries(names.truth).filter(([ref, v]) => binding.operations?.[ref]?.operation !== v);
    expect(wrong).toEqual([]);
    expect(binding.operations?.['getCustomer']?.path_params).toEqual({ customer_id: 'customerId' });
    // and what it writes loads back as a valid binding.
    expect(() => loadBinding(write('inferred.yaml', binding), vendor, reference)).not.toThrow();
  });

  it('never binds the seed-fixed POST /customers to another path, however alike', () => {
    const doc = JSON.parse(readFileSync(names.path, 'utf8')) as Doc;
    doc.paths['/clients'] = doc.paths['/customers']!;
    delete doc.paths['/customers'];
    const moved = join(dir, 'moved.json');
    writeFileSync(moved, JSON.stringify(doc));
    return loadCatalogue({ specPath: moved }).then(({ spec }) => {
      const { binding, missing } = inferBinding(spec, reference, 'moved.json');
      expect(binding.operations?.['createCustomer']).toBeUndefined();
      expect(missing).toContain('createCustomer');
    });
  });
});

describe('a run through a binding', { timeout: 300_000 }, () => {
  it('bind then run on the names dialect: conformant, no errors, as many executed checks as the reference run', async () => {
    const bindingPath = join(dir, 'cli-binding.yaml');
    const bind = await runCli(['bind', '--spec', names.path, '--out', bindingPath], {});
    expect(bind.code, bind.stderr).toBe(0);
    expect(bind.stdout).toMatch(/46 of 46 reference operations bound/);
    const check = await runCli(['bind', '--spec', names.path, '--check', bindingPath], {});
    expect(check.code, check.stderr).toBe(0);
    const groups = ['--groups', 'customers,cards,kyc', '--seed', '7'];
    const [dialect, ref] = await Promise.all([
      runCli(['run', '--spec', names.path, '--binding', bindingPath, ...groups, '--report-dir', join(dir, 'rd')], {}),
      runCli(['run', ...groups, '--report-dir', join(dir, 'rr')], {}),
    ]);
    expect(dialect.code, dialect.stdout + dialect.stderr).toBe(0);
    expect(ref.code, ref.stderr).toBe(0);
    const load = (d: string) => JSON.parse(readFileSync(join(dir, d, 'latest', 'conformance.json'), 'utf8')) as RunReport;
    const d = load('rd');
    const r = load('rr');
    expect(d.checks.filter((c) => c.status === 'error' || c.status === 'failed')).toEqual([]);
    const executed = (x: RunReport) => x.checks.filter((c) => c.status !== 'skipped').length;
    expect(executed(d) / executed(r)).toBeGreaterThanOrEqual(0.95);
    expect(d.spec.operations?.every((o) => o.status === 'bound')).toBe(true);
    // The flows ran through the binding (by their reference ids): all that do not rely on the sandbox's own rules.
    const sandboxRules = (c: RunReport['checks'][number]) => /relies on the reference profile's sandbox rules/.test(c.message ?? '');
    const flows = d.checks.filter((c) => c.family === 'flow' && !sandboxRules(c));
    expect(flows.length).toBeGreaterThan(10);
    expect(flows.filter((c) => c.status !== 'passed')).toEqual([]);
  });
});

describe('operations a binding places nowhere', { timeout: 300_000 }, () => {
  it('run in the unbound suite: the seed rules reach them, the report validates, and the accounting says why', async () => {
    const doc = JSON.parse(readFileSync(names.path, 'utf8')) as { paths: Record<string, unknown> };
    doc.paths['/status-page'] = { get: { operationId: 'ops.status', tags: ['Operations'], summary: 'Service status', responses: { '200': { description: 'up' } } } };
    const path = join(dir, 'with-unbound.json');
    writeFileSync(path, JSON.stringify(doc));
    const r = await runCli(['run', '--spec', path, '--groups', 'unbound', '--seed', '5', '--report-dir', join(dir, 'ru')], {});
    // The sandbox does not serve /status-page: a failure of the target against its document (1), never an internal error (3).
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(readFileSync(join(dir, 'ru', 'latest', 'conformance.json'), 'utf8')) as RunReport;
    expect(report.spec.operations?.find((o) => o.operation === 'ops.status')).toMatchObject({ status: 'unbound', reason: expect.stringMatching(/name no group/) });
    const mine = report.checks.filter((c) => c.operation === 'ops.status');
    expect(mine.every((c) => c.group === 'unbound')).toBe(true);
    // Api-Key on every request (seed rule 2), though the document declares no security for it.
    expect(mine.filter((c) => c.family === 'auth').length).toBeGreaterThan(0);
  });
});

describe('parameters the vendor document requires', { timeout: 300_000 }, () => {
  it('are sent on every request of the operation: required query parameters (enum through a component) and headers', async () => {
    const doc = JSON.parse(readFileSync(names.path, 'utf8')) as { paths: Record<string, Record<string, { parameters?: unknown[] }>>; components: { schemas: Record<string, unknown> } };
    doc.components.schemas['Region'] = { type: 'string', enum: ['eu-west', 'us-east'] };
    const list = doc.paths['/customers']!['get']!;
    list.parameters = [...(list.parameters ?? []), { name: 'region', in: 'query', required: true, schema: { $ref: '#/components/schemas/Region' } }, { name: 'X-Api-Version', in: 'header', required: true, schema: { type: 'string', example: '2026-01-01' } }];
    const path = join(dir, 'required-params.json');
    writeFileSync(path, JSON.stringify(doc));
    const bound = join(dir, 'required-params.binding.yaml');
    expect((await runCli(['bind', '--spec', path, '--out', bound], {})).code).toBe(0);
    const r = await runCli(['run', '--spec', path, '--binding', bound, '--groups', 'customers', '--seed', '5', '--report-dir', join(dir, 'rq')], {});
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'rq', 'latest', 'conformance.json'), 'utf8')) as RunReport;
    const lists = report.checks.flatMap((c) => c.exchanges).filter((x) => x.request.method === 'GET' && /\/v1\/customers(\?|$)/.test(x.request.url));
    expect(lists.length).toBeGreaterThan(0);
    expect(lists.every((x) => new URL(x.request.url).searchParams.get('region') === 'eu-west')).toBe(true);
    expect(lists.every((x) => x.request.headers['X-Api-Version'] === '2026-01-01')).toBe(true);
  });
});

describe('a request body made from the schema', { timeout: 300_000 }, () => {
  it('is sent where no driver serves the operation and its document gives no example, valid for its schema and labelled', async () => {
    const doc = JSON.parse(readFileSync(names.path, 'utf8')) as { paths: Record<string, unknown> };
    doc.paths['/notes'] = {
      post: {
        operationId: 'notes.create',
        tags: ['Operations'],
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['title', 'contact_email', 'priority'], properties: { title: { type: 'string', minLength: 1 }, contact_email: { type: 'string', format: 'email' }, priority: { type: 'string', enum: ['low', 'high'] }, id: { type: 'string', readOnly: true } } } } } },
        responses: { '201': { description: 'created' } },
      },
    };
    const path = join(dir, 'generated-body.json');
    writeFileSync(path, JSON.stringify(doc));
    const r = await runCli(['run', '--spec', path, '--groups', 'unbound', '--seed', '5', '--report-dir', join(dir, 'rg')], {});
    expect([0, 1], r.stderr).toContain(r.code);
    const report = JSON.parse(readFileSync(join(dir, 'rg', 'latest', 'conformance.json'), 'utf8')) as RunReport;
    const posts = report.checks.flatMap((c) => c.exchanges).filter((x) => x.request.method === 'POST' && x.request.url.endsWith('/v1/notes') && x.request.body?.startsWith('{"'));
    expect(posts.length).toBeGreaterThan(0);
    const body = JSON.parse(posts[0]!.request.body!) as Record<string, unknown>;
    expect(body).toMatchObject({ title: expect.any(String), priority: 'low', contact_email: expect.stringMatching(/@fsapi-conformance\.test$/) });
    expect(body).not.toHaveProperty('id');
  });
});
