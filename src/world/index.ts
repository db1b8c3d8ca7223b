import {
  accountCreate,
  cardCollection,
  cardCreate,
  customerCreate,
  externalAccountCreate,
  fxQuoteCreate,
  fxTradeCreate,
  kycDocumentCreate,
  kycSubmission,
  transferCreate,
  walletCreate,
  type Label,
} from '../../fixtures/factories.js';
import { describeRequest, listItems, summariseBody } from '../harness/assert.js';
import { pollUntil } from '../harness/poll.js';
import type { Json, World, WorldScope } from '../harness/world.js';
import type { HttpResponse } from '../http/client.js';

/** The setup could not build a prerequisite: the dependent check errors with this message. */
export class SetupError extends Error {
  override readonly name = 'SetupError';
}

const FEATURES = ['cards', 'crypto_wallets', 'fx'];

/**
 * Creates the prerequisites of checks through the API itself, following the profile's flows: a customer, KYC
 * approval, features, accounts funded by collections. Shared ones are created once per suite and business.
 */
export function createWorld(scope: WorldScope): World {
  const memo = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, make: () => Promise<T>): Promise<T> => {
    let p = memo.get(key) as Promise<T> | undefined;
    if (!p) memo.set(key, (p = make()));
    return p;
  };
  const counts: Record<string, number> = {};
  let serial = 0;
  const label: Label = scope.config.label;
  const f = scope.faker;
  const wait = Math.max(scope.config.webhookWaitMs, 5_000);

  const ok = (res: HttpResponse, what: string): Json => {
    if (res.status < 200 || res.status >= 300 || typeof res.json !== 'object' || res.json === null) {
      throw new SetupError(`setup could not ${what}: ${describeRequest(res)} answered ${res.status}${summariseBody(res)}`);
    }
    return res.json as Json;
  };
  const create = async (type: string, opId: string, parts: Parameters<WorldScope['call']>[1], what: string): Promise<Json> => {
    const json = ok(await scope.call(opId, parts), what);
    counts[type] = (counts[type] ?? 0) + 1;
    return json;
  };
  const idOf = (j: Json) => String(j['id']);

  const world: World = {
    principal: scope.principal,
    created: () => ({ ...counts }),

    customer: () => once('customer', () => world.newCustomer()),
    newCustomer: (overrides = {}) =>
      create('customer', 'createCustomer', { body: { ...customerCreate(f, label, `${scope.config.runId}${scope.principal[0]}${serial++}`), ...overrides } }, 'create a customer'),

    kycDocument: async (customerId) => {
      const cid = customerId ?? idOf(await world.customer());
      return create('kyc_document', 'uploadKycDocument', { pathParams: { customer_id: cid }, body: kycDocumentCreate(f) }, 'upload a KYC document');
    },

    newApprovedCustomer: async () => {
      const customer = await world.newCustomer();
      const cid = idOf(customer);
      const doc = await world.kycDocument(cid);
      ok(await scope.call('submitKyc', { pathParams: { customer_id: cid }, body: kycSubmission(f, [idOf(doc)]) }), 'submit KYC');
      const decided = await pollUntil(
        async () => ok(await scope.call('getKycStatus', { pathParams: { customer_id: cid } }), 'read the KYC status'),
        (k) => k['status'] === 'approved' || k['status'] === 'rejected',
        wait,
      );
      if (decided.value['status'] !== 'approved') {
        throw new SetupError(`setup could not get KYC approved for ${cid}: status ${String(decided.value['status'])} after ${wait} ms`);
      }
      for (const feature of FEATURES) {
        ok(await scope.call('activateFeature', { pathParams: { customer_id: cid, feature }, body: {} }), `activate the ${feature} feature`);
      }
      return customer;
    },
    approvedCustomer: () => once('approvedCustomer', () => world.newApprovedCustomer()),

    newAccount: async (opts = {}) => {
      const cid = opts.customerId ?? idOf(await world.approvedCustomer());
      return create('account', 'createAccount', { body: accountCreate(f, label, cid, opts.currency ?? 'USD') }, `open a ${opts.currency ?? 'USD'} account`);
    },
    account: (currency = 'USD') => once(`account:${currency}`, () => world.newAccount({ currency })),

    fundedAccount: async (amount, currency = 'USD') => {
      const account = await world.newAccount({ currency });
      const col = await create('collection', 'createCollection', { body: cardCollection(f, label, idOf(account), amount, currency) }, 'fund an account by card collection');
      if (col['status'] !== 'succeeded') {
        const settled = await pollUntil(
          async () => ok(await scope.call('getCollection', { pathParams: { collection_id: idOf(col) } }), 'read a collection'),
          (c) => c['status'] === 'succeeded' || c['status'] === 'failed',
          wait,
        );
        if (settled.value['status'] !== 'succeeded') throw new SetupError(`setup could not fund ${idOf(account)}: collection ${idOf(col)} is ${String(settled.value['status'])}`);
      }
      return ok(await scope.call('getAccount', { pathParams: { account_id: idOf(account) } }), 'read a funded account');
    },

    externalAccount: () =>
      once('externalAccount', async () => {
        const c = await world.approvedCustomer();
        return create('external_account', 'createExternalAccount', { body: externalAccountCreate(f, label, idOf(c), `${String(c['first_name'])} ${String(c['last_name'])}`) }, 'add an external account');
      }),

    card: () =>
      once('card', async () => {
        const c = await world.approvedCustomer();
        const a = await world.account();
        return create('card', 'issueCard', { body: cardCreate(f, label, idOf(c), idOf(a)) }, 'issue a card');
      }),

    wallet: () =>
      once('wallet', async () => {
        const c = await world.approvedCustomer();
        return create('wallet', 'createWallet', { body: walletCreate(label, idOf(c)) }, 'create a wallet');
      }),

    collection: () =>
      once('collection', async () => {
        const a = await world.account();
        return create('collection', 'createCollection', { body: cardCollection(f, label, idOf(a), '50.00') }, 'collect a card payment');
      }),

    transfer: () =>
      once('transfer', async () => {
        const source = await world.fundedAccount('100.00');
        const dest = await world.account();
        return create('transfer', 'createTransfer', { body: transferCreate(label, idOf(source), { type: 'account', account_id: idOf(dest) }, '10.00') }, 'make a transfer');
      }),

    fxTrade: () =>
      once('fxTrade', async () => {
        const source = await world.fundedAccount('100.00');
        const target = await world.account('EUR');
        const quote = ok(await scope.call('createFxQuote', { body: fxQuoteCreate('USD', 'EUR', '10.00') }), 'get an FX quote');
        return create('fx_trade', 'createFxTrade', { body: fxTradeCreate(label, idOf(quote), idOf(source), idOf(target)) }, 'execute an FX trade');
      }),

    transaction: () =>
      once('transaction', async () => {
        const col = await world.collection();
        const list = await pollUntil(
          async () => listItems(await scope.call('listTransactions', { query: { account_id: String(col['account_id']), limit: 5 } })) ?? [],
          (items) => items.length > 0,
          wait,
        );
        if (!list.ok) throw new SetupError(`setup found no transaction on ${String(col['account_id'])} after a collection`);
        return list.value[0] as Json;
      }),

    event: () =>
      once('event', async () => {
        await world.customer();
        const list = await pollUntil(async () => listItems(await scope.call('listWebhookEvents', { query: { limit: 1 } })) ?? [], (items) => items.length > 0, wait);
        if (!list.ok) throw new SetupError('setup found no event after creating a customer');
        return list.value[0] as Json;
      }),

    delivery: () =>
      once('delivery', async () => {
        await world.event();
        const list = await pollUntil(async () => listItems(await scope.call('listWebhookDeliveries', { query: { limit: 1 } })) ?? [], (items) => items.length > 0, scope.config.receiver ? wait : 0);
        return list.value[0] as Json | undefined;
      }),
  };
  return world;
}
