/**
 * The check families' pure parts: what they plan from the spec in use (mutations, classes of operations, check
 * ids) and the small judgements they make on answers. The end-to-end proof that each family catches what it
 * should is test/checks-sandbox.test.ts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GROUPS, loadSpec, REFERENCE_SPEC_PATH, type SpecDocument } from '../src/catalogue/index.js';
import { loadRequirements, REQUIREMENTS_PATH } from '../src/catalogue/index.js';
import { FAMILIES, genericChecks } from '../src/checks/index.js';
import { appliedFields, namesField, plantedFields } from '../src/checks/input.js';
import { itemKey } from '../src/checks/lists.js';
import { lifecycleFamily } from '../src/checks/lifecycle.js';
import { applyMutation, invalidValue, mutationsFor, slugOf, type Mutation } from '../src/checks/mutations.js';
import { replayMarkers } from '../src/checks/idempotency.js';
import { documented2xx, isCreate, isGetById, isList } from '../src/checks/support.js';
import { idsOf } from '../src/checks/tenancy.js';
import { otherVersion } from '../src/checks/versioning.js';
import { checkId, testName } from '../src/harness/check.js';
import type { HttpResponse } from '../src/http/client.js';

const SUITES = [...GROUPS.map((g) => g.slug), 'transport', 'versioning'] as const;
let spec: SpecDocument;
beforeAll(async () => {
  spec = await loadSpec(REFERENCE_SPEC_PATH);
});

const response = (status: number, json: unknown, headers: Record<string, string> = {}): HttpResponse =>
  ({ status, json, headers, text: JSON.stringify(json), contentType: 'application/json', sizeBytes: 0, durationMs: 0, exchange: { started_at: '', duration_ms: 0, request: { method: 'GET', url: 'https://x/v1/', headers: {} } } }) as HttpResponse;

describe('planning from the reference profile', () => {
  it('every generic check names a catalogued requirement, its own suite, a unique id and a name of its own', () => {
    const requirements = loadRequirements(REQUIREMENTS_PATH);
    const plan = { spec, isReferenceProfile: true };
    const ids = new Set<string>();
    const names = new Set<string>();
    for (const suite of SUITES) {
      for (const d of genericChecks(suite, plan)) {
        const req = requirements.get(d.requirement);
        expect(d.group, checkId(d)).toBe(suite);
        const id = checkId(d);
        expect(ids.has(id), id).toBe(false);
        ids.add(id);
        // The name reports, JUnit and Allure show: no two checks share one, and its title says what this check
        // does rather than restating the requirement (whose text lives only in spec/requirements.yaml).
        const name = testName(d, req);
        expect(names.has(name), name).toBe(false);
        names.add(name);
        expect(d.title.trim(), id).not.toBe('');
        expect(d.title.trim(), id).not.toBe(req.statement.trim());
      }
    }
  });

  it('every family of the check library plans checks from the reference profile, but the walk of vendor operations', () => {
    const plan = { spec, isReferenceProfile: true };
    // The lifecycle walk is for operations no driver knows; test/lifecycle.test.ts plans it on a vendor document.
    expect(FAMILIES).toContain(lifecycleFamily);
    for (const f of FAMILIES.filter((x) => x !== lifecycleFamily)) {
      const defs = SUITES.flatMap((suite) => [
        ...spec.operations.filter((o) => o.group === suite).flatMap((op) => f.forOperation?.(op, plan) ?? []),
        ...(f.forSuite?.(suite, plan) ?? []),
      ]);
      expect(defs.length, f.name).toBeGreaterThan(0);
    }
  });

  it('classifies operations from the document alone', () => {
    const op = (id: string) => spec.byId.get(id)!;
    expect(isCreate(op('createCustomer'))).toBe(true);
    expect(isCreate(op('submitKyc'))).toBe(false); // 202: an action, not a create
    expect(isList(op('listKycDocuments'))).toBe(true);
    expect(isGetById(op('getKycStatus'))).toBe(true);
    expect(isGetById(op('listKycDocuments'))).toBe(false);
    expect(documented2xx(op('createCustomer'), 201)).toBe(true);
    expect(documented2xx(op('createCustomer'), 200)).toBe(false);
  });

  it('transport and versioning checks exist only in their own suites', () => {
    const plan = { spec, isReferenceProfile: true };
    const names = (s: 'customers' | 'transport' | 'versioning') => genericChecks(s, plan).map((d) => d.requirement);
    expect(names('transport')).toEqual(expect.arrayContaining(['FSAPI-TRANS-002', 'FSAPI-TRANS-003']));
    expect(names('versioning')).toEqual(expect.arrayContaining(['FSAPI-VER-001', 'FSAPI-VER-002', 'FSAPI-GAP-014']));
    expect(names('customers').some((r) => r.startsWith('FSAPI-TRANS') || r.startsWith('FSAPI-VER'))).toBe(false);
  });
});

describe("planning from a vendor's own document", () => {
  it('plans from an OpenAPI 3.0 document with other operation ids, refs and nullable fields', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-vendor-'));
    const file = join(dir, 'vendor.json');
    writeFileSync(
      file,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Vendor', version: '1' },
        security: [{ key: [] }],
        paths: {
          '/customers': {
            post: {
              operationId: 'customers_create',
              tags: ['Customers'],
              requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewCustomer' } } } },
              responses: { '201': { description: 'ok' }, '400': { description: 'bad' } },
            },
            get: { operationId: 'customers_list', tags: ['Customers'], parameters: [{ name: 'page_size', in: 'query', schema: { type: 'integer' } }, { name: 'cursor', in: 'query', schema: { type: 'string' } }], responses: { '200': { description: 'ok' } } },
          },
        },
        components: {
          securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'Api-Key' } },
          schemas: {
            NewCustomer: {
              type: 'object',
              required: ['email', 'address'],
              properties: { email: { type: 'string', format: 'email' }, nickname: { type: 'string', nullable: true, maxLength: 20 }, address: { $ref: '#/components/schemas/Address' } },
            },
            Address: { type: 'object', required: ['country'], properties: { country: { type: 'string', pattern: '^[A-Z]{2}$' } } },
          },
        },
      }),
    );
    const vendor = await loadSpec(file);
    // nullable: null is a value the 3.0 document allows (so no mutation may count it as invalid), the bound still holds.
    const create = vendor.operations.find((o) => o.operationId === 'customers_create')!;
    const body = { email: 'ada@example.com', address: { country: 'US' } };
    expect(vendor.validateRequestBody(create, { ...body, nickname: null })).toEqual([]);
    expect(vendor.validateRequestBody(create, { ...body, nickname: 'x'.repeat(21) }).length).toBeGreaterThan(0);
    expect(vendor.validateRequestBody(create, { ...body, email: null }).length).toBeGreaterThan(0);
    for (const m of mutationsFor(vendor, create)) expect(vendor.validateRequestBody(create, applyMutation(body, m)).length, slugOf(m)).toBeGreaterThan(0);
    const defs = genericChecks('customers', { spec: vendor, isReferenceProfile: false });
    const variants = defs.filter((d) => d.requirement === 'FSAPI-INPUT-001').map((d) => d.variant);
    expect(variants).toEqual(expect.arrayContaining(['missing-email', 'bad-email', 'bad-nickname', 'missing-address-country', 'bad-address-country']));
    // The seed's POST /customers rules apply whatever the operation is called.
    expect(defs.some((d) => d.requirement === 'FSAPI-LIMIT-001' && d.operation === 'customers_create')).toBe(true);
    expect(defs.some((d) => d.requirement === 'FSAPI-GAP-001' && d.operation === 'customers_create')).toBe(true);
    expect(defs.some((d) => d.requirement === 'FSAPI-PAGE-001' && d.operation === 'customers_list')).toBe(true);
  });
});

describe('schema mutations (FSAPI-INPUT-001..003)', () => {
  const valid = {
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    phone: '+14155550123',
    type: 'individual',
    date_of_birth: '1990-12-10',
    address: { address_line1: '1 Way', city: 'SF', country: 'US', postal_code: '94105', state: 'US-CA' },
  };

  it('breaks the seed formats with the near misses a lenient parser would accept', () => {
    const byPath = new Map(mutationsFor(spec, spec.byId.get('createCustomer')!).filter((m) => m.kind === 'invalid').map((m) => [m.path.join('.'), m.value]));
    expect(byPath.get('date_of_birth')).toBe('31/12/1990');
    expect(byPath.get('phone')).toBe('14155550123');
    expect(byPath.get('address.country')).toBe('USA');
    expect(byPath.get('address.state')).toBe('CA');
    expect(byPath.get('type')).not.toMatch(/^(individual|business)$/);
  });

  it('covers each required property (nested address included) once, and every mutation really breaks the schema', () => {
    const op = spec.byId.get('createCustomer')!;
    const ms = mutationsFor(spec, op);
    const missing = ms.filter((m) => m.kind === 'missing').map((m) => m.path.join('.'));
    expect(missing).toEqual(expect.arrayContaining(['first_name', 'email', 'address', 'address.country', 'address.state']));
    expect(new Set(ms.map(slugOf)).size).toBe(ms.length);
    expect(spec.validateRequestBody(op, valid)).toEqual([]);
    for (const m of ms) expect(spec.validateRequestBody(op, applyMutation(valid, m)).length, slugOf(m)).toBeGreaterThan(0);
  });

  it('gives every write with a JSON body of the profile some mutation, except bodies that are empty by schema', () => {
    for (const op of spec.operations.filter((o) => o.requestBody && o.method !== 'GET')) {
      const n = mutationsFor(spec, op).length;
      if (['activateFeature', 'freezeCard', 'unfreezeCard'].includes(op.operationId)) continue;
      expect(n, op.operationId).toBeGreaterThan(0);
    }
  });

  it('leaves the body alone where it has nothing to remove, and never changes the body it is given', () => {
    const body = { a: 1, b: { c: 'x' }, s: 'text' };
    const before = structuredClone(body);
    // Nothing to remove: no mutated body at all (the check would send the valid body and judge it as invalid).
    expect(applyMutation(body, { path: ['b', 'd'], kind: 'missing', constraint: 'required' })).toBeUndefined();
    expect(applyMutation(body, { path: ['x', 'c'], kind: 'missing', constraint: 'required' })).toBeUndefined();
    expect(applyMutation(body, { path: ['s', 'c'], kind: 'invalid', value: 1, constraint: 'type' })).toBeUndefined();
    // Something to remove or replace: a changed copy; the body given stays as it was.
    expect(applyMutation(body, { path: ['b', 'c'], kind: 'missing', constraint: 'required' })).toEqual({ a: 1, b: {}, s: 'text' });
    const value = { deep: [1] };
    const replaced = applyMutation(body, { path: ['b', 'c'], kind: 'invalid', value, constraint: 'type' }) as { b: { c: { deep: number[] } } };
    expect(replaced).toEqual({ a: 1, b: { c: { deep: [1] } }, s: 'text' });
    replaced.b.c.deep.push(2);
    expect(value).toEqual({ deep: [1] });
    expect(body).toEqual(before);
  });

  it('breaks the most telling constraint of a property, and none where it has none', () => {
    expect(invalidValue({ type: 'string', minLength: 1, maxLength: 5 })).toEqual({ value: '', constraint: 'minLength 1' });
    expect(invalidValue({ type: 'integer', minimum: 1, maximum: 12 })).toEqual({ value: 0, constraint: 'minimum 1' });
    expect(invalidValue({ type: 'string' })).toBeUndefined();
  });

  it('accepts a JSON pointer, its dotted form, or the parent naming a missing property', () => {
    const m: Mutation = { path: ['address', 'country'], kind: 'missing', constraint: 'required' };
    expect(namesField(response(400, { errors: [{ field: '/address/country', message: 'is required' }] }), m)).toBe(true);
    expect(namesField(response(400, { errors: [{ field: 'address.country', message: 'is required' }] }), m)).toBe(true);
    expect(namesField(response(400, { errors: [{ field: '/address', message: "must have required property 'country'" }] }), m)).toBe(true);
    expect(namesField(response(400, { errors: [{ field: '/address/state', message: 'bad' }] }), m)).toBe(false);
    expect(namesField(response(400, { detail: 'bad' }), m)).toBe(false);
  });
});

describe('small judgements', () => {
  it('plants read-only fields that fit the created object, and sees which were applied', () => {
    const planted = plantedFields(spec, spec.byId.get('createAccount')!, 'Tail0001', 'ten_other');
    expect(planted['id']).toBe('acc_ReadOnlyTail0001');
    expect(planted['balance']).toBe('987654.32');
    expect(planted['status']).toBeUndefined(); // Account.status has one value: planting it shows nothing
    expect(appliedFields(planted, { id: 'acc_ReadOnlyTail0001', balance: '987654.320', created_at: '2001-02-03T04:05:06.000Z' })).toEqual(['id', 'balance', 'created_at']);
    expect(appliedFields(planted, { id: 'acc_other', balance: '0.00' })).toEqual([]);
  });

  it('finds a replay marker by name, whatever its spelling', () => {
    const first = response(201, {}, { 'content-type': 'application/json' });
    expect(replayMarkers(first, response(201, {}, { 'idempotent-replayed': 'true' }))).toEqual(['idempotent-replayed: true']);
    expect(replayMarkers(first, response(201, {}, { 'x-idempotency-replay': '1' }))).toEqual(['x-idempotency-replay: 1']);
    expect(replayMarkers(first, response(201, {}, {}))).toEqual([]);
  });

  it('reads ids and references of objects and list pages; keys items without ids by their stable members', () => {
    expect([...idsOf({ id: 'acc_12345678', customer_id: 'cus_12345678', currency: 'USD' })].sort()).toEqual(['acc_12345678', 'cus_12345678']);
    expect([...idsOf({ object: 'list', data: [{ id: 'cus_aaaaaaaa' }, { id: 'cus_bbbbbbbb' }] })]).toEqual(['cus_aaaaaaaa', 'cus_bbbbbbbb']);
    // An item with an id is keyed by it, whatever else it holds; two ids, two keys.
    expect(itemKey({ id: 'acc_12345678', balance: '1.00' })).toBe('acc_12345678');
    expect(itemKey({ id: 'acc_12345678' })).not.toBe(itemKey({ id: 'acc_87654321' }));
    // Without an id: its stable members, the moving ones (rates, balances, times) left out.
    expect(itemKey({ base: 'USD', quote: 'EUR', rate: '0.9', timestamp: 't1' })).toBe(itemKey({ base: 'USD', quote: 'EUR', rate: '0.91', timestamp: 't2' }));
    expect(itemKey({ feature: 'cards', updated_at: 'x', balance: '1' })).toBe(itemKey({ balance: '2', updated_at: 'y', feature: 'cards' }));
    expect(itemKey({ base: 'USD', quote: 'EUR', rate: '0.9' })).not.toBe(itemKey({ base: 'USD', quote: 'GBP', rate: '0.9' }));
    expect(itemKey({ feature: 'cards' })).not.toBe(itemKey({ feature: 'crypto' }));
  });

  it('swaps the version segment of a base URL, and only a trailing /v1', () => {
    expect(otherVersion('https://api.example/v1/', 'v2')).toBe('https://api.example/v2/');
    expect(otherVersion('https://api.example/prefix/v1', 'v0')).toBe('https://api.example/prefix/v0/');
    expect(otherVersion('https://api.example/', 'v2')).toBeUndefined();
  });
});
