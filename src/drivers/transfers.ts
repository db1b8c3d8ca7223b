/** Transfers: send (counted on the source account), list, read. */
import { amount, transferCreate } from '../../fixtures/factories.js';
import type { OperationDriver } from './types.js';
import { bodyOf, consumable, idOf, READ_ONLY_TIMESTAMP, readOnlyFields, varyMetadata } from './shared.js';

export const transferDrivers: OperationDriver[] = [
  {
    operationId: 'createTransfer',
    kind: 'create',
    async build(scope, { fresh }) {
      // A source of its own: transfers spend its balance, and the effects count what it sent.
      const { source, dest } = await consumable(scope, fresh, 'createTransfer', async () => ({
        source: await scope.world.fundedAccount('100.00'),
        dest: await scope.world.account(),
      }));
      return { body: transferCreate(scope.ctx.config.label, idOf(source), { type: 'account', account_id: idOf(dest) }, amount(scope.ctx.faker, 1, 5)) };
    },
    effects(parts) {
      const source = String(bodyOf(parts)['source_account_id']);
      return { kind: 'list', list: 'listTransfers', query: { account_id: source }, what: `list the transfers of ${source}`, count: (items) => items.filter((t) => t['source_account_id'] === source).length };
    },
    vary: varyMetadata,
    readOnly: readOnlyFields({
      id: 'tr_FsapiReadOnly0001',
      status: 'failed',
      failure_reason: 'fsapi_read_only',
      completed_at: READ_ONLY_TIMESTAMP,
      created_at: READ_ONLY_TIMESTAMP,
      updated_at: READ_ONLY_TIMESTAMP,
    }),
  },
  {
    operationId: 'listTransfers',
    kind: 'read',
    build: async () => ({}),
  },
  {
    operationId: 'getTransfer',
    kind: 'read',
    async build(scope) {
      return { pathParams: { transfer_id: idOf(await scope.world.transfer()) } };
    },
  },
];
