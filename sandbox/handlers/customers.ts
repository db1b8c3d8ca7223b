/** Customers: create, read, list, update. Every customer gets its KYC verification (not_started) at creation. */
import type { FaultSet } from '../faults.js';
import { ApiError, notFound, validationError } from '../problem.js';
import { newId, type Address, type CustomerRec, type KycRec } from '../store.js';
import { applyReadOnly, created, emit, find, listOf, metadataOf, now, ok, optionalParam, param, type Context, type Handlers } from './context.js';
import { isObj } from '../../src/json.js';
import type { Schema } from '../wire.js';

export type CustomerView = Schema<'Customer'>;
type CustomerCreate = Schema<'CustomerCreate'>;
type CustomerUpdate = Schema<'CustomerUpdate'>;

/** Stored for a customer created without email under the validation-skip-required fault. */
const PLACEHOLDER_EMAIL = 'missing-email@example.invalid';

export function customerView(c: CustomerRec, faults: FaultSet): CustomerView {
  const view: CustomerView = {
    id: c.id,
    object: 'customer',
    first_name: c.first_name,
    middle_name: c.middle_name,
    last_name: c.last_name,
    email: c.email,
    phone: c.phone,
    type: c.type,
    gender: c.gender,
    date_of_birth: c.date_of_birth,
    address: { ...c.address },
    kyc_status: c.kyc_status,
    metadata: { ...c.metadata },
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
  // The fault drops a member the contract requires.
  if (faults.has('schema-drop-field')) delete (view as Partial<CustomerView>).created_at;
  if (faults.has('schema-nested-drift')) {
    (view.address as unknown as Record<string, unknown>)['postal_code'] = Number.parseInt(c.address.postal_code, 10) || 0;
  }
  return view;
}

/** The subdivision code's country part must be the address's country (US-CA in US). */
function checkAddress(address: Address | undefined, pointer: string): void {
  if (address && !address.state.startsWith(`${address.country}-`)) {
    throw validationError([{ field: `${pointer}/state`, message: `must be a subdivision of ${address.country} (${address.country}-...)` }]);
  }
}

function readable(ctx: Context, id: string): CustomerRec {
  const c = find(ctx, (t) => t.customers, id, 'customer');
  // customer-not-stored: the write never reached the read side.
  if (c.unreadable) throw notFound('customer', id);
  return c;
}


/** Lenient date parsing (date-format-unchecked): YYYY-MM-DD with any day 1..31 (rolling over), DD/MM/YYYY, DD-MM-YYYY. */
function lenientDate(s: string): string | undefined {
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(s);
  const dmy = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(s);
  const [y, m, d] = iso ? [iso[1], iso[2], iso[3]] : dmy ? [dmy[3], dmy[2], dmy[1]] : [];
  if (!y || !m || !d || +m < 1 || +m > 12 || +d < 1 || +d > 31) return undefined;
  return new Date(Date.UTC(+y, +m - 1, +d)).toISOString().slice(0, 10);
}

export const customers: Handlers = {
  createCustomer: {
    prepare(body, faults) {
      if (!isObj(body)) return body;
      const b = structuredClone(body);
      if (faults.has('validation-skip-required') && b['email'] === undefined) b['email'] = PLACEHOLDER_EMAIL;
      if (faults.has('date-format-unchecked') && typeof b['date_of_birth'] === 'string') {
        b['date_of_birth'] = lenientDate(b['date_of_birth']) ?? b['date_of_birth'];
      }
      if (faults.has('phone-format-unchecked') && typeof b['phone'] === 'string') {
        const digits = b['phone'].replace(/[\s().-]/g, '');
        if (/^[1-9][0-9]{6,14}$/.test(digits)) b['phone'] = `+${digits}`;
      }
      const address = b['address'];
      if (isObj(address)) {
        if (faults.has('country-format-unchecked') && typeof address['country'] === 'string' && /^[A-Za-z]{2,3}$/.test(address['country'])) {
          address['country'] = address['country'].slice(0, 2).toUpperCase();
        }
        const country = address['country'];
        if (faults.has('state-format-unchecked') && typeof address['state'] === 'string' && typeof country === 'string' && /^[A-Za-z0-9]{1,3}$/.test(address['state'])) {
          address['state'] = `${country}-${address['state'].toUpperCase()}`;
        }
      }
      return b;
    },
    run(ctx) {
      const b = ctx.body as CustomerCreate;
      if (b.type === 'individual' && ctx.faults.has('customer-type-individual-refused')) {
        throw new ApiError(422, 'customer_type_not_supported', 'Customer type not supported', 'Only business customers can be created.', [
          { field: '/type', message: 'individual customers are not supported' },
        ]);
      }
      checkAddress(b.address, '/address');
      const at = now();
      const c: CustomerRec = applyReadOnly(ctx, {
        id: newId('cus'),
        seq: ctx.store.nextSeq(),
        first_name: b.first_name,
        last_name: b.last_name,
        middle_name: b.middle_name ?? null,
        email: b.email,
        phone: b.phone,
        type: b.type,
        gender: b.gender ?? null,
        date_of_birth: b.date_of_birth,
        address: { ...b.address },
        kyc_status: 'not_started',
        metadata: metadataOf(b),
        created_at: at,
        updated_at: at,
      });
      if (ctx.faults.has('customer-not-stored')) c.unreadable = true;
      const kyc: KycRec = {
        id: newId('kyc'),
        seq: ctx.store.nextSeq(),
        customer_id: c.id,
        status: 'not_started',
        id_type: null,
        id_number: null,
        document_ids: [],
        rejection_reason: null,
        history: [{ status: 'not_started', at }],
        submitted_at: null,
        decided_at: null,
        created_at: at,
        updated_at: at,
      };
      ctx.tenant.customers.set(c.id, c);
      ctx.tenant.kyc.set(c.id, kyc);
      emit(ctx, 'customer.created', customerView(c, new Set()));
      return created(ctx, customerView(c, ctx.faults), `/customers/${c.id}`);
    },
  },

  listCustomers: {
    run(ctx) {
      const email = optionalParam(ctx, 'email')?.toLowerCase();
      const match = (c: CustomerRec): boolean => !c.unreadable && (email === undefined || c.email.toLowerCase() === email);
      return ok(
        listOf(ctx, [...ctx.tenant.customers.values()].filter(match), (c) => customerView(c, ctx.faults), (t) => [...t.customers.values()].filter(match)),
      );
    },
  },

  getCustomer: {
    run: (ctx) => ok(customerView(readable(ctx, param(ctx, 'customer_id')), ctx.faults)),
  },

  updateCustomer: {
    run(ctx) {
      const c = find(ctx, (t) => t.customers, param(ctx, 'customer_id'), 'customer');
      const b = ctx.body as CustomerUpdate;
      checkAddress(b.address, '/address');
      if (b.middle_name !== undefined) c.middle_name = b.middle_name;
      if (b.email !== undefined) c.email = b.email;
      if (b.phone !== undefined) c.phone = b.phone;
      if (b.address !== undefined) c.address = { ...b.address };
      if (b.metadata !== undefined) c.metadata = { ...b.metadata };
      c.updated_at = now();
      emit(ctx, 'customer.updated', customerView(c, new Set()));
      return ok(customerView(c, ctx.faults));
    },
  },
};
