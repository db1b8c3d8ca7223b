/** Transactions: retrieve transaction history for accounts and wallets. */
import { cardCollection, transferCreate } from '../fixtures/factories.js';
import { check } from '../src/harness/assert.js';
import type { CheckDef } from '../src/harness/check.js';
import { defineSuite } from '../src/vitest-suite/suite.js';
import { idOf, jsonOf, listUntil, readUntil, type JsonObject } from '../src/world/flow-support.js';

const base = { family: 'flow', group: 'transactions', operation: 'listTransactions', writes: true } as const;
const sourceId = (t: JsonObject) => (t['source'] as JsonObject | undefined)?.['id'];

export const flows: CheckDef[] = [
  {
    ...base,
    requirement: 'FSAPI-TXN-001',
    variant: 'account-filter',
    title: "after a collection and a transfer, ?account_id lists both and only that account's entries",
    uses: ['createCollection', 'createTransfer', 'createAccount', 'getCollection'],
    async run(ctx) {
      const account = idOf(await ctx.world.newAccount());
      const other = idOf(await ctx.world.newAccount());
      const col = jsonOf(await ctx.call('createCollection', { body: cardCollection(ctx.faker, ctx.config.label, account, '60.00') }));
      const settled = await readUntil(ctx, 'getCollection', { pathParams: { collection_id: idOf(col) } }, (c) => c['status'] !== 'pending');
      check(settled.value['status'] === 'succeeded', `the card collection ${idOf(col)} that funds the account reads ${JSON.stringify(settled.value['status'])}`);
      // The transfer also writes a credit on the other account: an unfiltered list would show it.
      const tr = jsonOf(await ctx.call('createTransfer', { body: transferCreate(ctx.config.label, account, { type: 'account', account_id: other }, '10.00') }));
      const want = [idOf(col), idOf(tr)];
      const { items } = await listUntil(ctx, 'listTransactions', { query: { account_id: account } }, (xs) => want.every((id) => xs.some((t) => sourceId(t) === id)));
      const missing = want.filter((id) => !items.some((t) => sourceId(t) === id));
      check(missing.length === 0, `GET /transactions?account_id=${account} lists no entry for ${missing.join(' and ')} (${items.length} listed)`);
      const foreign = items.filter((t) => t['account_id'] !== account);
      check(foreign.length === 0, `GET /transactions?account_id=${account} also lists ${foreign.length} entries of other accounts or wallets (e.g. ${String(foreign[0]?.['id'])} of ${String(foreign[0]?.['account_id'] ?? foreign[0]?.['wallet_id'])})`);
      const credit = items.find((t) => sourceId(t) === idOf(col));
      const debit = items.find((t) => sourceId(t) === idOf(tr));
      check(credit?.['direction'] === 'credit', `the entry for collection ${idOf(col)} is a ${JSON.stringify(credit?.['direction'])}, not a credit`);
      check(debit?.['direction'] === 'debit', `the entry for transfer ${idOf(tr)} is a ${JSON.stringify(debit?.['direction'])}, not a debit`);
    },
  },
  {
    ...base,
    requirement: 'FSAPI-TXN-002',
    variant: 'wallet-filter',
    title: "after a transfer from a USD account to a USDC wallet, ?wallet_id lists the credit and only that wallet's entries",
    uses: ['createWallet', 'createTransfer', 'createAccount', 'createCollection'],
    async run(ctx) {
      const source = await ctx.world.fundedAccount('40.00');
      const wallet = idOf(await ctx.world.newWallet({ customerId: String(source['customer_id']), asset: 'USDC', network: 'polygon' }));
      const tr = jsonOf(await ctx.call('createTransfer', { body: transferCreate(ctx.config.label, idOf(source), { type: 'wallet', wallet_id: wallet }, '15.00') }));
      const { items, ok } = await listUntil(ctx, 'listTransactions', { query: { wallet_id: wallet } }, (xs) => xs.some((t) => sourceId(t) === idOf(tr)));
      check(ok, `GET /transactions?wallet_id=${wallet} lists no entry for transfer ${idOf(tr)} (${items.length} listed)`);
      const credit = items.find((t) => sourceId(t) === idOf(tr));
      check(credit?.['direction'] === 'credit', `the wallet's entry for transfer ${idOf(tr)} is a ${JSON.stringify(credit?.['direction'])}, not a credit`);
      const foreign = items.filter((t) => t['wallet_id'] !== wallet);
      check(foreign.length === 0, `GET /transactions?wallet_id=${wallet} also lists ${foreign.length} entries of other accounts or wallets (e.g. ${String(foreign[0]?.['id'])} of ${String(foreign[0]?.['account_id'] ?? foreign[0]?.['wallet_id'])})`);
    },
  },
];

await defineSuite('transactions', flows);
