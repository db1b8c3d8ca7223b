/** Wallets: create (counted for the customer by label), list, read. */
import { token, walletCreate } from '../../fixtures/factories.js';
import type { OperationDriver } from './types.js';
import { bodyOf, idOf, READ_ONLY_TIMESTAMP, readOnlyFields, varyMetadata } from './shared.js';

export const walletDrivers: OperationDriver[] = [
  {
    operationId: 'createWallet',
    kind: 'create',
    async build(scope) {
      // The customer needs crypto_wallets active; the label (unique to the request) is the scope the effects count.
      const c = await scope.world.approvedCustomer();
      return { body: walletCreate(scope.ctx.config.label, idOf(c), 'USDC', 'polygon', `fsapi-conformance ${token(scope.ctx.faker)}`) };
    },
    effects(parts) {
      const b = bodyOf(parts);
      const cid = String(b['customer_id']);
      return { kind: 'list', list: 'listWallets', query: { customer_id: cid }, what: `list the wallets of ${cid}`, count: (items) => items.filter((w) => w['customer_id'] === cid && w['label'] === b['label']).length };
    },
    vary: varyMetadata,
    readOnly: readOnlyFields({
      id: 'wal_FsapiReadOnly0001',
      address: '0x000000000000000000000000000000000000dEaD',
      balance: '1000',
      created_at: READ_ONLY_TIMESTAMP,
      updated_at: READ_ONLY_TIMESTAMP,
    }),
  },
  {
    operationId: 'listWallets',
    kind: 'read',
    build: async () => ({}),
  },
  {
    operationId: 'getWallet',
    kind: 'read',
    async build(scope) {
      return { pathParams: { wallet_id: idOf(await scope.world.wallet()) } };
    },
  },
];
