/** Collections: collect (counted on the account by description), list, read. */
import { amount, cardCollection } from '../../fixtures/factories.js';
import type { OperationDriver } from './types.js';
import { bodyOf, idOf, READ_ONLY_TIMESTAMP, readOnlyFields, varyMetadata } from './shared.js';

export const collectionDrivers: OperationDriver[] = [
  {
    operationId: 'createCollection',
    kind: 'create',
    async build(scope, { fresh }) {
      const a = fresh ? await scope.world.newAccount() : await scope.world.account();
      return { body: cardCollection(scope.ctx.faker, scope.ctx.config.label, idOf(a), amount(scope.ctx.faker, 5, 50)) };
    },
    /** Collections of the account with the request's description (it ends with a token unique to the request). */
    effects(parts) {
      const b = bodyOf(parts);
      const aid = String(b['account_id']);
      return {
        kind: 'list',
        list: 'listCollections',
        query: { account_id: aid },
        what: `list the collections of ${aid}`,
        count: (items) => items.filter((c) => c['account_id'] === aid && c['description'] === b['description']).length,
      };
    },
    vary: varyMetadata,
    readOnly: readOnlyFields({
      id: 'col_FsapiReadOnly0001',
      status: 'failed',
      failure_reason: 'fsapi_read_only',
      created_at: READ_ONLY_TIMESTAMP,
      updated_at: READ_ONLY_TIMESTAMP,
    }),
  },
  {
    operationId: 'listCollections',
    kind: 'read',
    build: async () => ({}),
  },
  {
    operationId: 'getCollection',
    kind: 'read',
    async build(scope) {
      return { pathParams: { collection_id: idOf(await scope.world.collection()) } };
    },
  },
];
