/** Transactions: history list and one entry. */
import type { OperationDriver } from './types.js';
import { idOf } from './shared.js';

export const transactionDrivers: OperationDriver[] = [
  {
    operationId: 'listTransactions',
    kind: 'read',
    build: async () => ({}),
  },
  {
    operationId: 'getTransaction',
    kind: 'read',
    async build(scope) {
      return { pathParams: { transaction_id: idOf(await scope.world.transaction()) } };
    },
  },
];
