/** Customers: create and manage customer profiles (seed: POST /customers with the customer fields and nested address). */
import { customerCreate, token } from '../fixtures/factories.js';
import { check, describeRequest, fail, readId, STATUS, summariseBody } from '../src/harness/assert.js';
import type { CheckContext, CheckDef } from '../src/harness/check.js';
import type { HttpResponse } from '../src/http/client.js';
import { defineSuite } from '../src/vitest-suite/suite.js';
import { textFact } from '../src/harness/judge.js';
import { at, callCase, caseAnswer, caseAnswerIf, findInList, idOf, jsonOf, listAll, readBack, withValue, type JsonObject } from '../src/world/flow-support.js';

const SEED_FIELDS = ['first_name', 'middle_name', 'last_name', 'email', 'phone', 'type', 'gender', 'date_of_birth'];
const ADDRESS_FIELDS = ['address_line1', 'city', 'country', 'postal_code', 'state'];

/** A valid customer with every seed field, unique to this call. */
function newBody(ctx: CheckContext): JsonObject {
  return customerCreate(ctx.faker, ctx.config.label, `${ctx.config.runId}${token(ctx.faker)}`);
}

const base = { family: 'flow', group: 'customers', operation: 'createCustomer', writes: true } as const;

/** The cases a format check records with its exchanges, for its judge: the create, its retry as business, the read. */
const CREATE = 'create';
const AS_BUSINESS = 'create-as-business';
const READ_BACK = 'read-back';
/** The fact holding the body a flow sent, as it built it. */
const SENT = 'sent_body';

/**
 * Reads the customer back by id when the spec has the read (whether a created customer can be read back at all is
 * FSAPI-CUS-001's question, not the format checks': one that does not read back is judged on the create answer).
 */
async function readStored(ctx: CheckContext, res: HttpResponse): Promise<HttpResponse[]> {
  const created = res.json as JsonObject | undefined;
  if (!STATUS.is2xx(res.status) || !ctx.spec.byId.has('getCustomer') || readId(created) === undefined) return [];
  const back = await callCase(ctx, READ_BACK, 'getCustomer', { pathParams: { customer_id: idOf(created!) } });
  if (back.status !== 200) ctx.observe(`customer ${idOf(created!)} could not be read back (${back.status}); judged on the create answer`);
  return [back];
}

/** The customer as stored, from the recorded answers: read back by id when that answered, else the create answer. */
function stored(answers: readonly HttpResponse[], created: JsonObject): { customer: JsonObject; where: string } {
  const back = caseAnswerIf(answers, READ_BACK);
  if (back?.status === 200 && back.json && typeof back.json === 'object') return { customer: back.json as JsonObject, where: `on GET ${idOf(created)}` };
  return { customer: created, where: 'in the create answer' };
}

/**
 * Creates a customer; when type individual is refused, once more as business, so a format check judges the
 * format and not the type (FSAPI-CUS-006 judges the type).
 */
async function createWithFallback(ctx: CheckContext, body: JsonObject): Promise<HttpResponse> {
  const res = await callCase(ctx, CREATE, 'createCustomer', { body });
  if (res.status < 400 || res.status >= 500 || body['type'] !== 'individual') return res;
  const retry = await callCase(ctx, AS_BUSINESS, 'createCustomer', { body: { ...body, type: 'business' } });
  if (STATUS.is2xx(retry.status)) ctx.observe(`type individual was refused (${res.status}); judged on a customer of type business`);
  return STATUS.is2xx(retry.status) ? retry : res;
}

/** The create answer createWithFallback settled on, from the recorded answers. */
function settledCreate(answers: readonly HttpResponse[]): HttpResponse {
  const first = caseAnswer(answers, CREATE);
  const retry = caseAnswerIf(answers, AS_BUSINESS);
  return retry && STATUS.is2xx(retry.status) ? retry : first;
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
      await readStored(ctx, await createWithFallback(ctx, body));
    },
    judge(answers) {
      const created = jsonOf(settledCreate(answers), STATUS.is2xx, `status for ${path} ${JSON.stringify(value)}`);
      check(at(created, path) === value, `${path} ${JSON.stringify(value)} was returned as ${JSON.stringify(at(created, path))} by the create answer`);
      const { customer, where } = stored(answers, created);
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
    // The judge covers the answers; that a refused body created no customer (listed by its e-mail) is the run's.
    comparesState: true,
    judge(answers) {
      const res = settledCreate(answers);
      if (STATUS.is2xx(res.status)) {
        const created = jsonOf(res);
        const { customer, where } = stored(answers, created);
        const kept = at(customer, path);
        if (kept === undefined || kept === null) return;
        fail(
          kept === broken
            ? `${path} ${JSON.stringify(broken)} was accepted (${res.status}) and stored in that form (${where})`
            : `${path} ${JSON.stringify(broken)} was accepted (${res.status}) and stored reinterpreted as ${JSON.stringify(kept)} (${where}); a value not in the seed's form must be refused`,
        );
      }
      check(res.status < 500, `${describeRequest(res)} with ${path} ${JSON.stringify(broken)} answered ${res.status}${summariseBody(res)}: a server error, not a refusal`);
    },
    async run(ctx) {
      let body = withValue(newBody(ctx), path, broken);
      for (const [p, v] of Object.entries(alsoSet)) body = withValue(body, p, v);
      const res = await createWithFallback(ctx, body);
      if (STATUS.is2xx(res.status)) {
        const read = await readStored(ctx, res);
        if (!res.json || typeof res.json !== 'object') return;
        const { customer, where } = stored(read, res.json as JsonObject);
        const kept = at(customer, path);
        if (kept === undefined || kept === null) ctx.observe(`${path} ${JSON.stringify(broken)} was accepted (${res.status}) but not stored (${where} it is ${kept === null ? 'null' : 'absent'})`);
        return;
      }
      // A server error is the judge's to report; a refusal is then looked for in the list.
      if (res.status >= 500) return;
      ctx.observe(`refused with ${res.status}`);
      if (ctx.spec.byId.has('listCustomers')) {
        const email = String(body['email']);
        const found = (await listAll(ctx, 'listCustomers', { query: { email } })).filter((c) => String(c['email']).toLowerCase() === email.toLowerCase());
        check(found.length === 0, `${path} ${JSON.stringify(broken)} was refused with ${res.status}, yet customer ${found[0] ? idOf(found[0]) : ''} with its e-mail exists`);
      }
    },
  };
}

/** The seed fields and address members a customer reads back with other values than sent (none: as sent). */
function sameAsSent(body: JsonObject, customer: JsonObject): string[] {
  const address = (body['address'] ?? {}) as JsonObject;
  return [
    ...SEED_FIELDS.filter((f) => customer[f] !== body[f]).map((f) => `${f} ${JSON.stringify(customer[f])} (sent ${JSON.stringify(body[f])})`),
    ...ADDRESS_FIELDS.filter((f) => at(customer, `address.${f}`) !== address[f]).map((f) => `address.${f} ${JSON.stringify(at(customer, `address.${f}`))} (sent ${JSON.stringify(address[f])})`),
  ];
}

export const flows: CheckDef[] = [
  {
    ...base,
    requirement: 'FSAPI-CUS-001',
    variant: 'all-seed-fields',
    title: 'a customer with every seed field and the nested address is created, then found by id and by e-mail',
    uses: ['getCustomer', 'listCustomers'],
    // The judge covers the create and read answers; the list walk that finds the customer by e-mail is the run's.
    comparesState: true,
    async run(ctx) {
      const body = newBody(ctx);
      ctx.fact(SENT, JSON.stringify(body));
      // The seed's own body, flat and in the seed's names, whatever the binding renames or wraps: a vendor whose
      // document refuses it fails here, once, under the document's declaration (src/results/document-conflicts.ts).
      const res = await callCase(ctx, CREATE, 'createCustomer', { body }, { seedForm: true });
      const id = STATUS.is2xx(res.status) ? readId(res.json) : undefined;
      if (id === undefined) return;
      const back = await readBack(ctx, 'getCustomer', { pathParams: { customer_id: id } });
      back.exchange.case = READ_BACK;
      // The answers first (the judge), then the list: a failure of the answers is reported as the judge's.
      if (!STATUS.is2xx(back.status) || !back.json || typeof back.json !== 'object' || sameAsSent(body, back.json as JsonObject).length) return;
      const email = String(body['email']);
      const { item } = await findInList(ctx, 'listCustomers', { query: { email } }, (c) => c['id'] === id);
      check(item !== undefined, `customer ${id} is not listed by GET /customers?email=${email}`);
    },
    judge(answers, facts) {
      // The body as the flow built it, in the reference's terms (the recorded request is in the document's).
      const body = JSON.parse(textFact(facts, SENT)) as JsonObject;
      const created = jsonOf(caseAnswer(answers, CREATE), STATUS.is2xx, 'status (a 2xx: created)');
      check(typeof created['id'] === 'string' && created['id'] !== '', `the created customer carries no id: ${JSON.stringify(created).slice(0, 160)}`);
      const id = idOf(created);
      const customer = jsonOf(caseAnswer(answers, READ_BACK), STATUS.is2xx, `status of GET ${id} (the customer just created, read with a valid key)`);
      const differ = sameAsSent(body, customer);
      check(differ.length === 0, `customer ${id} reads back with other values: ${differ.join('; ')}`);
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
      await callCase(ctx, CREATE, 'createCustomer', { body: { ...newBody(ctx), type: 'individual' } });
    },
    judge(answers) {
      const created = jsonOf(settledCreate(answers), STATUS.is2xx, 'status for type individual');
      check(created['type'] === 'individual', `the customer was created with type ${JSON.stringify(created['type'])}, not individual`);
    },
  },
];

await defineSuite('customers', flows);
