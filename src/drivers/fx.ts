/** FX: rates, quotes (counted by a scope marker in their metadata), trades (counted on the source account), list, read. */
import { amount, fxQuoteCreate, fxTradeCreate, metadata } from '../../fixtures/factories.js';
import type { OperationDriver } from './types.js';
import { bodyOf, consumable, idOf, READ_ONLY_TIMESTAMP, readOnlyFields, varyMetadata } from './shared.js';

export const fxDrivers: OperationDriver[] = [
  {
    operationId: 'listFxRates',
    kind: 'read',
    build: async () => ({ query: { base: 'USD' } }),
  },
  {
    operationId: 'createFxQuote',
    kind: 'create',
    // A quote has no parent resource, so its scope is a marker in its metadata, unique to the run, check and request.
    build: async (scope) => ({
      body: fxQuoteCreate('USD', 'EUR', amount(scope.ctx.faker, 10, 99), metadata(scope.ctx.config.label, { fsapi_scope: scope.ctx.idempotencyKey() })),
    }),
    effects(parts) {
      const marker = (bodyOf(parts)['metadata'] as Record<string, string> | undefined)?.['fsapi_scope'];
      return { kind: 'list', list: 'listFxQuotes', what: 'list the FX quotes', count: (items) => items.filter((q) => (q['metadata'] as Record<string, string> | undefined)?.['fsapi_scope'] === marker).length };
    },
    vary: (parts) => {
      const b = bodyOf(parts);
      return { ...parts, body: { ...b, source_amount: String(b['source_amount']) === '7.00' ? '8.00' : '7.00' } };
    },
    readOnly: readOnlyFields({
      id: 'fxq_FsapiReadOnly0001',
      rate: '9.99',
      target_amount: '999999.99',
      expires_at: READ_ONLY_TIMESTAMP,
      created_at: READ_ONLY_TIMESTAMP,
    }),
  },
  {
    operationId: 'listFxQuotes',
    kind: 'read',
    build: async () => ({}),
  },
  {
    operationId: 'getFxQuote',
    kind: 'read',
    async build(scope) {
      return { pathParams: { quote_id: idOf(await scope.world.newQuote('USD', 'EUR', '10.00')) } };
    },
  },
  {
    operationId: 'createFxTrade',
    kind: 'create',
    async build(scope, { fresh }) {
      // Accounts of this check's own (trades spend the source); a new quote per request (a quote trades once).
      const { source, target } = await consumable(scope, fresh, 'createFxTrade', async () => ({
        source: await scope.world.fundedAccount('100.00'),
        target: await scope.world.newAccount({ currency: 'EUR' }),
      }));
      const quote = await scope.world.newQuote('USD', 'EUR', '10.00');
      return { body: fxTradeCreate(scope.ctx.config.label, idOf(quote), idOf(source), idOf(target)) };
    },
    effects(parts) {
      const source = String(bodyOf(parts)['source_account_id']);
      return { kind: 'list', list: 'listFxTrades', query: { account_id: source }, what: `list the FX trades of ${source}`, count: (items) => items.filter((t) => t['source_account_id'] === source).length };
    },
    vary: varyMetadata,
    readOnly: readOnlyFields({
      id: 'fxt_FsapiReadOnly0001',
      status: 'failed',
      rate: '9.9999',
      target_amount: '999999.99',
      completed_at: READ_ONLY_TIMESTAMP,
      created_at: READ_ONLY_TIMESTAMP,
    }),
  },
  {
    operationId: 'listFxTrades',
    kind: 'read',
    build: async () => ({}),
  },
  {
    operationId: 'getFxTrade',
    kind: 'read',
    async build(scope) {
      return { pathParams: { trade_id: idOf(await scope.world.fxTrade()) } };
    },
  },
];
