/**
 * Every request the suite calls valid is valid for its document (issue 31): a run on a small vendor document of our
 * own (test/fixtures/valid-requests/vendor.yaml, with a binding that renames first_name) against a loopback server
 * that refuses whatever its document forbids: a customer create that wraps its body (`{"customer": {...}}`), readOnly
 * members required in another branch of an allOf, a uuid path parameter whose list also holds a non-uuid value, and
 * an operation that answers text/plain only.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/results/model.js';
import { fromRoot } from '../src/paths.js';
import { runCli } from './helpers/cli.js';
import { httpsServer, json, type Cert, type TestServer } from './helpers/servers.js';
import { busy } from './helpers/busy.js';

const KEY = 'sk_test_valid_requests';
const WIDGET = '3f2b8c1e-7a4d-4e9b-8c2a-1d5e6f7a8b9c';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
type JsonObject = Record<string, unknown>;
const isObj = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

let server: TestServer & { cert: Cert };
let report: RunReport;
const dir = mkdtempSync(join(tmpdir(), 'fsapi-valid-requests-'));

function parsed(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

beforeAll(async () => {
  let n = 0;
  const customers = new Map<string, JsonObject>();
  server = await httpsServer((req, res, body) => {
    const u = new URL(req.url ?? '/', 'https://x');
    const route = `${req.method} ${u.pathname.replace(/^\/v1/, '')}`;
    if (req.headers['api-key'] !== KEY) return json(res, 401, { message: 'unauthorised' }, { 'www-authenticate': 'ApiKey' });
    const b = parsed(body);
    if (route === 'POST /customers') {
      // As the document says: the customer wrapped, in the vendor's names, without the server's id.
      const c = isObj(b) ? b['customer'] : undefined;
      if (!isObj(c)) return json(res, 422, { message: 'customer is required' });
      if (c['id'] !== undefined) return json(res, 422, { message: 'customer.id is read-only' });
      if (typeof c['givenName'] !== 'string') return json(res, 422, { message: 'customer.givenName is required' });
      const made = { ...c, id: `cus_${++n}` };
      customers.set(made.id, made);
      return json(res, 201, { customer: made });
    }
    if (route === 'GET /customers') {
      const email = u.searchParams.get('email');
      return json(res, 200, { data: [...customers.values()].filter((c) => !email || c['email'] === email), has_more: false });
    }
    if (route.startsWith('GET /customers/')) {
      const c = customers.get(route.slice('GET /customers/'.length));
      return c ? json(res, 200, c) : json(res, 404, { message: 'no such customer' });
    }
    if (route === 'POST /gadgets') {
      if (!isObj(b) || b['id'] !== undefined || b['created_at'] !== undefined) return json(res, 400, { message: 'id and created_at are read-only' });
      return typeof b['name'] === 'string' ? json(res, 201, { id: `gdg_${++n}`, name: b['name'] }) : json(res, 400, { message: 'name is required' });
    }
    if (route === 'GET /widgets') return json(res, 200, { data: [{ id: 'acme_corp', name: 'a slug' }, { id: WIDGET, name: 'the widget' }] });
    if (route.startsWith('GET /widgets/')) {
      const id = route.slice('GET /widgets/'.length);
      // A target that checks formats first.
      if (!UUID.test(id)) return json(res, 422, { message: 'widget_id must be a uuid' });
      return id === WIDGET ? json(res, 200, { id, name: 'the widget' }) : json(res, 404, { message: 'no such widget' });
    }
    if (route === 'GET /sprockets') {
      // A list filtered by a body its document requires.
      if (!isObj(b) || !isObj(b['filter'])) return json(res, 400, { message: 'filter is required' });
      return json(res, 200, { data: [{ id: 'spr_1', name: 'a sprocket' }] });
    }
    if (route.startsWith('GET /sprockets/')) {
      return route === 'GET /sprockets/spr_1' ? json(res, 200, { id: 'spr_1', name: 'a sprocket' }) : json(res, 404, { message: 'no such sprocket' });
    }
    if (route === 'GET /notes') {
      if (!String(req.headers['accept']).includes('text/plain')) return json(res, 406, { message: 'text/plain only' });
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end('a note');
    }
    return json(res, 404, { message: 'not found' });
  });
  writeFileSync(join(dir, 'ca.pem'), server.cert.cert);
  const fixture = (f: string) => fromRoot('test', 'fixtures', 'valid-requests', f);
  await runCli(['run', '--spec', fixture('vendor.yaml'), '--binding', fixture('binding.yaml'), '--groups', 'customers', '--seed', '7', '--report-dir', join(dir, 'r')], {
    FSAPI_BASE_URL: server.url,
    FSAPI_API_KEY: KEY,
    FSAPI_TENANT_ID: 'tenant_valid_requests',
    FSAPI_CA_FILE: join(dir, 'ca.pem'),
    FSAPI_RATE_LIMIT: '0',
  });
  report = JSON.parse(readFileSync(join(dir, 'r', 'latest', 'conformance.json'), 'utf8')) as RunReport;
}, busy(240_000));

afterAll(() => server.close());

const sent = (method: string, path: string) => server.requests.filter((r) => r.method === method && r.url.replace(/\?.*$/, '') === `/v1${path}` && r.headers['api-key'] === KEY);
const check = (requirement: string, operation: string, variant?: string) => report.checks.find((c) => c.requirement === requirement && c.operation === operation && (!variant || c.id.endsWith(` ${variant}`)));

describe('valid requests on a vendor document', { timeout: busy(60_000) }, () => {
  it('runs with no suite error', () => {
    expect(report.checks.filter((c) => c.status === 'error').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
  });

  it("posts the customer as the vendor's document takes it: wrapped, renamed, without its readOnly id", () => {
    const wrapped = sent('POST', '/customers').map((r) => parsed(r.body)).filter((b): b is JsonObject => isObj(b) && isObj(b['customer']));
    expect(wrapped.length).toBeGreaterThan(3);
    // Some are the input checks' deliberately broken bodies (a member left out), still wrapped and renamed.
    expect(wrapped.filter((b) => typeof (b['customer'] as JsonObject)['givenName'] === 'string').length).toBeGreaterThan(3);
    for (const b of wrapped) {
      const c = b['customer'] as JsonObject;
      expect(c['first_name']).toBeUndefined();
      expect(c['id']).toBeUndefined();
    }
    // The seed's own format checks run on the vendor's form: accepted, judged on what came back.
    expect(check('FSAPI-CUS-002', 'createCustomer', 'date-valid')?.status).toBe('passed');
    expect(check('FSAPI-CUS-003', 'createCustomer', 'phone-valid')?.status).toBe('passed');
  });

  it("still holds the vendor to the seed's customer body, once, with the document's declaration as the evidence", () => {
    const seedForm = check('FSAPI-CUS-001', 'createCustomer', 'all-seed-fields')!;
    expect(seedForm.status).toBe('failed');
    expect(report.verdict).toBe('non-conformant');
    const conflicts = (report.document_conflicts ?? []).filter((x) => x.requirement === 'FSAPI-CUS-001');
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]!.pointer).toBe('/components/schemas/CustomerCreate');
    expect(conflicts[0]!.declaration).toMatch(/requires customer/);
    expect(conflicts[0]!.checks).toEqual([seedForm.id]);
    // The seed-form body went flat, in the seed's names.
    const flat = sent('POST', '/customers').map((r) => parsed(r.body)).filter((b): b is JsonObject => isObj(b) && typeof b['first_name'] === 'string');
    expect(flat.length).toBeGreaterThan(0);
  });

  it('leaves readOnly members of an allOf out of a valid create, example included', () => {
    // The target refuses a create that carries them: the valid request passes only without them.
    const valid = check('FSAPI-CONTRACT-004', 'gadgets.create')!;
    expect(valid.status).toBe('passed');
    const bodies = valid.exchanges.map((x) => parsed(x.request.body ?? '')).filter(isObj);
    expect(bodies.length).toBeGreaterThan(0);
    // The document's example, without the server's members.
    for (const b of bodies) expect(b).toEqual({ name: 'lamp' });
  });

  it("never sends a list's non-uuid value for a uuid parameter; the unknown id of the 404 probe is a uuid too", () => {
    const reads = sent('GET', '/widgets/acme_corp');
    expect(reads).toHaveLength(0);
    const paths = server.requests.filter((r) => r.method === 'GET' && r.url.startsWith('/v1/widgets/')).map((r) => r.url.replace(/\?.*$/, '').slice('/v1/widgets/'.length));
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => !UUID.test(p))).toEqual([]);
    expect(check('FSAPI-CONTRACT-004', 'widgets.get')?.status).toBe('passed');
    expect(check('FSAPI-HTTP-003', 'widgets.get')?.status).toBe('passed');
  });

  it("reads a value from a list whose document requires a body with that body (the list's GET without it is refused)", () => {
    expect(sent('GET', '/sprockets').filter((r) => !isObj(parsed(r.body)))).toEqual([]);
    expect(check('FSAPI-CONTRACT-004', 'sprockets.get')?.status).toBe('passed');
  });

  it("asks no paging of a list that declares no limit, and names the parameter to bind", () => {
    expect(server.requests.filter((r) => r.url.startsWith('/v1/widgets?') && /[?&]limit=/.test(r.url))).toEqual([]);
    for (const [requirement, variant] of [['FSAPI-PAGE-001', 'walk-limit-1'], ['FSAPI-LIMIT-002', 'absurd-limit']] as const) {
      const c = check(requirement, 'widgets.list', variant)!;
      expect(c.status, `${c.id}: ${c.message}`).toBe('skipped');
      expect(c.skip_cause).toBe('not-applicable');
      expect(c.message).toContain('GET /widgets declares no "limit" query parameter');
      expect(c.message).toContain('if it pages by "pageSize", bind the list with that as list.limit_param');
    }
  });

  it('sends no "undocumented" PUT to a path another template documents PUT for (/gizmos/import under /gizmos/{address})', () => {
    expect(report.checks.filter((c) => c.requirement === 'FSAPI-HTTP-002').map((c) => c.id)).not.toContain('FSAPI-HTTP-002 customers put-gizmos-import');
    expect(sent('PUT', '/gizmos/import')).toEqual([]);
    // The rule still applies where no template documents PUT.
    expect(report.checks.map((c) => c.id)).toContain('FSAPI-HTTP-002 customers put-widgets');
  });

  it('sends nothing to a path key that holds a query string, and says the document cannot be addressed as written', () => {
    expect(server.requests.filter((r) => r.url.startsWith('/v1/links'))).toEqual([]);
    const checks = report.checks.filter((c) => c.operation === 'links.copied');
    expect(checks.length).toBeGreaterThan(3);
    for (const c of checks) {
      expect(c.status, c.id).toBe('skipped');
      expect(c.message).toContain('its path key "/links?pin=1111&referenceId=abc" holds a query string, which an OpenAPI path does not');
    }
  });

  it("does not hold a text/plain-only answer to JSON: it asked for text/plain, and says why it did not judge the body", () => {
    expect(sent('GET', '/notes').every((r) => r.headers['accept'] === 'text/plain')).toBe(true);
    // Its JSON error answers (the 401s of the auth checks) are judged; its text/plain answers are not, and it says so.
    const media = check('FSAPI-MEDIA-001', 'notes.get')!;
    expect(media.status).toBe('passed');
    expect(media.message).toMatch(/could not be: the document gives text\/plain as the only answer type/);
    expect(sent('GET', '/notes').length).toBeGreaterThan(0);
  });
});
