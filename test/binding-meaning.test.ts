/**
 * bind pairs by meaning (issue 31 item 5): the effect of a money resource, versioned paths, wrapped lists, a user
 * create that makes users the API's customers. Each case is a small document whose pairing the rule alone decides.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { inferBinding } from '../src/binding/infer.js';
import { loadCatalogue } from '../src/binding/catalogue-in-use.js';
import type { SpecDocument } from '../src/catalogue/index.js';

const dir = mkdtempSync(join(tmpdir(), 'fsapi-binding-meaning-'));
let reference: SpecDocument;
beforeAll(async () => {
  reference = (await loadCatalogue()).spec;
});

let n = 0;
const doc = async (paths: Record<string, Record<string, unknown>>): Promise<SpecDocument> => {
  const p = join(dir, `doc-${n++}.json`);
  writeFileSync(p, JSON.stringify({ openapi: '3.1.0', info: { title: 'meaning', version: '1' }, paths }));
  return (await loadCatalogue({ specPath: p })).spec;
};
const obj = (properties: Record<string, unknown>) => ({ type: 'object', properties });
const answer = (schema: unknown) => ({ '200': { description: 'ok', content: { 'application/json': { schema } } } });
const post = (operationId: string, request: Record<string, unknown>, tags: string[] = []) => ({
  operationId,
  tags,
  requestBody: { content: { 'application/json': { schema: obj(request) } } },
  responses: answer(obj({ id: { type: 'string' }, ...request })),
});
const get = (operationId: string, schema: unknown, params: string[] = [], query: string[] = []) => ({
  operationId,
  parameters: [...params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })), ...query.map((name) => ({ name, in: 'query', schema: { type: 'string' } }))],
  responses: answer(schema),
});
const s = { type: 'string' };
const played = (spec: SpecDocument, ref: string) => inferBinding(spec, reference, 'meaning').binding.operations?.[ref];

describe('bind pairs by meaning', () => {
  it('does not take a payment against an invoice for a transfer, whatever its name and path', async () => {
    const spec = await doc({ '/payments': { post: post('createPayment', { invoice_id: s, amount: s, currency: s }, ['Payments']) } });
    expect(played(spec, 'createTransfer')).toBeUndefined();
    // The same operation without the invoice (its effect unsaid) is still proposed: the invoice is what rules it out.
    const unsaid = await doc({ '/payments': { post: post('createPayment', { amount: s, currency: s, description: s }, ['Payments']) } });
    expect(inferBinding(unsaid, reference, 'meaning', { threshold: 0 }).binding.operations?.['createTransfer']?.operation).toBe('createPayment');
  });

  it('pairs the transfer initiation, which moves money between two accounts, over a name match that moves none', async () => {
    const spec = await doc({
      '/v2/payments': { post: post('CreatePayment', { buyer_email_address: s, source_id: s, amount: s, currency: s }, ['Payments']) },
      '/transfer/create': { post: post('transferCreate', { origination_account_id: s, account_id: s, amount: s, currency: s }) },
    });
    const entry = played(spec, 'createTransfer');
    expect(entry?.operation).toBe('transferCreate');
    expect(entry?.reason).toContain('the same effect');
  });

  it('reads /v2/customers as /customers, and says so', async () => {
    const customer = obj({ id: s, first_name: s, last_name: s, email: s });
    const spec = await doc({ '/v2/customers/{customer_id}': { get: get('RetrieveCustomer', customer, ['customer_id']) } });
    const entry = played(spec, 'getCustomer');
    expect(entry?.operation).toBe('RetrieveCustomer');
    expect(entry?.reason).toContain('same path under a version prefix');
  });

  it('finds a list under HAL _embedded', async () => {
    const customer = obj({ id: s, first_name: s, last_name: s, email: s });
    const spec = await doc({ '/customers': { get: get('listCustomers', obj({ _links: obj({}), _embedded: obj({ customers: { type: 'array', items: customer } }), total: { type: 'integer' } }), [], ['limit', 'offset']) } });
    expect(played(spec, 'listCustomers')?.list?.items).toBe('_embedded.customers');
  });

  it('finds a list in a cursor wrapper (cursor.data)', async () => {
    const customer = obj({ id: s, first_name: s, last_name: s, email: s });
    const spec = await doc({ '/customers': { get: get('listCustomers', obj({ cursor: obj({ data: { type: 'array', items: customer }, next: s }) }), [], ['limit', 'cursor']) } });
    const list = played(spec, 'listCustomers')?.list;
    expect(list?.items).toBe('cursor.data');
    expect(list?.next_cursor).toBe('cursor.next');
  });

  it('takes createUser under a version prefix as the document writing its users: its user reads play the customer reads', async () => {
    const user = obj({ id: s, first_name: s, last_name: s, email: s });
    const reads = { '/v2/users/{user_id}': { get: get('getUser', user, ['user_id']) } };
    const withCreate = await doc({ ...reads, '/v2/users': { post: post('createUser', { first_name: s, last_name: s, email: s }) } });
    const readOnly = await doc(reads);
    const at = (spec: SpecDocument) => inferBinding(spec, reference, 'meaning', { threshold: 0 }).binding.operations?.['getCustomer'];
    expect(at(withCreate)?.operation).toBe('getUser');
    expect(at(withCreate)?.reason).not.toContain('writes none');
    expect(at(readOnly)?.reason).toContain('writes none');
    expect(at(withCreate)!.confidence!).toBeGreaterThan(at(readOnly)!.confidence!);
  });

  it('gives a true reason: /payments matches /transfers only by a synonym', async () => {
    const spec = await doc({ '/payments': { post: post('createPayment', { destination: s, amount: s, currency: s }, ['Payments']) } });
    const reason = played(spec, 'createTransfer')?.reason ?? '';
    expect(reason).not.toContain('same path once parameter names are set aside');
    expect(reason).toContain('synonyms folded (/payments for /transfers)');
  });
});
