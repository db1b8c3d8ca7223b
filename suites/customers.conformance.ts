/** Customers: create and manage customer profiles (seed: POST /customers with the customer fields and nested address). */
import { customerCreate, token } from '../fixtures/factories.js';
import { check, describeRequest, fail, readId, STATUS, summariseBody } from '../src/harness/assert.js';
import type { CheckContext, CheckDef } from '../src/harness/check.js';
import type { HttpResponse } from '../src/http/client.js';
import { defineSuite } from '../src/suite/suite.js';
import { at, findInList, idOf, jsonOf, listAll, readBack, withValue, type Json } from '../src/world/flow-support.js';

const SEED_FIELDS = ['first_name', 'middle_name', 'last_name', 'email', 'phone', 'type', 'gender', 'date_of_birth'];
const ADDRESS_FIELDS = ['address_line1', 'city', 'country', 'postal_code', 'state'];

/** A valid customer with every seed field, unique to this call. */
function newBody(ctx: CheckContext): Json {
  return customerCreate(ctx.faker, ctx.config.label, `${ctx.config.runId}${token(ctx.faker)}`);
}

const base = { family: 'flow', group: 'customers', operation: 'createCustomer', writes: true } as const;

/**
 * The customer as stored: read back by id when the spec has the read and it answers, else the create answer
 * (whether a created customer can be read back at all is FSAPI-CUS-001's question, not the format checks').
 */
async function stored(ctx: CheckContext, created: Json): Promise<{ customer: Json; where: string }> {
  if (ctx.spec.byId.has('getCustomer') && readId(created) !== undefined) {
    const res = await ctx.call('getCustomer', { pathParams: { customer_id: idOf(created) } });
    if (res.status === 200 && res.json && typeof res.json === 'object') return { customer: res.json as Json, where: `on GET ${idOf(created)}` };
    ctx.observe(`customer ${idOf(created)} could not be read back (${res.status}); judged on the create answer`);
  }
  return { customer: created, where: 'in the create answer' };
}

/**
 * Creates a customer; when type individual is refused, once more as business, so a format check judges the
 * format and not the type (FSAPI-CUS-006 judges the type).
 */
async function createWithFallback(ctx: CheckContext, body: Json): Promise<HttpResponse> {
  const res = await ctx.call('createCustomer', { body });
  if (res.status < 400 || res.status >= 500 || body['type'] !== 'individual') return res;
  const retry = await ctx.call('createCustomer', { body: { ...body, type: 'business' } });
  if (STATUS.is2xx(retry.status)) ctx.observe(`type individual was refused (${res.status}); judged on a customer of type business`);
  return STATUS.is2xx(retry.status) ? retry : res;
}

/** A value in the seed's form is accepted and returned unchanged, on the create answer and on reading back. */
function acceptedUnchanged(requirement: string, variant: string, title: string, path: string, value: string, alsoSet: Record<string, string> = {}): CheckDef {
  return {
    ...base,
    requirement,
    variant,
    title,
    async run(ctx) {
      let body = withValue(newBody(ctx), path, value);
      for (const [p, v] of Object.entries(alsoSet)) body = withValue(body, p, v);
      const created = jsonOf(await createWithFallback(ctx, body), STATUS.is2xx, `status for ${path} ${JSON.stringify(value)}`);
      check(at(created, path) === value, `${path} ${JSON.stringify(value)} was returned as ${JSON.stringify(at(created, path))} by the create answer`);
      const { customer, where } = await stored(ctx, created);
      check(at(customer, path) === value, `${path} ${JSON.stringify(value)} reads ${JSON.stringify(at(customer, path))} ${where}`);
    },
  };
}

/**
 * A value not in the seed's form is not stored: refused, or accepted without keeping it. Kept in the broken form
 * or reinterpreted into another value (a normalised phone, a rolled-over date) is storing it: the seed fixes the
 * form, so the target may not guess what an ill-formed value meant.
 */
function notStored(requirement: string, variant: string, title: string, path: string, broken: string, alsoSet: Record<string, string> = {}): CheckDef {
  return {
    ...base,
    requirement,
    variant,
    title,
    async run(ctx) {
      let body = withValue(newBody(ctx), path, broken);
      for (const [p, v] of Object.entries(alsoSet)) body = withValue(body, p, v);
      const res = await createWithFallback(ctx, body);
      if (STATUS.is2xx(res.status)) {
        const created = jsonOf(res);
        const { customer, where } = await stored(ctx, created);
        const kept = at(customer, path);
        if (kept === undefined || kept === null) {
          ctx.observe(`${path} ${JSON.stringify(broken)} was accepted (${res.status}) but not stored (${where} it is ${kept === null ? 'null' : 'absent'})`);
          return;
        }
        fail(
          kept === broken
            ? `${path} ${JSON.stringify(broken)} was accepted (${res.status}) and stored in that form (${where})`
            : `${path} ${JSON.stringify(broken)} was accepted (${res.status}) and stored reinterpreted as ${JSON.stringify(kept)} (${where}); a value not in the seed's form must be refused`,
        );
      }
      check(res.status < 500, `${describeRequest(res)} with ${path} ${JSON.stringify(broken)} answered ${res.status}${summariseBody(res)}: a server error, not a refusal`);
      ctx.observe(`refused with ${res.status}`);
      if (ctx.spec.byId.has('listCustomers')) {
        const email = String(body['email']);
        const found = (await listAll(ctx, 'listCustomers', { query: { email } })).filter((c) => String(c['email']).toLowerCase() === email.toLowerCase());
        check(found.length === 0, `${path} ${JSON.stringify(broken)} was refused with ${res.status}, yet customer ${found[0] ? idOf(found[0]) : ''} with its e-mail exists`);
      }
    },
  };
}

export const flows: CheckDef[] = [
  {
    ...base,
    requirement: 'FSAPI-CUS-001',
    variant: 'all-seed-fields',
    title: 'a customer with every seed field and the nested address is created, then found by id and by e-mail',
    uses: ['getCustomer', 'listCustomers'],
    async run(ctx) {
      const body = newBody(ctx);
      const created = jsonOf(await ctx.call('createCustomer', { body }), STATUS.is2xx, 'status (a 2xx: created)');
      check(typeof created['id'] === 'string' && created['id'] !== '', `the created customer carries no id: ${JSON.stringify(created).slice(0, 160)}`);
      const id = idOf(created);
      const res = await readBack(ctx, 'getCustomer', { pathParams: { customer_id: id } });
      const customer = jsonOf(res, STATUS.is2xx, `status of GET ${id} (the customer just created, read with a valid key)`);
      const address = (body['address'] ?? {}) as Json;
      const differ = [
        ...SEED_FIELDS.filter((f) => customer[f] !== body[f]).map((f) => `${f} ${JSON.stringify(customer[f])} (sent ${JSON.stringify(body[f])})`),
        ...ADDRESS_FIELDS.filter((f) => at(customer, `address.${f}`) !== address[f]).map(
          (f) => `address.${f} ${JSON.stringify(at(customer, `address.${f}`))} (sent ${JSON.stringify(address[f])})`,
        ),
      ];
      check(differ.length === 0, `customer ${id} reads back with other values: ${differ.join('; ')}`);
      const email = String(body['email']);
      const { item } = await findInList(ctx, 'listCustomers', { query: { email } }, (c) => c['id'] === id);
      check(item !== undefined, `customer ${id} is not listed by GET /customers?email=${email}`);
    },
  },

  acceptedUnchanged('FSAPI-CUS-002', 'date-valid', 'date_of_birth in YYYY-MM-DD is accepted and returned unchanged', 'date_of_birth', '1988-02-29'),
  notStored('FSAPI-CUS-002', 'date-dd-mm-yyyy', 'date_of_birth in DD/MM/YYYY is not stored', 'date_of_birth', '10/12/1990'),
  notStored('FSAPI-CUS-002', 'date-impossible', 'an impossible date_of_birth (1990-02-30) is not stored', 'date_of_birth', '1990-02-30'),

  acceptedUnchanged('FSAPI-CUS-003', 'phone-valid', 'a phone with the leading plus sign is accepted and returned unchanged', 'phone', '+442079460958'),
  notStored('FSAPI-CUS-003', 'phone-no-plus', 'a phone without the leading plus sign is not stored', 'phone', '14155550123'),

  acceptedUnchanged('FSAPI-CUS-004', 'country-valid', 'a two-letter address.country is accepted and returned unchanged', 'address.country', 'GB', { 'address.state': 'GB-LND' }),
  notStored('FSAPI-CUS-004', 'country-three-letter', 'a three-letter address.country (USA) is not stored', 'address.country', 'USA', { 'address.state': 'US-CA' }),
  notStored('FSAPI-CUS-004', 'country-lower-case', 'a lower-case address.country (us) is not stored', 'address.country', 'us', { 'address.state': 'US-CA' }),

  acceptedUnchanged('FSAPI-CUS-005', 'state-valid', 'address.state US-CA is accepted and returned unchanged', 'address.state', 'US-CA', { 'address.country': 'US' }),
  notStored('FSAPI-CUS-005', 'state-no-country', 'address.state without the country part (CA) is not stored', 'address.state', 'CA', { 'address.country': 'US' }),

  {
    ...base,
    requirement: 'FSAPI-CUS-006',
    variant: 'individual',
    title: 'a customer of type individual is created',
    async run(ctx) {
      const body = { ...newBody(ctx), type: 'individual' };
      const created = jsonOf(await ctx.call('createCustomer', { body }), STATUS.is2xx, 'status for type individual');
      check(created['type'] === 'individual', `the customer was created with type ${JSON.stringify(created['type'])}, not individual`);
    },
  },
];

await defineSuite('customers', flows);
