/** Accounts: open (counted by customer and nickname), list, read. */
import { accountCreate } from '../../fixtures/factories.js';
import type { OperationDriver } from './types.js';
import { bodyOf, idOf, READ_ONLY_TIMESTAMP, readOnlyFields, varyMetadata } from './shared.js';

export const accountDrivers: OperationDriver[] = [
  {
    operationId: 'createAccount',
    kind: 'create',
    async build(scope, { fresh }) {
      const c = fresh ? await scope.world.newCustomer() : await scope.world.approvedCustomer();
      return { body: accountCreate(scope.ctx.faker, scope.ctx.config.label, idOf(c), 'USD') };
    },
    /** Accounts listed for the customer with the request's nickname (it ends with a token unique to the request). */
    effects(parts) {
      const b = bodyOf(parts);
      const cid = String(b['customer_id']);
      return {
        kind: 'list',
        list: 'listAccounts',
        query: { customer_id: cid },
        what: `list the accounts of ${cid}`,
        count: (items) => items.filter((a) => a['customer_id'] === cid && a['nickname'] === b['nickname']).length,
      };
    },
    vary: varyMetadata,
    readOnly: readOnlyFields({
      id: 'acc_FsapiReadOnly0001',
      balance: '1000000.00',
      available_balance: '1000000.00',
      account_number: '9999999999',
      created_at: READ_ONLY_TIMESTAMP,
      updated_at: READ_ONLY_TIMESTAMP,
    }),
  },
  {
    operationId: 'listAccounts',
    kind: 'read',
    build: async () => ({}),
  },
  {
    operationId: 'getAccount',
    kind: 'read',
    async build(scope, { fresh }) {
      const a = fresh ? await scope.world.newAccount() : await scope.world.account();
      return { pathParams: { account_id: idOf(a) } };
    },
  },
];
