/** Cards: issue (counted on the account by cardholder), list, read, freeze and unfreeze (visible on read). */
import { cardCreate } from '../../fixtures/factories.js';
import type { OperationDriver } from './types.js';
import { bodyOf, consumable, idOf, pathParam, READ_ONLY_TIMESTAMP, readOk, readOnlyFields, varyMetadata } from './shared.js';

function cardStatusIs(status: 'active' | 'frozen'): NonNullable<OperationDriver['effects']> {
  return (parts) => {
    const id = pathParam(parts, 'card_id');
    return { kind: 'read', read: 'getCard', pathParams: { card_id: id }, count: (res) => (readOk(res, `read card ${id}`)['status'] === status ? 1 : 0) };
  };
}

export const cardDrivers: OperationDriver[] = [
  {
    operationId: 'issueCard',
    kind: 'create',
    async build(scope, { fresh }) {
      const c = await scope.world.approvedCustomer();
      const a = fresh ? await scope.world.newAccount({ customerId: idOf(c) }) : await scope.world.account();
      return { body: cardCreate(scope.ctx.faker, scope.ctx.config.label, idOf(c), idOf(a)) };
    },
    /** Cards listed on the account with the request's cardholder name. */
    effects(parts) {
      const b = bodyOf(parts);
      const aid = String(b['account_id']);
      return {
        kind: 'list',
        list: 'listCards',
        query: { account_id: aid },
        what: `list the cards of account ${aid}`,
        count: (items) => items.filter((c) => c['account_id'] === aid && c['cardholder_name'] === b['cardholder_name']).length,
      };
    },
    vary: varyMetadata,
    readOnly: readOnlyFields({
      id: 'card_FsapiReadOnly0001',
      status: 'frozen',
      brand: 'mastercard',
      expiry_year: 2099,
      created_at: READ_ONLY_TIMESTAMP,
      updated_at: READ_ONLY_TIMESTAMP,
    }),
  },
  {
    operationId: 'listCards',
    kind: 'read',
    build: async () => ({}),
  },
  {
    operationId: 'getCard',
    kind: 'read',
    async build(scope, { fresh }) {
      const card = fresh ? await scope.world.newCard() : await scope.world.card();
      return { pathParams: { card_id: idOf(card) } };
    },
  },
  {
    operationId: 'freezeCard',
    kind: 'action',
    async build(scope, { fresh }) {
      // An active card of this check's own: freezing it twice is refused.
      const card = await consumable(scope, fresh, 'freezeCard', () => scope.world.newCard());
      return { pathParams: { card_id: idOf(card) }, body: {} };
    },
    effects: cardStatusIs('frozen'),
  },
  {
    operationId: 'unfreezeCard',
    kind: 'action',
    async build(scope, { fresh }) {
      const card = await consumable(scope, fresh, 'unfreezeCard', () => scope.world.newCard({ frozen: true }));
      return { pathParams: { card_id: idOf(card) }, body: {} };
    },
    effects: cardStatusIs('active'),
  },
];
