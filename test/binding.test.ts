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
import { ACTIVE_CONFIDENCE } from '../src/confidence.js';
import { loadBinding, suggestionsIn } from '../src/binding/load.js';
import { bindingYaml } from '../src/binding/write.js';
import { walkPages } from '../src/harness/pages.js';
import type { HttpResponse } from '../src/http/client.js';
import { dialect } from './dialects/dialect.js';
import { writeDialectFiles } from './dialects/target.js';
import { scoreBinding, type Binding as TruthBinding } from './dialects/truth.js';
import { REFERENCE_SPEC_PATH, type SpecDocument } from '../src/catalogue/index.js';
import type { RunReport } from '../src/results/model.js';
import { runCli } from './helpers/cli.js';
import { loadCatalogue } from '../src/binding/catalogue-in-use.js';
import { busy } from './helpers/busy.js';

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

describe('binding file: conventions', () => {
  const lineOf = async (text: string): Promise<{ where: string | undefined; message: string }> => {
    const p = join(dir, 'conventions-bad.yaml');
    writeFileSync(p, text);
    const { UsageError } = await import('../src/errors.js');
    try {
      loadBinding(p, vendor, reference);
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      return { where: (e as InstanceType<typeof UsageError>).where, message: (e as Error).message };
    }
    return expect.unreachable('loaded');
  };

  it('loads values, errors, offset paging and totals', () => {
    const p = join(dir, 'conventions.yaml');
    writeFileSync(p, [
      'binding: 1',
      'values:',
      '  type: { passport: PASSPORT }',
      'errors: { code: error.code, message: error.message }',
      'operations:',
      '  listCustomers:',
      '    operation: customers.list',
      '    list: { items: results, total: total, offset_param: offset, limit_param: limit }',
      '',
    ].join('\n'));
    const b = loadBinding(p, vendor, reference);
    expect(b.values).toEqual({ type: { passport: 'PASSPORT' } });
    expect(b.errors).toEqual({ code: 'error.code', message: 'error.message' });
    expect(b.operations?.['listCustomers']?.list).toEqual({ items: 'results', total: 'total', offset_param: 'offset', limit_param: 'limit' });
  });

  it('refuses a bad values map, error shape or paging, naming the line and the fix', async () => {
    expect(await lineOf('binding: 1\nvalues:\n  type: PASSPORT\n')).toMatchObject({ where: '3', message: expect.stringMatching(/values\.type must map names to non-empty names/) });
    expect(await lineOf('binding: 1\nvalues:\n  type:\n    passport: ""\n')).toMatchObject({ where: '4' });
    expect(await lineOf('binding: 1\nerrors:\n  code: error.code\n  mesage: error.message\n')).toMatchObject({ where: '4', message: expect.stringMatching(/unknown key "mesage" in errors \(did you mean message\?\)/) });
    expect(await lineOf('binding: 1\nerrors:\n  code: ""\n')).toMatchObject({ where: '3', message: expect.stringMatching(/errors\.code must be a member name or dotted path/) });
    expect(await lineOf('binding: 1\nerrors: error.code\n')).toMatchObject({ where: '2' });
    expect(
      await lineOf('binding: 1\noperations:\n  listCustomers:\n    operation: customers.list\n    list:\n      items: results\n      cursor_param: after\n      offset_param: offset\n'),
    ).toMatchObject({ where: '8', message: expect.stringMatching(/has both cursor_param and offset_param/) });
    expect(await lineOf('binding: 1\noperations:\n  listCustomers:\n    operation: customers.list\n    list: { items: results, totl: total }\n')).toMatchObject({ message: expect.stringMatching(/unknown key "totl".*did you mean total/) });
  });
});

describe('translation: conventions', () => {
  const file: BindingFile = {
    binding: 1,
    fields: { customer_id: 'customerId', id_type: 'idType' },
    states: { active: 'ACTIVE', frozen: 'FROZEN' },
    values: { type: { passport: 'PASSPORT', virtual: 'VIRTUAL' }, status: { removed: 'GONE' }, feature: { cards: 'CARDS' } },
    events: { 'customer.created': 'CustomerCreated' },
    errors: { code: 'error.code', message: 'error.message' },
    operations: {
      listCustomers: { operation: 'customers.list', list: { items: 'results', total: 'total', offset_param: 'offset', limit_param: 'limit' } },
      updateCustomer: { operation: 'customer.update', envelope: 'result' },
      listWebhookEvents: { operation: 'webhookEvents.list' },
      getFeatureEligibility: { operation: 'featureEligibility.retrieve', path_params: { customer_id: 'customerId' } },
      getWebhookEvent: { operation: 'webhookEvent.retrieve' },
    },
  };

  it('translates enum values of any member both ways, in bodies, query and path parameters; states merge under values', () => {
    const b = new Binding(vendor, reference, file);
    const update = b.resolve('updateCustomer')!;
    const sent = b.toVendor(update, { pathParams: { customer_id: 'cus_1' }, body: { type: 'passport', status: 'removed', nested: [{ status: 'active', type: 'virtual' }], note: 'passport', metadata: { kind: 'customer.created' } } });
    expect(sent.body).toEqual({ type: 'PASSPORT', status: 'GONE', nested: [{ status: 'ACTIVE', type: 'VIRTUAL' }], note: 'passport', metadata: { kind: 'CustomerCreated' } });
    expect(b.toReference(update, { result: { id: 'cus_1', type: 'PASSPORT', status: 'GONE', kycStatus: 'FROZEN', customerId: 'x', idType: 'PASSPORT' } })).toEqual({ id: 'cus_1', type: 'passport', status: 'removed', kycStatus: 'frozen', customer_id: 'x', id_type: 'PASSPORT' });
    // Query values of that name, and event types anywhere.
    const events = b.resolve('listWebhookEvents')!;
    expect(b.queryToVendor(events, { type: 'customer.created', customer_id: 'cus_1' })).toEqual({ type: 'CustomerCreated', customerId: 'cus_1' });
    // A path parameter's value (a feature name).
    const feature = b.resolve('getFeatureEligibility')!;
    expect(b.toVendor(feature, { pathParams: { customer_id: 'cus_1', feature: 'cards' } }).pathParams).toEqual({ customerId: 'cus_1', feature: 'CARDS' });
    // A delivered webhook event reads as an event read by id does.
    expect(b.eventToReference({ id: 'evt_1', type: 'CustomerCreated', data: { object: { customerId: 'c', status: 'ACTIVE' } } })).toEqual({ id: 'evt_1', type: 'customer.created', data: { object: { customer_id: 'c', status: 'active' } } });
    expect(b.eventToVendor('customer.created')).toBe('CustomerCreated');
  });

  it('reads the bound error shape as a problem: code and detail, the body kept', () => {
    const b = new Binding(vendor, reference, file);
    expect(b.errorToReference({ error: { code: 'NOT_FOUND', message: 'No customer cus_1.' } })).toEqual({ error: { code: 'NOT_FOUND', message: 'No customer cus_1.' }, code: 'NOT_FOUND', detail: 'No customer cus_1.' });
    expect(b.errorToReference({ title: 'x' })).toEqual({ title: 'x' });
    expect(new Binding(vendor, reference, { binding: 1 }).errorToReference({ error: { code: 'X' } })).toEqual({ error: { code: 'X' } });
  });

  it('reads request parts in the vendor terms back in the reference terms (the inverse of toVendor)', () => {
    const b = new Binding(vendor, reference, file);
    const parts = { pathParams: { customer_id: 'cus_1' }, body: { type: 'passport', customer_id: 'x', status: 'active' } };
    const update = b.resolve('updateCustomer')!;
    expect(b.partsToReference(update, b.toVendor(update, parts))).toEqual(parts);
    const list = b.resolve('listCustomers')!;
    expect(b.partsToReference(list, { query: { offset: '20', limit: 5, customerId: 'cus_1' } })).toEqual({ query: { cursor: '20', limit: 5, customer_id: 'cus_1' } });
    const feature = b.resolve('getFeatureEligibility')!;
    expect(b.partsToReference(feature, { pathParams: { customerId: 'cus_1', feature: 'CARDS' } })).toEqual({ pathParams: { customer_id: 'cus_1', feature: 'cards' } });
  });

  it('walks an offset list to its end, each object once: next_cursor is the next offset, has_more from the total', async () => {
    const b = new Binding(vendor, reference, file);
    const list = b.resolve('listCustomers')!;
    const all = Array.from({ length: 7 }, (_, i) => ({ id: `cus_${i}`, type: 'PASSPORT' }));
    const asked: Record<string, unknown>[] = [];
    const fetch = async (refQuery: { limit: number; cursor?: string }): Promise<HttpResponse> => {
      const q = b.queryToVendor(list, refQuery);
      asked.push(q);
      const offset = Number(q['offset'] ?? 0);
      const body = { results: all.slice(offset, offset + Number(q['limit'])), total: all.length };
      return { status: 200, json: b.toReference(list, body, refQuery) } as HttpResponse;
    };
    const w = await walkPages(fetch, { limit: 3 });
    expect(w.pages.map((p) => p.items.map((x) => x['id']))).toEqual([['cus_0', 'cus_1', 'cus_2'], ['cus_3', 'cus_4', 'cus_5'], ['cus_6']]);
    expect(w.pages.map((p) => [p.hasMore, p.nextCursor])).toEqual([[true, '3'], [true, '6'], [false, undefined]]);
    expect(asked).toEqual([{ limit: 3 }, { offset: '3', limit: 3 }, { offset: '6', limit: 3 }]);
    expect(w.pages[0]!.items[0]).toEqual({ id: 'cus_0', type: 'passport' });
    // Without a total, a short page is the last.
    expect(b.toReference(list, { results: [{ id: 'a' }] }, { cursor: '4', limit: 2 })).toEqual({ data: [{ id: 'a' }], has_more: false });
    expect(b.toReference(list, { results: [{ id: 'a' }, { id: 'b' }] }, { cursor: '4', limit: 2 })).toEqual({ data: [{ id: 'a' }, { id: 'b' }], has_more: true, next_cursor: '6' });
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
    // The customer create goes through the renames too (FSAPI-CUS-001 alone sends the seed's own form, CallOptions.seedForm).
    const create = b.resolve('createCustomer')!;
    expect(b.bodyToVendor(create, { first_name: 'Ada', customer_id: 'x' })).toEqual({ firstName: 'Ada', customerId: 'x' });
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

describe('bind: what it will not bind', () => {
  /** A small vendor document of a few operations (paths, ids and response members as given). */
  const small = (paths: Record<string, Record<string, unknown>>): Promise<SpecDocument> => {
    const p = join(dir, `small-${Object.keys(paths).join('').replace(/\W/g, '')}.json`);
    writeFileSync(p, JSON.stringify({ openapi: '3.1.0', info: { title: 'small', version: '1' }, paths }));
    return loadCatalogue({ specPath: p }).then((c) => c.spec);
  };
  const op = (operationId: string, props: Record<string, unknown> = { id: { type: 'string' } }, extra: Record<string, unknown> = {}) => ({
    operationId,
    ...extra,
    responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: props } } } } },
  });
  const idParam = (name: string) => ({ parameters: [{ name, in: 'path', required: true, schema: { type: 'string' } }] });

  it('a vendor operation with the seed-fixed operationId at another path does not play it, implied or inferred', async () => {
    const spec = await small({ '/clients': { post: op('createCustomer') }, '/ledgers': { get: op('listAccounts') }, '/customers/{customer_id}': { get: op('getCustomer', undefined, idParam('customer_id')) } });
    const b = new Binding(spec, reference, undefined);
    expect(b.resolve('createCustomer')).toBeUndefined();
    expect(b.resolve('listAccounts')).toBeUndefined();
    expect(b.resolve('getCustomer')?.vendor.path).toBe('/customers/{customer_id}');
    expect(inferBinding(spec, reference, 'small').binding.operations?.['createCustomer']).toBeUndefined();
  });

  it('takes a resource that is a customer only by a synonym for customers when the document writes them, not when it only reads them (a console\'s users)', async () => {
    const userFields = { id: { type: 'string' }, first_name: { type: 'string' }, last_name: { type: 'string' }, email: { type: 'string' } };
    const paths = { '/users': { get: op('listUsers', { data: { type: 'array', items: { type: 'object', properties: userFields } } }) }, '/users/{user_id}': { get: op('getUser', userFields, idParam('user_id')) } };
    const readOnly = inferBinding(await small(paths), reference, 'small');
    expect(Object.values(readOnly.binding.operations ?? {}).map((e) => e.operation)).toEqual([]);
    expect(readOnly.suggestions.map((x) => x.entry.reason).join(' ')).toMatch(/only by a synonym, and the document writes none at \/users/);
    const created = inferBinding(await small({ ...paths, '/users': { ...paths['/users'], post: op('createUser', userFields) } }), reference, 'small');
    expect(created.binding.operations?.['getCustomer']?.operation).toBe('getUser');
  });

  it('names a path parameter that shares its segment with a suffix (Twilio\'s /Cards/{Sid}.json) by its own name', async () => {
    const spec = await small({ '/Cards/{Sid}.json': { get: op('FetchCard', { id: { type: 'string' }, status: { type: 'string' }, last4: { type: 'string' } }, idParam('Sid')) } });
    const { binding, suggestions } = inferBinding(spec, reference, 'small', { threshold: 0 });
    const entries = [...Object.values(binding.operations ?? {}), ...suggestions.map((x) => x.entry)].filter((e) => e.operation === 'FetchCard');
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) expect(Object.values(e.path_params ?? { card_id: 'Sid' })).toEqual(['Sid']);
  });

  it('pairs no operation whose action contradicts the reference operation’s (an image upload does not freeze a card)', async () => {
    const spec = await small({
      '/cards/{card_id}/image': { post: op('uploadCardImageData', undefined, idParam('card_id')) },
      '/cards/{card_id}/renew': { post: op('postCardRenew', undefined, idParam('card_id')) },
      '/statements': { get: op('listStatements', { data: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } } }) },
    });
    const { binding, suggestions } = inferBinding(spec, reference, 'small', { threshold: 0 });
    const pairs = [...Object.entries(binding.operations ?? {}), ...suggestions.map((x) => [x.reference, x.entry] as const)].map(([r, e]) => `${r} <- ${e.operation}`);
    expect(pairs.filter((p) => /freezeCard|unfreezeCard|issueCard|listTransactions/.test(p))).toEqual([]);
  });

  it('writes a pairing below the threshold as a commented suggestion, which a load counts and a run does not use', async () => {
    // A payment schedule takes what a transfer takes, but its resource is a schedule: proposed, never active.
    const transferFields = { source_account_id: { type: 'string' }, destination_account_id: { type: 'string' }, amount: { type: 'string' }, currency: { type: 'string' }, description: { type: 'string' } };
    const schedule = { ...op('createPaymentSchedule', { id: { type: 'string' }, status: { type: 'string' }, ...transferFields }), requestBody: { content: { 'application/json': { schema: { type: 'object', properties: transferFields } } } } };
    const spec = await small({ '/payment-schedules': { post: schedule } });
    const all = inferBinding(spec, reference, 'small', { threshold: 0 });
    const weak = all.binding.operations?.['createTransfer'];
    expect(weak, 'the schedule is proposed at all for createTransfer').toBeDefined();
    expect(weak!.confidence!).toBeLessThan(ACTIVE_CONFIDENCE);
    const { binding, suggestions, threshold } = inferBinding(spec, reference, 'small');
    expect(binding.operations?.['createTransfer']).toBeUndefined();
    expect(suggestions.map((x) => x.reference)).toContain('createTransfer');
    const text = bindingYaml(binding, suggestions, threshold);
    expect(parse(text)['operations'] ?? null).toBeNull();
    expect(suggestionsIn(text)).toEqual([expect.objectContaining({ reference: 'createTransfer', operation: 'createPaymentSchedule' })]);
    // Uncommented, the entry is a valid one.
    const p = join(dir, 'suggested.yaml');
    writeFileSync(p, text);
    const loaded = loadBinding(p, spec, reference);
    expect(loaded.suggestions).toHaveLength(1);
    const b = new Binding(spec, reference, loaded);
    expect(b.resolve('createTransfer')).toBeUndefined();
    expect(b.summary('suggested.yaml')).toMatch(/0 operation entries active, 1 suggestion \(commented out, not used: createTransfer <- createPaymentSchedule\)/);
    writeFileSync(p, text.replace(/^ {2}# (?!suggestion)/gm, '  '));
    const taken = new Binding(spec, reference, loadBinding(p, spec, reference));
    expect(taken.resolve('createTransfer')?.vendor.operationId).toBe('createPaymentSchedule');
    expect(taken.summary('suggested.yaml')).toMatch(/1 operation entry active, 0 suggestions/);
  });

  it('prefers the vendor’s own spelling of a state to a synonym (FROZEN, not INACTIVE, is frozen)', async () => {
    const card = { id: { type: 'string' }, status: { type: 'string', enum: ['ACTIVE', 'FROZEN', 'INACTIVE'] }, last4: { type: 'string' }, brand: { type: 'string' } };
    const transfer = { id: { type: 'string' }, status: { type: 'string', enum: ['PENDING', 'PROCESSING', 'SUCCEEDED', 'FAILED'] }, amount: { type: 'string' }, currency: { type: 'string' } };
    const spec = await small({ '/cards/{card_id}': { get: op('getCard', card, idParam('card_id')) }, '/transfers/{transfer_id}': { get: op('getTransfer', transfer, idParam('transfer_id')) } });
    const { binding } = inferBinding(spec, reference, 'small');
    expect(binding.states).toMatchObject({ active: 'ACTIVE', frozen: 'FROZEN', pending: 'PENDING', processing: 'PROCESSING', failed: 'FAILED' });
    // SUCCEEDED is a reference state's own spelling (a collection's): never `completed`, which states map everywhere.
    expect(binding.states?.['completed']).toBeUndefined();
  });
});

describe('bind: the conventions dialect', () => {
  it('infers every convention right: camelCase names and query parameters, UPPERCASE values in every oneOf branch, offset paging and totals, envelopes, events, errors', async () => {
    const files = writeDialectFiles('conventions', dir);
    const spec = (await loadCatalogue({ specPath: files.specPath })).spec;
    const { binding, suggestions } = inferBinding(spec, reference, 'conventions.openapi.yaml');
    expect(suggestions).toEqual([]);
    const truth = parse(readFileSync(files.truthBindingPath, 'utf8')) as TruthBinding;
    expect(scoreBinding(dialect('conventions'), truth, binding as Partial<TruthBinding>).filter((x) => !x.right)).toEqual([]);
    // Spot checks of what the score covers: a member only the second oneOf branch has, an exact state over a
    // synonym, an event, the error shape, an offset list.
    expect(binding.fields?.['payer_bank']).toBe('payerBank');
    expect(binding.states).toMatchObject({ succeeded: 'SUCCEEDED', completed: 'COMPLETED', inactive: 'INACTIVE', processing: 'PROCESSING' });
    expect(binding.values?.['type']).toMatchObject({ passport: 'PASSPORT', mobile_money: 'MOBILE_MONEY' });
    expect(binding.events?.['external_account.created']).toBe('ExternalAccountCreated');
    expect(binding.errors).toEqual({ code: 'error.code', message: 'error.message' });
    expect(binding.operations?.['listCards']).toMatchObject({ list: { items: 'results', total: 'total', offset_param: 'offset', limit_param: 'limit' }, query: { customer_id: 'customerId', account_id: 'accountId' } });
    expect(binding.operations?.['getCard']?.envelope).toBe('result');
  });
});

describe('a run through a binding', { timeout: busy(300_000) }, () => {
  it('bind then run on the names dialect: conformant, no errors, as many executed checks as the reference run', async () => {
    const bindingPath = join(dir, 'cli-binding.yaml');
    const bind = await runCli(['bind', '--spec', names.path, '--out', bindingPath], {});
    expect(bind.code, bind.stderr).toBe(0);
    expect(bind.stdout).toMatch(/46 of 46 reference operations bound \(active entries\), 0 suggestions below/);
    const check = await runCli(['bind', '--spec', names.path, '--check', bindingPath], {});
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toMatch(/: 46 operation entries active, 0 suggestions/);
    const groups = ['--groups', 'customers,cards,kyc', '--seed', '7'];
    const [dialect, ref] = await Promise.all([
      runCli(['run', '--embedded-sandbox', '--spec', names.path, '--binding', bindingPath, ...groups, '--report-dir', join(dir, 'rd')], {}),
      runCli(['run', ...groups, '--report-dir', join(dir, 'rr')], {}),
    ]);
    expect(dialect.code, dialect.stdout + dialect.stderr).toBe(0);
    expect(ref.code, ref.stderr).toBe(0);
    // Its first lines say what the binding holds: what the run uses, and the suggestions it does not.
    expect(dialect.stderr.split('\n').slice(0, 4).join('\n')).toMatch(/binding .*cli-binding\.yaml: 46 operation entries active, 0 suggestions/);
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

describe('operations a binding places nowhere', { timeout: busy(300_000) }, () => {
  it('run in the unbound suite: the seed rules reach them, the report validates, and the accounting says why', async () => {
    const doc = JSON.parse(readFileSync(names.path, 'utf8')) as { paths: Record<string, unknown> };
    doc.paths['/status-page'] = { get: { operationId: 'ops.status', tags: ['Operations'], summary: 'Service status', responses: { '200': { description: 'up' } } } };
    const path = join(dir, 'with-unbound.json');
    writeFileSync(path, JSON.stringify(doc));
    const r = await runCli(['run', '--embedded-sandbox', '--spec', path, '--groups', 'unbound', '--seed', '5', '--report-dir', join(dir, 'ru')], {});
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

describe('parameters the vendor document requires', { timeout: busy(300_000) }, () => {
  it('are sent on every request of the operation: required query parameters (enum through a component) and headers', async () => {
    const doc = JSON.parse(readFileSync(names.path, 'utf8')) as { paths: Record<string, Record<string, { parameters?: unknown[] }>>; components: { schemas: Record<string, unknown> } };
    doc.components.schemas['Region'] = { type: 'string', enum: ['eu-west', 'us-east'] };
    const list = doc.paths['/customers']!['get']!;
    list.parameters = [...(list.parameters ?? []), { name: 'region', in: 'query', required: true, schema: { $ref: '#/components/schemas/Region' } }, { name: 'X-Api-Version', in: 'header', required: true, schema: { type: 'string', example: '2026-01-01' } }];
    const path = join(dir, 'required-params.json');
    writeFileSync(path, JSON.stringify(doc));
    const bound = join(dir, 'required-params.binding.yaml');
    expect((await runCli(['bind', '--spec', path, '--out', bound], {})).code).toBe(0);
    const r = await runCli(['run', '--embedded-sandbox', '--spec', path, '--binding', bound, '--groups', 'customers', '--seed', '5', '--report-dir', join(dir, 'rq')], {});
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'rq', 'latest', 'conformance.json'), 'utf8')) as RunReport;
    const lists = report.checks.flatMap((c) => c.exchanges).filter((x) => x.request.method === 'GET' && /\/v1\/customers(\?|$)/.test(x.request.url));
    expect(lists.length).toBeGreaterThan(0);
    expect(lists.every((x) => new URL(x.request.url).searchParams.get('region') === 'eu-west')).toBe(true);
    expect(lists.every((x) => x.request.headers['X-Api-Version'] === '2026-01-01')).toBe(true);
  });
});

describe('a request body made from the schema', { timeout: busy(300_000) }, () => {
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
    const r = await runCli(['run', '--embedded-sandbox', '--spec', path, '--groups', 'unbound', '--seed', '5', '--report-dir', join(dir, 'rg')], {});
    expect([0, 1], r.stderr).toContain(r.code);
    const report = JSON.parse(readFileSync(join(dir, 'rg', 'latest', 'conformance.json'), 'utf8')) as RunReport;
    const posts = report.checks.flatMap((c) => c.exchanges).filter((x) => x.request.method === 'POST' && x.request.url.endsWith('/v1/notes') && x.request.body?.startsWith('{"'));
    expect(posts.length).toBeGreaterThan(0);
    const body = JSON.parse(posts[0]!.request.body!) as Record<string, unknown>;
    expect(body).toMatchObject({ title: expect.any(String), priority: 'low', contact_email: expect.stringMatching(/@fsapi-conformance\.test$/) });
    expect(body).not.toHaveProperty('id');
  });
});
