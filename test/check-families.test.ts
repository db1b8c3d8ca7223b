/**
 * Each check family's judges called directly on made-up recorded answers, as `verify` calls them: for each, a pass,
 * a failure, and the edges the fault matrix cannot reach (an empty challenge header, data repeated in a refusal,
 * a replay across businesses, a cursor handed out twice). No run, no server: the judge is a pure function.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue, type Catalogue } from '../src/binding/catalogue-in-use.js';
import { genericChecks } from '../src/checks/index.js';
import { judgeTraffic } from '../src/checks/traffic.js';
import { checkId, type CheckDef } from '../src/harness/check.js';
import type { RecordedExchange } from '../src/http/exchange.js';
import { answers, exchange, judged, type Made } from './helpers/recorded.js';

const BASE = 'https://api.example/v1';
const CUSTOMER = 'cus_0a1b2c3d4e5f';
const SECOND_KEY = { 'Api-Key': '[redacted: FSAPI_SECOND_API_KEY]' };

let catalogue: Catalogue;
let defs: Map<string, CheckDef>;
beforeAll(async () => {
  catalogue = await loadCatalogue();
  const plan = { spec: catalogue.spec, isReferenceProfile: true, binding: catalogue.binding };
  defs = new Map(['accounts', 'customers'].flatMap((s) => genericChecks(s as 'accounts', plan)).map((d) => [checkId(d), d]));
});
const judgeOf = (id: string): NonNullable<CheckDef['judge']> => {
  const j = defs.get(id)?.judge;
  if (!j) throw new Error(`no judged check ${id}`);
  return j;
};
/** The check's outcome at its requirement's level: a SHOULD's failure is a warning, as in a run. */
const outcome = (id: string, xs: RecordedExchange[]) => judged(judgeOf(id), xs, {}, catalogue.requirements.byId.get(id.split(' ')[0]!)!.level);
const statusOf = (id: string, xs: RecordedExchange[]) => outcome(id, xs).status;

/** An answer to one operation of the profile, as ctx.call records it. */
const call = (operation: string, method: string, url: string, status: number, body?: unknown, extra: Made = {}) => exchange(method, `${BASE}${url}`, status, body, { operation, ...extra });
const getCustomer = (status: number, body?: unknown, extra: Made = {}) => call('getCustomer', 'GET', `/customers/${CUSTOMER}`, status, body, extra);
const createCustomer = (status: number, body?: unknown, extra: Made = {}) => call('createCustomer', 'POST', '/customers', status, body, extra);

describe('auth', () => {
  const noKey = (status: number, headers?: Record<string, string>) => getCustomer(status, { title: 'x' }, { probe: 'no-key', ...(headers ? { responseHeaders: headers } : {}) });

  it('AUTH-001..006: passes a 401, fails any other answer to a request without a valid key', () => {
    expect(statusOf('FSAPI-AUTH-001 getCustomer no-key', [noKey(401)])).toBe('passed');
    expect(statusOf('FSAPI-AUTH-001 getCustomer no-key', [noKey(200)])).toBe('failed');
    expect(statusOf('FSAPI-AUTH-003 getCustomer bearer-only', [noKey(403)])).toBe('failed');
  });

  it('AUTH-101: a 401 needs a WWW-Authenticate challenge; an empty or blank one is none; no 401 is nothing to inspect', () => {
    const id = 'FSAPI-AUTH-101 getCustomer www-authenticate';
    expect(statusOf(id, [noKey(401, { 'content-type': 'application/problem+json', 'www-authenticate': 'ApiKey realm="fsapi"' })])).toBe('passed');
    const empty = outcome(id, [noKey(401, { 'www-authenticate': '' })]);
    expect(empty.status).toBe('warning');
    expect(empty.message).toMatch(/401 without a WWW-Authenticate header/);
    expect(statusOf(id, [noKey(401, { 'www-authenticate': '   ' })])).toBe('warning');
    expect(statusOf(id, [noKey(401, {})])).toBe('warning');
    expect(statusOf(id, [noKey(403, { 'www-authenticate': 'ApiKey' })])).toBe('skipped');
  });

  it('AUTH-007: an unauthenticated write may be refused any way but with a server error', () => {
    const write = (status: number) => createCustomer(status, { title: 'x' }, { probe: 'no-key' });
    expect(statusOf('FSAPI-AUTH-007 createCustomer no-key-no-effect', [write(401)])).toBe('passed');
    expect(statusOf('FSAPI-AUTH-007 createCustomer no-key-no-effect', [write(500)])).toBe('failed');
  });
});

describe('tenancy', () => {
  const own = getCustomer(200, { id: CUSTOMER, name: 'Harbour Lights Bakery Ltd', status: 'active' });
  const foreign = (status: number, body: unknown) => getCustomer(status, body, { probe: 'foreign-object', requestHeaders: SECOND_KEY });
  const id = 'FSAPI-TEN-001 getCustomer foreign-object';

  it("TEN-001 by id: passes a 404 or 403 that repeats nothing of the first business's object", () => {
    expect(statusOf(id, [own, foreign(404, { title: 'Not found', detail: `no customer ${CUSTOMER}` })])).toBe('passed');
    expect(statusOf(id, [own, foreign(403, { title: 'Forbidden', status: 'active' })])).toBe('passed');
  });

  it('TEN-001 by id: fails the object served, another refusal, and a 404 whose body leaks its data', () => {
    expect(outcome(id, [own, foreign(200, { id: CUSTOMER })]).message).toMatch(/object was served/);
    expect(statusOf(id, [own, foreign(400, { title: 'Bad' })])).toBe('failed');
    const leak = outcome(id, [own, foreign(404, { title: 'Not found', detail: 'Harbour Lights Bakery Ltd is not yours' })]);
    expect(leak.status).toBe('failed');
    expect(leak.message).toMatch(/repeats the first business's data \(Harbour Lights Bakery Ltd\)/);
  });

  it('TEN-001 by id: skips when the owner cannot read its own object (a prerequisite)', () => {
    expect(statusOf(id, [getCustomer(404, { title: 'x' }), foreign(404, { title: 'x' })])).toBe('skipped');
  });

  describe('TEN-001 lists', () => {
    const listId = 'FSAPI-TEN-001 listCustomers foreign-items';
    const page = (ids: string[], more: boolean, second = false, cursor?: string) =>
      call('listCustomers', 'GET', `/customers?limit=2${cursor ? `&cursor=${cursor}` : ''}`, 200, { data: ids.map((i) => ({ id: i })), has_more: more, next_cursor: more ? `c_${ids.at(-1)}` : null }, second ? { requestHeaders: SECOND_KEY } : {});

    it("passes walks that keep to their own business; fails the second business's second page listing the first's object", () => {
      const mine = [page(['cus_a00001', 'cus_a00002'], true), page(['cus_a00003'], false, false, 'c_cus_a00002')];
      expect(statusOf(listId, [...mine, page(['cus_b00001', 'cus_b00002'], true, true), page(['cus_b00003'], false, true, 'c_cus_b00002')])).toBe('passed');
      const leaked = outcome(listId, [...mine, page(['cus_b00001', 'cus_b00002'], true, true), page(['cus_a00003'], false, true, 'c_cus_b00002')]);
      expect(leaked.status).toBe('failed');
      expect(leaked.message).toMatch(/second business's list \(2 pages\) holds cus_a00003, which belongs to the first business/);
      // The first business's list naming the second's object (a reference member counts as much as an id).
      const ref = call('listCustomers', 'GET', '/customers?limit=2', 200, { data: [{ id: 'cus_a00001', parent_id: 'cus_b00001' }], has_more: false, next_cursor: null });
      expect(outcome(listId, [ref, page(['cus_b00001'], false, true)]).message).toMatch(/first business's list \(1 pages\) holds cus_a00001, which belongs to the second business/);
    });

    it("skips when either business's list cannot be read", () => {
      expect(statusOf(listId, [page(['cus_a00001'], false)])).toBe('skipped');
      expect(statusOf(listId, [page(['cus_b00001'], false, true)])).toBe('skipped');
    });
  });

  it("TEN-002: the configured key with the second business's x-tenant-id sees none of its objects", () => {
    const tid = 'FSAPI-TEN-002 getCustomer foreign-tenant-header';
    const ref = getCustomer(200, { id: CUSTOMER, tenant_id: 'ten_second_01' }, { requestHeaders: SECOND_KEY });
    const probe = (status: number, body: unknown) => getCustomer(status, body, { probe: 'foreign-tenant', requestHeaders: { 'x-tenant-id': 'ten_second_01' } });
    expect(statusOf(tid, [ref, probe(403, { title: 'Forbidden' })])).toBe('passed');
    expect(statusOf(tid, [ref, probe(200, { id: 'cus_ffffffffffff' })])).toBe('passed');
    expect(outcome(tid, [ref, probe(200, { id: CUSTOMER })]).message).toMatch(/with the second business's data \(cus_0a1b2c3d4e5f\)/);
    expect(statusOf(tid, [ref, probe(500, { title: 'x' })])).toBe('failed');
    expect(statusOf(tid, [getCustomer(404, { title: 'x' }), probe(403, {})])).toBe('skipped');
  });
});

describe('idempotency', () => {
  const made = (status: number, id?: string, extra: Made = {}) => createCustomer(status, id ? { id, object: 'customer' } : { title: 'x' }, extra);

  it('IDEM-001 and -101: a POST without a key is refused (400 exactly for -101), never processed or a server error', () => {
    const probe = (status: number) => made(status, undefined, { probe: 'no-idempotency-key' });
    expect(statusOf('FSAPI-IDEM-001 createCustomer no-key', [probe(400)])).toBe('passed');
    expect(statusOf('FSAPI-IDEM-001 createCustomer no-key', [probe(422)])).toBe('passed');
    expect(statusOf('FSAPI-IDEM-001 createCustomer no-key', [probe(201)])).toBe('failed');
    expect(statusOf('FSAPI-IDEM-001 createCustomer no-key', [probe(503)])).toBe('failed');
    expect(statusOf('FSAPI-IDEM-101 createCustomer no-key-400', [probe(400)])).toBe('passed');
    expect(statusOf('FSAPI-IDEM-101 createCustomer no-key-400', [probe(422)])).toBe('warning');
  });

  it('IDEM-002: a retry answers the same status and resource; another id or status fails; a first refusal skips', () => {
    const id = 'FSAPI-IDEM-002 createCustomer replay';
    expect(statusOf(id, [made(201, 'cus_111111'), made(201, 'cus_111111')])).toBe('passed');
    expect(outcome(id, [made(201, 'cus_111111'), made(201, 'cus_222222')]).message).toMatch(/answered cus_222222; the first request created cus_111111/);
    expect(statusOf(id, [made(201, 'cus_111111'), made(200, 'cus_111111')])).toBe('failed');
    expect(statusOf(id, [made(422), made(422)])).toBe('skipped');
  });

  it('IDEM-102: the same key with another body is 422, not processed', () => {
    const id = 'FSAPI-IDEM-102 createCustomer different-body';
    expect(statusOf(id, [made(201, 'cus_111111'), made(422)])).toBe('passed');
    expect(outcome(id, [made(201, 'cus_111111'), made(201, 'cus_111111')]).message).toMatch(/like the first request/);
    expect(statusOf(id, [made(201, 'cus_111111'), made(409)])).toBe('warning');
  });

  it('IDEM-103: a burst with one key answers 409 or the one success; another status or a second resource fails', () => {
    const id = 'FSAPI-IDEM-103 createCustomer parallel-answers';
    expect(statusOf(id, [made(201, 'cus_111111'), made(409), made(201, 'cus_111111')])).toBe('passed');
    expect(statusOf(id, [made(201, 'cus_111111'), made(500)])).toBe('warning');
    expect(outcome(id, [made(201, 'cus_111111'), made(201, 'cus_222222')]).message).toMatch(/name 2 different resources/);
    expect(statusOf(id, [made(409), made(409)])).toBe('skipped');
  });

  it('IDEM-104: the second business with the same key value gets its own resource, unmarked', () => {
    const id = 'FSAPI-IDEM-104 createCustomer other-tenant';
    const second = (status: number, cid?: string, headers?: Record<string, string>) => made(status, cid, { requestHeaders: SECOND_KEY, ...(headers ? { responseHeaders: headers } : {}) });
    expect(statusOf(id, [made(201, 'cus_111111'), second(201, 'cus_999999')])).toBe('passed');
    expect(outcome(id, [made(201, 'cus_111111'), second(201, 'cus_111111')]).message).toMatch(/a replay across businesses/);
    expect(statusOf(id, [made(201, 'cus_111111'), second(409)])).toBe('warning');
    const marked = outcome(id, [made(201, 'cus_111111'), second(201, 'cus_999999', { 'content-type': 'application/json', 'idempotent-replayed': 'true' })]);
    expect(marked.message).toMatch(/marked as a replay \(idempotent-replayed: true\)/);
  });

  it('IDEM-105: keys that differ only in case make two resources', () => {
    const id = 'FSAPI-IDEM-105 createCustomer key-case';
    expect(statusOf(id, [made(201, 'cus_111111'), made(201, 'cus_222222')])).toBe('passed');
    expect(statusOf(id, [made(201, 'cus_111111'), made(201, 'cus_111111')])).toBe('warning');
    expect(statusOf(id, [made(201, 'cus_111111'), made(409)])).toBe('warning');
  });
});

describe('headers and media types', () => {
  const sent = (status: number, probe?: string) => createCustomer(status, { title: 'x' }, probe ? { probe } : {});

  it('TEN-101: a request without x-tenant-id is refused with 400, not processed', () => {
    const id = 'FSAPI-TEN-101 createCustomer no-tenant';
    expect(statusOf(id, [sent(400, 'no-tenant')])).toBe('passed');
    expect(outcome(id, [sent(201, 'no-tenant')]).message).toMatch(/without x-tenant-id was processed: 201/);
    expect(statusOf(id, [sent(403, 'no-tenant')])).not.toBe('passed');
  });

  it('MEDIA-002: a valid JSON body is read as JSON: any 2xx or business refusal passes; 400, 415 and 5xx fail', () => {
    const id = 'FSAPI-MEDIA-002 createCustomer json-body';
    for (const s of [201, 409, 422]) expect(statusOf(id, [sent(s)]), String(s)).toBe('passed');
    for (const s of [400, 415, 500]) expect(statusOf(id, [sent(s)]), String(s)).toBe('failed');
  });

  it('MEDIA-101 and -102: text/plain is refused with 415; truncated JSON with 400, never a server error', () => {
    expect(statusOf('FSAPI-MEDIA-101 createCustomer text-plain', [sent(415, 'wrong-media-type')])).toBe('passed');
    expect(statusOf('FSAPI-MEDIA-101 createCustomer text-plain', [sent(201, 'wrong-media-type')])).not.toBe('passed');
    expect(statusOf('FSAPI-MEDIA-102 createCustomer truncated-json', [sent(400, 'malformed-body')])).toBe('passed');
    expect(outcome('FSAPI-MEDIA-102 createCustomer truncated-json', [sent(500, 'malformed-body')]).message).toMatch(/caused a server error/);
    expect(statusOf('FSAPI-MEDIA-102 createCustomer truncated-json', [sent(422, 'malformed-body')])).not.toBe('passed');
  });
});

describe('http and lists', () => {
  it('HTTP-001 and -003: an unknown path or id answers 404', () => {
    expect(statusOf('FSAPI-HTTP-001 customers unknown-path', [exchange('GET', `${BASE}/nope`, 404, { title: 'x' })])).toBe('passed');
    expect(statusOf('FSAPI-HTTP-001 customers unknown-path', [exchange('GET', `${BASE}/nope`, 200, {})])).not.toBe('passed');
    expect(statusOf('FSAPI-HTTP-003 getCustomer unknown-id', [getCustomer(404, { title: 'x' }, { probe: 'unknown-id' })])).toBe('passed');
    expect(statusOf('FSAPI-HTTP-003 getCustomer unknown-id', [getCustomer(400, { title: 'x' }, { probe: 'unknown-id' })])).not.toBe('passed');
  });

  it('HTTP-002: PUT on a collection is 405 with an Allow header listing the documented methods', () => {
    const put = (status: number, allow?: string) => exchange('PUT', `${BASE}/customers`, status, { title: 'x' }, { responseHeaders: { 'content-type': 'application/problem+json', ...(allow !== undefined ? { allow } : {}) } });
    const id = 'FSAPI-HTTP-002 customers put-customers';
    expect(statusOf(id, [put(405, 'GET, POST')])).toBe('passed');
    expect(outcome(id, [put(405)]).message).toMatch(/without an Allow header/);
    expect(statusOf(id, [put(405, ' ')])).not.toBe('passed');
    expect(outcome(id, [put(405, 'GET')]).message).toMatch(/lacks the documented POST/);
    expect(statusOf(id, [put(404, 'GET, POST')])).not.toBe('passed');
  });

  it('GRP-001: a read of the group answers 2xx', () => {
    const list = (status: number) => call('listCustomers', 'GET', '/customers', status, { data: [], has_more: false, next_cursor: null });
    expect(statusOf('FSAPI-GRP-001 listCustomers group-read', [list(200)])).toBe('passed');
    expect(statusOf('FSAPI-GRP-001 listCustomers group-read', [list(404)])).toBe('failed');
  });

  describe('PAGE-001: a walk of limit=1', () => {
    const id = 'FSAPI-PAGE-001 listCustomers walk-limit-1';
    const page = (ids: string[], more: boolean, next: string | null, cursor?: string) =>
      call('listCustomers', 'GET', `/customers?limit=1${cursor ? `&cursor=${cursor}` : ''}`, 200, { data: ids.map((i) => ({ id: i })), has_more: more, next_cursor: next });

    it('passes pages of one that advance the cursor and end with has_more false', () => {
      expect(statusOf(id, [page(['cus_1'], true, 'c1'), page(['cus_2'], true, 'c2', 'c1'), page(['cus_3'], false, null, 'c2')])).toBe('passed');
    });

    it('fails a repeated object, a page over the limit, a cursor handed out twice, a last page with a cursor', () => {
      expect(outcome(id, [page(['cus_1'], true, 'c1'), page(['cus_1'], false, null, 'c1')]).message).toMatch(/appears on page 1 and again on page 2/);
      expect(outcome(id, [page(['cus_1', 'cus_2'], false, null)]).message).toMatch(/page 1 of limit=1 holds 2 items/);
      expect(outcome(id, [page(['cus_1'], true, 'c1'), page(['cus_2'], true, 'c1', 'c1'), page(['cus_3'], false, null, 'c1')]).message).toMatch(/hands out next_cursor c1 again/);
      expect(outcome(id, [page(['cus_1'], true, 'c1'), page(['cus_2'], false, 'c2', 'c1')]).message).toMatch(/last page \(2\) still hands out next_cursor c2/);
      expect(outcome(id, [page(['cus_1'], true, ''), page(['cus_2'], false, null)]).message).toMatch(/has_more true without a next_cursor/);
      expect(outcome(id, [page(['cus_1'], true, 'c1'), page([], false, null, 'c1')]).message).toMatch(/page 2 is empty/);
    });

    it('skips a list of one object: nothing to paginate', () => {
      expect(statusOf(id, [page(['cus_1'], false, null)])).toBe('skipped');
    });
  });
});

describe('contract (valid requests) and observed traffic', () => {
  it('CONTRACT-004: a valid request is accepted with a documented 2xx only', () => {
    expect(statusOf('FSAPI-CONTRACT-004 createCustomer valid-request', [createCustomer(201, {})])).toBe('passed');
    expect(statusOf('FSAPI-CONTRACT-004 createCustomer valid-request', [createCustomer(200, {})])).toBe('failed');
    expect(statusOf('FSAPI-CONTRACT-004 createCustomer valid-request', [createCustomer(422, {})])).toBe('failed');
  });

  const op = () => catalogue.spec.operations.find((o) => o.operationId === 'getCustomer')!;
  const traffic = (requirement: string, xs: RecordedExchange[], probe?: 'unknown-id') => judgeTraffic(catalogue.spec, op(), requirement, answers(...xs).map((res) => ({ res, probe })));
  const problem = (status: number, body: unknown) => getCustomer(status, body, { responseHeaders: { 'content-type': 'application/problem+json' } });

  it('CONTRACT-001: a body that breaks the schema is a finding; CONTRACT-002: an undocumented status is', () => {
    const broken = traffic('FSAPI-CONTRACT-001', [getCustomer(200, { id: 42 })]);
    expect(broken.applicable).toBe(1);
    expect(broken.findings[0]?.message).toMatch(/200 body breaks the getCustomer schema/);
    expect(traffic('FSAPI-CONTRACT-002', [getCustomer(418, { title: 'x' })]).findings[0]?.message).toMatch(/status 418 is not documented for getCustomer/);
    expect(traffic('FSAPI-CONTRACT-002', [problem(404, { title: 'Not found', status: 404 })]).findings).toEqual([]);
  });

  it("CONTRACT-101: a probe's undocumented 4xx is the document's gap, not CONTRACT-002", () => {
    const probed = traffic('FSAPI-CONTRACT-101', [getCustomer(418, { title: 'x' })], 'unknown-id');
    expect(probed.findings[0]?.message).toMatch(/answers an id that exists nowhere with 418/);
    expect(traffic('FSAPI-CONTRACT-002', [getCustomer(418, { title: 'x' })], 'unknown-id').applicable).toBe(0);
  });

  it('ERR-001 and -002: an error is a problem document and reveals no internals; MEDIA-001: a body is JSON', () => {
    expect(traffic('FSAPI-ERR-001', [problem(404, { title: 'Not found', status: 404 })]).findings).toEqual([]);
    expect(traffic('FSAPI-ERR-001', [getCustomer(404, { title: 'Not found' })]).findings[0]?.message).toMatch(/not application\/problem\+json/);
    expect(traffic('FSAPI-ERR-001', [problem(404, { title: 'Not found', status: 400 })]).findings[0]?.message).toMatch(/member status is 400, the HTTP status is 404/);
    expect(traffic('FSAPI-ERR-002', [problem(500, { title: 'x', detail: 'TypeError\n    at handler (/app/src/server.js:10:5)' })]).findings[0]?.message).toMatch(/reveals a/);
    expect(traffic('FSAPI-MEDIA-001', [getCustomer(200, 'plain words', { responseHeaders: { 'content-type': 'text/plain' } })]).findings[0]?.message).toMatch(/labelled text\/plain, not JSON/);
    expect(traffic('FSAPI-MEDIA-001', [getCustomer(200, '{"id": ', {})]).findings[0]?.message).toMatch(/labelled JSON but does not parse/);
  });
});
