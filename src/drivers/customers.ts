/** Customers: create (counted by e-mail), list, read, update (visible on read). */
import { customerCreate, otherPhone, token } from '../../fixtures/factories.js';
import type { OperationDriver } from './types.js';
import { bodyOf, idOf, pathParam, READ_ONLY_TIMESTAMP, readOk, readOnlyFields, sameValue, varyMetadata } from './shared.js';

export const customerDrivers: OperationDriver[] = [
  {
    operationId: 'createCustomer',
    kind: 'create',
    async build(scope) {
      const { ctx } = scope;
      return { body: customerCreate(ctx.faker, ctx.config.label, `${ctx.config.runId}${token(ctx.faker)}`) };
    },
    effects(parts) {
      const email = String(bodyOf(parts)['email']).toLowerCase();
      return {
        kind: 'list',
        list: 'listCustomers',
        query: { email },
        what: `list the customers with e-mail ${email}`,
        count: (items) => items.filter((c) => String(c['email']).toLowerCase() === email).length,
      };
    },
    // Same e-mail (the scope), another middle name.
    vary: (parts) => {
      const v = varyMetadata(parts);
      return { ...v, body: { ...bodyOf(v), middle_name: 'Varied' } };
    },
    readOnly: readOnlyFields({
      id: 'cus_FsapiReadOnly0001',
      kyc_status: 'approved',
      created_at: READ_ONLY_TIMESTAMP,
      updated_at: READ_ONLY_TIMESTAMP,
    }),
  },
  {
    operationId: 'listCustomers',
    kind: 'read',
    build: async () => ({}),
  },
  {
    operationId: 'getCustomer',
    kind: 'read',
    async build(scope, { fresh }) {
      const c = fresh ? await scope.world.newCustomer() : await scope.world.customer();
      return { pathParams: { customer_id: idOf(c) } };
    },
  },
  {
    operationId: 'updateCustomer',
    kind: 'action',
    async build(scope, { fresh }) {
      const c = fresh ? await scope.world.newCustomer() : await scope.world.customer();
      return { pathParams: { customer_id: idOf(c) }, body: { phone: otherPhone(scope.ctx.faker) } };
    },
    /** 1 when every field the request sets reads back with its value. */
    effects(parts) {
      const id = pathParam(parts, 'customer_id');
      return {
        kind: 'read',
        read: 'getCustomer',
        pathParams: { customer_id: id },
        count: (res) => {
          const c = readOk(res, `read customer ${id}`);
          return Object.entries(bodyOf(parts)).every(([k, v]) => sameValue(c[k], v)) ? 1 : 0;
        },
      };
    },
    vary: (parts, scope) => ({ ...parts, body: { ...bodyOf(parts), phone: otherPhone(scope.ctx.faker) } }),
  },
];
