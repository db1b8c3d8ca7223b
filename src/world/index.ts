import {
  accountCreate,
  cardCollection,
  cardCreate,
  customerCreate,
  externalAccountCreate,
  fxQuoteCreate,
  metadata,
  fxTradeCreate,
  kycDocumentCreate,
  kycSubmission,
  token,
  transferCreate,
  walletCreate,
  type Label,
} from '../../fixtures/factories.js';
import { describeRequest, idOf, listItems, PreconditionFailed, summariseBody } from '../harness/assert.js';
import { pollUntil } from '../harness/poll.js';
import type { JsonObject, World, WorldScope } from '../harness/world.js';
import type { HttpResponse } from '../http/client.js';

/** The setup could not build a prerequisite: the dependent check errors with this message. */
export class SetupError extends PreconditionFailed {}

export const FEATURES = ['cards', 'crypto_wallets', 'fx'] as const;

/**
 * Creates the prerequisites of checks through the API itself, following the profile's flows: a customer, KYC
 * approval, features, accounts funded by collections. Shared ones are created once per suite and business.
 */
export function createWorld(scope: WorldScope): World {
  const setup = setupCalls(scope);
  const world: World = {
    principal: scope.principal,
    created: setup.created,
    ...customers(setup, () => world),
    ...money(setup, () => world),
    ...cardsAndWallets(setup, () => world),
    ...observed(setup, () => world),
  };
  return world;
}

/** What every part of a world uses: its calls, each answer read as a success or a SetupError, and the tallies. */
interface SetupCalls {
  scope: WorldScope;
  label: Label;
  faker: WorldScope['faker'];
  /** How long a decision, a settlement or an event may take to show. */
  wait: number;
  /** A shared prerequisite: made on first use, then the same promise. */
  once<T>(key: string, make: () => Promise<T>): Promise<T>;
  ok(res: HttpResponse, what: string): JsonObject;
  count(type: string): void;
  /** Calls `opId`, which creates a `type`, and counts it. */
  create(type: string, opId: string, parts: Parameters<WorldScope['call']>[1], what: string): Promise<JsonObject>;
  created(): Record<string, number>;
}

/** Some of a world's methods: each part makes its own and calls the others through `self()`, the world once built. */
type Part<K extends keyof World> = Pick<World, K>;

function setupCalls(scope: WorldScope): SetupCalls {
  const memo = new Map<string, Promise<unknown>>();
  const counts: Record<string, number> = {};
  const ok = (res: HttpResponse, what: string): JsonObject => {
    if (res.status < 200 || res.status >= 300 || typeof res.json !== 'object' || res.json === null) {
      throw new SetupError(`setup could not ${what}: ${describeRequest(res)} answered ${res.status}${summariseBody(res)}`);
    }
    return res.json as JsonObject;
  };
  const count = (type: string): void => {
    counts[type] = (counts[type] ?? 0) + 1;
  };
  return {
    scope,
    label: scope.config.label,
    faker: scope.faker,
    wait: Math.max(scope.config.webhookWaitMs, 5_000),
    once<T>(key: string, make: () => Promise<T>): Promise<T> {
      let p = memo.get(key) as Promise<T> | undefined;
      if (!p) memo.set(key, (p = make()));
      return p;
    },
    ok,
    count,
    async create(type, opId, parts, what) {
      const json = ok(await scope.call(opId, parts), what);
      count(type);
      return json;
    },
    created: () => ({ ...counts }),
  };
}

/** Customers, their KYC and their features. */
function customers(
  { scope, label, faker: f, wait, once, ok, count, create }: SetupCalls,
  self: () => World,
): Part<'customer' | 'newCustomer' | 'submitKyc' | 'kycDecision' | 'newVerifiedCustomer' | 'kycDocument' | 'newApprovedCustomer' | 'approvedCustomer'> {
  let serial = 0;
  /** Set once the target refused a customer of type individual: later customers are created as business. */
  let customerType: 'individual' | 'business' = 'individual';
  return {
    customer: () => once('customer', () => self().newCustomer()),
    newCustomer: async (overrides = {}, created) => {
      const body = { ...customerCreate(f, label, `${scope.config.runId}${scope.principal[0]}${serial++}`), type: customerType, ...overrides };
      const res = await scope.call('createCustomer', { body });
      // A target that only serves business customers still gets a usable world (FSAPI-CUS-006 reports the refusal).
      if (res.status >= 400 && res.status < 500 && body['type'] === 'individual' && overrides['type'] === undefined) {
        const retry = await scope.call('createCustomer', { body: { ...body, type: 'business' } });
        if (retry.status >= 200 && retry.status < 300) {
          customerType = 'business';
          count('customer');
          const json = ok(retry, 'create a customer');
          created?.(retry);
          return json;
        }
      }
      const json = ok(res, 'create a customer');
      count('customer');
      created?.(res);
      return json;
    },
    submitKyc: async (cid, opts = {}) => {
      const doc = await self().kycDocument(cid);
      return ok(await scope.call('submitKyc', { pathParams: { customer_id: cid }, body: kycSubmission(f, [idOf(doc)], opts) }), 'submit KYC');
    },
    kycDecision: async (cid) => {
      const decided = await pollUntil(
        async () => ok(await scope.call('getKycStatus', { pathParams: { customer_id: cid } }), 'read the KYC status'),
        (k) => k['status'] === 'approved' || k['status'] === 'rejected',
        wait,
      );
      if (!decided.ok) throw new SetupError(`setup saw no KYC decision for ${cid} within ${wait} ms (status ${String(decided.value['status'])})`);
      return decided.value;
    },
    newVerifiedCustomer: async () => {
      const customer = await self().newCustomer();
      const cid = idOf(customer);
      await self().submitKyc(cid);
      const decision = await self().kycDecision(cid);
      if (decision['status'] !== 'approved') throw new SetupError(`setup could not get KYC approved for ${cid}: status ${String(decision['status'])}`);
      return customer;
    },
    kycDocument: async (customerId) => {
      const cid = customerId ?? idOf(await self().customer());
      return create('kyc_document', 'uploadKycDocument', { pathParams: { customer_id: cid }, body: kycDocumentCreate(f) }, 'upload a KYC document');
    },
    newApprovedCustomer: async () => {
      const customer = await self().newVerifiedCustomer();
      const cid = idOf(customer);
      for (const feature of FEATURES) {
        ok(await scope.call('activateFeature', { pathParams: { customer_id: cid, feature }, body: {} }), `activate the ${feature} feature`);
      }
      return customer;
    },
    approvedCustomer: () => once('approvedCustomer', () => self().newApprovedCustomer()),
  };
}

/** Accounts and what moves money between them: collections, transfers, FX. */
function money(
  { scope, label, faker: f, wait, once, ok, create }: SetupCalls,
  self: () => World,
): Part<'newAccount' | 'account' | 'readAccount' | 'fundedAccount' | 'newExternalAccount' | 'externalAccount' | 'collection' | 'transfer' | 'newQuote' | 'fxTrade'> {
  return {
    newAccount: async (opts = {}) => {
      const cid = opts.customerId ?? idOf(await self().approvedCustomer());
      return create('account', 'createAccount', { body: accountCreate(f, label, cid, opts.currency ?? 'USD') }, `open a ${opts.currency ?? 'USD'} account`);
    },
    account: (currency = 'USD') => once(`account:${currency}`, () => self().newAccount({ currency })),
    readAccount: async (accountId) => ok(await scope.call('getAccount', { pathParams: { account_id: accountId } }), 'read an account'),
    fundedAccount: async (amount, currency = 'USD') => {
      const account = await self().newAccount({ currency });
      const col = await create('collection', 'createCollection', { body: cardCollection(f, label, idOf(account), amount, currency) }, 'fund an account by card collection');
      if (col['status'] !== 'succeeded') {
        const settled = await pollUntil(
          async () => ok(await scope.call('getCollection', { pathParams: { collection_id: idOf(col) } }), 'read a collection'),
          (c) => c['status'] === 'succeeded' || c['status'] === 'failed',
          wait,
        );
        if (settled.value['status'] !== 'succeeded') throw new SetupError(`setup could not fund ${idOf(account)}: collection ${idOf(col)} is ${String(settled.value['status'])}`);
      }
      return self().readAccount(idOf(account));
    },
    newExternalAccount: async (customerId) => {
      const c = customerId ? { id: customerId, first_name: 'Test', last_name: 'Holder' } : await self().approvedCustomer();
      return create('external_account', 'createExternalAccount', { body: externalAccountCreate(f, label, idOf(c), `${String(c['first_name'])} ${String(c['last_name'])}`) }, 'add an external account');
    },
    externalAccount: () => once('externalAccount', () => self().newExternalAccount()),
    collection: () =>
      once('collection', async () => {
        const a = await self().account();
        return create('collection', 'createCollection', { body: cardCollection(f, label, idOf(a), '50.00') }, 'collect a card payment');
      }),
    transfer: () =>
      once('transfer', async () => {
        const source = await self().fundedAccount('100.00');
        const dest = await self().account();
        return create('transfer', 'createTransfer', { body: transferCreate(label, idOf(source), { type: 'account', account_id: idOf(dest) }, '10.00') }, 'make a transfer');
      }),
    newQuote: async (source, target, amount) => ok(await scope.call('createFxQuote', { body: fxQuoteCreate(source, target, amount, metadata(label)) }), 'get an FX quote'),
    fxTrade: () =>
      once('fxTrade', async () => {
        const source = await self().fundedAccount('100.00');
        const target = await self().account('EUR');
        const quote = await self().newQuote('USD', 'EUR', '10.00');
        return create('fx_trade', 'createFxTrade', { body: fxTradeCreate(label, idOf(quote), idOf(source), idOf(target)) }, 'execute an FX trade');
      }),
  };
}

function cardsAndWallets({ scope, label, faker: f, once, ok, create }: SetupCalls, self: () => World): Part<'newCard' | 'card' | 'newWallet' | 'wallet'> {
  return {
    newCard: async (opts = {}) => {
      const c = await self().approvedCustomer();
      const a = await self().newAccount({ customerId: idOf(c) });
      const card = await create('card', 'issueCard', { body: cardCreate(f, label, idOf(c), idOf(a)) }, 'issue a card');
      if (!opts.frozen) return card;
      return ok(await scope.call('freezeCard', { pathParams: { card_id: idOf(card) }, body: {} }), 'freeze a card');
    },
    card: () => once('card', () => self().newCard()),
    newWallet: async (opts = {}) => {
      const cid = opts.customerId ?? idOf(await self().approvedCustomer());
      return create('wallet', 'createWallet', { body: walletCreate(label, cid, opts.asset, opts.network, opts.label ?? `fsapi-conformance ${token(f)}`) }, 'create a wallet');
    },
    wallet: () => once('wallet', () => self().newWallet({ label: 'fsapi-conformance' })),
  };
}

/** What the target records on its own and a check only reads: transactions, events, webhook deliveries. */
function observed({ scope, wait, once }: SetupCalls, self: () => World): Part<'transaction' | 'event' | 'delivery'> {
  return {
    transaction: () =>
      once('transaction', async () => {
        const col = await self().collection();
        const list = await pollUntil(
          async () => listItems(await scope.call('listTransactions', { query: { account_id: String(col['account_id']), limit: 5 } })) ?? [],
          (items) => items.length > 0,
          wait,
        );
        if (!list.ok) throw new SetupError(`setup found no transaction on ${String(col['account_id'])} after a collection`);
        return list.value[0] as JsonObject;
      }),
    event: () =>
      once('event', async () => {
        await self().customer();
        const list = await pollUntil(async () => listItems(await scope.call('listWebhookEvents', { query: { limit: 1 } })) ?? [], (items) => items.length > 0, wait);
        if (!list.ok) throw new SetupError('setup found no event after creating a customer');
        return list.value[0] as JsonObject;
      }),
    delivery: () =>
      once('delivery', async () => {
        await self().event();
        const list = await pollUntil(async () => listItems(await scope.call('listWebhookDeliveries', { query: { limit: 1 } })) ?? [], (items) => items.length > 0, scope.config.receiver ? wait : 0);
        return list.value[0] as JsonObject | undefined;
      }),
  };
}
