/** External bank accounts: add (counted by customer, bank and last four digits), list, read, remove (visible on read). */
import { externalAccountCreate } from '../../fixtures/factories.js';
import type { OperationDriver } from './types.js';
import { bodyOf, consumable, EffectsUnobservable, idOf, pathParam, READ_ONLY_TIMESTAMP, readOnlyFields, varyMetadata } from './shared.js';
import { describeRequest } from '../harness/assert.js';

export const externalAccountDrivers: OperationDriver[] = [
  {
    operationId: 'createExternalAccount',
    kind: 'create',
    async build(scope, { fresh }) {
      const c = fresh ? await scope.world.newCustomer() : await scope.world.customer();
      const holder = `${String(c['first_name'])} ${String(c['last_name'])}`;
      return { body: externalAccountCreate(scope.ctx.faker, scope.ctx.config.label, idOf(c), holder) };
    },
    effects(parts) {
      const b = bodyOf(parts);
      const cid = String(b['customer_id']);
      const last4 = String(b['account_number']).slice(-4);
      return {
        kind: 'list',
        list: 'listExternalAccounts',
        query: { customer_id: cid },
        what: `list the external accounts of ${cid}`,
        count: (items) => items.filter((e) => e['customer_id'] === cid && e['bank_name'] === b['bank_name'] && e['account_number_last4'] === last4).length,
      };
    },
    vary: varyMetadata,
    readOnly: readOnlyFields({
      id: 'ext_FsapiReadOnly0001',
      status: 'removed',
      // The factory's account numbers never end in 0000.
      account_number_last4: '0000',
      created_at: READ_ONLY_TIMESTAMP,
      updated_at: READ_ONLY_TIMESTAMP,
    }),
  },
  {
    operationId: 'listExternalAccounts',
    kind: 'read',
    build: async () => ({}),
  },
  {
    operationId: 'getExternalAccount',
    kind: 'read',
    async build(scope, { fresh }) {
      const e = fresh ? await scope.world.newExternalAccount(idOf(await scope.world.customer())) : await scope.world.externalAccount();
      return { pathParams: { external_account_id: idOf(e) } };
    },
  },
  {
    operationId: 'deleteExternalAccount',
    kind: 'remove',
    async build(scope, { fresh }) {
      // Removal happens once: never shared with another check.
      const e = await consumable(scope, fresh, 'deleteExternalAccount', async () => scope.world.newExternalAccount(idOf(await scope.world.customer())));
      return { pathParams: { external_account_id: idOf(e) } };
    },
    /** 1 once the external account reads removed (or is gone). */
    effects(parts) {
      const id = pathParam(parts, 'external_account_id');
      return {
        kind: 'read',
        read: 'getExternalAccount',
        pathParams: { external_account_id: id },
        count: (res) => {
          if (res.status === 404 || res.status === 410) return 1;
          const e = res.json as Record<string, unknown> | undefined;
          if (res.status !== 200 || !e || typeof e !== 'object') throw new EffectsUnobservable(`cannot read external account ${id}: ${describeRequest(res)} answered ${res.status}`);
          return e['status'] === 'removed' ? 1 : 0;
        },
      };
    },
  },
];
