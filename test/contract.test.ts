/**
 * The contract itself: spec/openapi.yaml (reference profile) and spec/requirements.yaml (catalogue).
 * These fail when the contract breaks: an invalid document, an example that contradicts its schema,
 * an operation without group or schemas, a requirement without a known level or a real seed citation.
 */
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { GROUPS, REFERENCE_SPEC_PATH } from '../src/catalogue/index.js';
import { createAjv } from '../src/catalogue/json-schema.js';
import { seedHeadings, unknownSeedSections, SEED_SPEC_PATH } from './helpers/seed-spec.js';
import { loadCatalogue, type Catalogue } from '../src/binding/catalogue-in-use.js';

let cat: Catalogue;
const raw = parse(readFileSync(REFERENCE_SPEC_PATH, 'utf8'), { maxAliasCount: -1 }) as Record<string, any>;

beforeAll(async () => {
  cat = await loadCatalogue();
});

describe('spec/openapi.yaml', () => {
  it('is a valid OpenAPI 3.1 document (official schema, @seriousme/openapi-schema-validator)', async () => {
    const v = new Validator();
    const res = await v.validate(structuredClone(raw));
    expect(res.errors).toBeUndefined();
    expect(res.valid).toBe(true);
    expect(v.version).toBe('3.1');
  });

  it('compiles every component schema in ajv strict mode (no typos in keywords)', () => {
    const ajv = createAjv({ strict: true });
    // Strict about keywords (typos), not about style: allOf branches and if/then name types and properties declared elsewhere.
    ajv.opts.strictRequired = false;
    ajv.opts.strictTypes = false;
    const bundle = JSON.parse(
      JSON.stringify({ $id: 'urn:fsapi:strict', $defs: raw.components.schemas }).replaceAll('#/components/schemas/', 'urn:fsapi:strict#/$defs/'),
    );
    // x-fsapi-* are our annotations; strict mode must know them to reject everything else.
    for (const k of ['x-fsapi-source', 'x-fsapi-seed-section', 'x-fsapi-states']) ajv.addKeyword(k);
    expect(() => ajv.addSchema(bundle)).not.toThrow();
    for (const name of Object.keys(raw.components.schemas)) {
      expect(() => ajv.getSchema(`urn:fsapi:strict#/$defs/${name}`), name).not.toThrow();
    }
  });

  it('has the 12 endpoint groups as tags, named as the seed names them, each with operations', () => {
    expect(raw.tags.map((t: { name: string }) => t.name)).toEqual(GROUPS.map((g) => g.tag));
    for (const g of GROUPS) {
      const ops = cat.spec.operations.filter((o) => o.group === g.slug);
      expect(ops.length, `${g.tag} has no operations`).toBeGreaterThanOrEqual(2);
    }
  });

  it('gives every operation an operationId, exactly one group tag, a source and a schema for each response', () => {
    for (const op of cat.spec.operations) {
      const where = `${op.method} ${op.path}`;
      expect(op.operationId, where).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.tags, where).toHaveLength(1);
      expect(op.group, where).toBeDefined();
      expect(['seed', 'profile'], where).toContain(op.source);
      expect(op.responses.length, where).toBeGreaterThan(0);
      for (const r of op.responses) {
        expect(r.content.length, `${where} ${r.status} has no content`).toBeGreaterThan(0);
        for (const c of r.content) expect(c.schema, `${where} ${r.status} ${c.mediaType}`).toBeDefined();
        if (r.status.startsWith('4') || r.status.startsWith('5')) {
          expect(r.content.map((c) => c.mediaType), `${where} ${r.status}`).toEqual(['application/problem+json']);
        }
      }
      expect(op.responses.some((r) => r.status.startsWith('2')), `${where} has no success response`).toBe(true);
      expect(op.responses.some((r) => r.status === '401'), `${where} documents no 401`).toBe(true);
    }
  });

  it('secures every operation with the Api-Key header and requires x-tenant-id on every request', () => {
    expect(raw.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Api-Key' });
    for (const op of cat.spec.operations) {
      expect(op.secured, op.operationId).toBe(true);
      const tenant = op.parameters.find((p) => p.in === 'header' && p.name === 'x-tenant-id');
      expect(tenant?.required, `${op.operationId} x-tenant-id`).toBe(true);
    }
    expect(raw.components.parameters.TenantId['x-fsapi-source']).toBe('profile');
  });

  it('requires Idempotency-Key on every POST, and only there', () => {
    for (const op of cat.spec.operations) {
      const key = op.parameters.find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
      if (op.method === 'POST') expect(key?.required, op.operationId).toBe(true);
      else expect(key, op.operationId).toBeUndefined();
    }
  });

  it('states POST /customers exactly as the seed gives it: every field, the nested address, the formats', () => {
    const op = cat.spec.byId.get('createCustomer')!;
    expect(op).toMatchObject({ method: 'POST', path: '/customers', source: 'seed' });
    const create = raw.components.schemas.CustomerCreate;
    for (const f of ['first_name', 'last_name', 'middle_name', 'email', 'phone', 'type', 'gender', 'date_of_birth', 'address']) {
      expect(create.properties, f).toHaveProperty(f);
    }
    const address = raw.components.schemas.Address;
    for (const f of ['address_line1', 'city', 'country', 'postal_code', 'state']) expect(address.properties, f).toHaveProperty(f);
    const valid = (body: unknown) => cat.spec.validateRequestBody(op, body).length === 0;
    const base = op.requestBody!.content[0]!.examples[0] as Record<string, any>;
    expect(valid(base)).toBe(true);
    expect(valid({ ...base, date_of_birth: '10/12/1990' })).toBe(false);
    expect(valid({ ...base, date_of_birth: '1990-02-30' })).toBe(false);
    expect(valid({ ...base, phone: '14155550123' })).toBe(false);
    expect(valid({ ...base, address: { ...base.address, country: 'USA' } })).toBe(false);
    expect(valid({ ...base, address: { ...base.address, state: 'CA' } })).toBe(false);
    expect(valid({ ...base, type: 'individual' })).toBe(true);
  });

  it('states GET /accounts as the seed gives it: no body, Api-Key and x-tenant-id', () => {
    const op = cat.spec.byId.get('listAccounts')!;
    expect(op).toMatchObject({ method: 'GET', path: '/accounts', source: 'seed', requestBody: undefined, secured: true });
    expect(op.parameters.find((p) => p.name === 'x-tenant-id')?.required).toBe(true);
  });

  it('marks every operation, parameter, header, response and schema with x-fsapi-source, and every seed section exists', () => {
    const headings = seedHeadings();
    const marked: [string, Record<string, unknown>][] = [];
    for (const [p, item] of Object.entries<any>(raw.paths)) {
      for (const m of ['get', 'post', 'patch', 'delete', 'put']) if (item[m]) marked.push([`${m} ${p}`, item[m]]);
    }
    for (const kind of ['parameters', 'headers', 'responses', 'schemas', 'securitySchemes'] as const) {
      for (const [name, v] of Object.entries<any>(raw.components[kind])) marked.push([`${kind}.${name}`, v]);
    }
    for (const t of raw.tags) marked.push([`tag ${t.name}`, t]);
    for (const [where, v] of marked) {
      expect(['seed', 'profile'], where).toContain(v['x-fsapi-source']);
      if (v['x-fsapi-source'] === 'seed') expect(v['x-fsapi-seed-section'], where).toBeTypeOf('string');
      if (typeof v['x-fsapi-seed-section'] === 'string') {
        expect(unknownSeedSections(v['x-fsapi-seed-section'] as string, headings), where).toEqual([]);
      }
    }
  });

  it('gives every stateful resource its states and transitions', () => {
    for (const name of ['KycVerification', 'Transfer', 'Card', 'Collection', 'FxTrade', 'WebhookDelivery']) {
      const states = cat.spec.states.get(name);
      expect(states, name).toBeDefined();
      const status = raw.components.schemas[name].properties.status;
      const values: string[] = status.enum ?? raw.components.schemas[status.$ref.split('/').pop()].enum;
      for (const t of states!.transitions) {
        expect(values, `${name} ${t.from}`).toContain(t.from);
        expect(values, `${name} ${t.to}`).toContain(t.to);
      }
      for (const s of [...states!.initial, ...states!.terminal]) expect(values, `${name} ${s}`).toContain(s);
    }
  });

  it('has an example for every request body and response, and every example validates against its schema (ajv)', () => {
    let checked = 0;
    for (const op of cat.spec.operations) {
      for (const media of op.requestBody?.content ?? []) {
        expect(media.examples.length, `${op.operationId} request`).toBeGreaterThan(0);
        for (const ex of media.examples) {
          expect(cat.spec.validateRequestBody(op, ex), `${op.operationId} request example`).toEqual([]);
          checked++;
        }
      }
      for (const r of op.responses) {
        for (const media of r.content) {
          expect(media.examples.length, `${op.operationId} ${r.status}`).toBeGreaterThan(0);
          for (const ex of media.examples) {
            const v = cat.spec.validator(media.schema!);
            expect(v(ex) ? [] : v.errors, `${op.operationId} ${r.status} example`).toEqual([]);
            checked++;
          }
        }
      }
      for (const p of op.parameters) {
        expect(p.example, `${op.operationId} parameter ${p.name}`).toBeDefined();
        const v = cat.spec.validator(p.schema!);
        expect(v(p.example) ? [] : v.errors, `${op.operationId} parameter ${p.name} example`).toEqual([]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(150);
  });
});

describe('spec/requirements.yaml', () => {
  it('has unique IDs, known levels and a source for every entry (loaded and validated by the catalogue module)', () => {
    const ids = cat.requirements.all.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of cat.requirements.all) expect(['MUST', 'CONTRACT', 'SHOULD', 'PROFILE', 'INFO']).toContain(r.level);
  });

  it('cites a real seed section for every MUST, and a standard for every SHOULD', () => {
    const headings = seedHeadings();
    for (const r of cat.requirements.all) {
      if (r.level === 'MUST') {
        expect('seed' in r.source, r.id).toBe(true);
        expect(unknownSeedSections((r.source as { seed: string }).seed, headings), r.id).toEqual([]);
      }
      if (r.level === 'SHOULD') expect('standard' in r.source, r.id).toBe(true);
    }
  });

  it('has a MUST for every normative sentence of the seed', () => {
    const must = cat.requirements.all.filter((r) => r.level === 'MUST');
    const cites = (words: RegExp) => must.some((r) => words.test(r.statement));
    expect(cites(/HTTPS/)).toBe(true);
    expect(cites(/\/v1\//)).toBe(true);
    expect(cites(/JSON/)).toBe(true);
    expect(cites(/Content-Type application\/json/)).toBe(true);
    expect(cites(/requires the Api-Key header/)).toBe(true);
    expect(cites(/401/)).toBe(true);
    expect(cites(/Public Key/)).toBe(true);
    expect(cites(/Sandbox and Live keys/)).toBe(true);
    expect(cites(/without an Idempotency-Key/)).toBe(true);
    expect(cites(/creates no duplicate/)).toBe(true);
    for (const f of [/date_of_birth/, /phone/, /country/, /state/, /individual/, /POST \/customers/]) expect(cites(f), String(f)).toBe(true);
    expect(cites(/GET \/accounts/)).toBe(true);
    expect(cites(/twelve endpoint groups/)).toBe(true);
    expect(cites(/delivery history/)).toBe(true);
    expect(cites(/Event details/)).toBe(true);
  });

  it('has an INFO entry for every "not shown" gap of the seed', () => {
    const seed = readFileSync(SEED_SPEC_PATH, 'utf8');
    const gaps = seed.split('\n').filter((l) => /not shown/.test(l));
    expect(gaps.length).toBeGreaterThanOrEqual(14);
    const info = cat.requirements.all.filter((r) => r.level === 'INFO');
    // Each gap line's own words appear in some INFO entry's citation.
    const keyPhrases: [RegExp, RegExp][] = [
      [/required, and their length bounds/, /which fields are required/],
      [/Allowed values of gender/, /allowed values/],
      [/Fields of the customer as returned/, /response body of POST \/customers|customer as returned/i],
      [/States and transitions of any resource/, /States and transitions/],
      [/Response body of POST \/customers/, /response body of POST \/customers/],
      [/Response body, query parameters and filtering of GET \/accounts/, /GET \/accounts/],
      [/Methods, paths and payloads/, /other groups/],
      [/Whether x-tenant-id is required/, /x-tenant-id/],
      [/How the webhook secret is used/, /sign/],
      [/Event kinds, event payloads/, /Event kinds|event kinds/],
      [/Error body shape/, /error body shape/i],
      [/Rate limits, size limits/, /rate limits|size limits|pagination|retention/i],
      [/Policy for new versions/, /Versioning/],
    ];
    for (const [gap, cite] of keyPhrases) {
      expect(gaps.some((g) => gap.test(g)), `seed gap ${gap}`).toBe(true);
      expect(info.some((r) => cite.test(JSON.stringify(r.source)) || cite.test(r.statement)), `INFO for ${gap}`).toBe(true);
    }
  });

});
