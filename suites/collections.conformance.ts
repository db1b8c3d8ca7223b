/** Collections: accept payments by card, bank transfer and mobile money. */
import { amount, bankTransferCollection, cardCollection, DECLINED_CARD_NUMBER, mobileMoneyCollection } from '../fixtures/factories.js';
import { check, readId } from '../src/harness/assert.js';
import type { CheckContext, CheckDef } from '../src/harness/check.js';
import { STATUS } from '../src/harness/assert.js';
import { defineSuite } from '../src/vitest-suite/suite.js';
import { balanceCase, balanceOf, callCase, caseAnswer, expectBalance, findInList, idOf, jsonOf, readUntil, recordedBalance, show, units, type JsonObject } from '../src/world/flow-support.js';

const base = { family: 'flow', group: 'collections', operation: 'createCollection', writes: true } as const;
const settled = (c: JsonObject) => c['status'] === 'succeeded' || c['status'] === 'failed';

/** One collection: it succeeds (bounded wait), the account rises by its amount, a credit transaction references it. */
async function collect(ctx: CheckContext, method: string, accountId: string, body: JsonObject): Promise<void> {
  const before = await balanceOf(ctx, accountId);
  const created = jsonOf(await ctx.call('createCollection', { body }), STATUS.is2xx, `status of the ${method} collection`);
  const id = idOf(created);
  const end = await readUntil(ctx, 'getCollection', { pathParams: { collection_id: id } }, settled);
  check(end.ok, `${method} collection ${id} still reads ${JSON.stringify(end.value['status'])} after ${ctx.config.webhookWaitMs} ms`);
  check(end.value['status'] === 'succeeded', `${method} collection ${id} ended ${JSON.stringify(end.value['status'])} (${JSON.stringify(end.value['failure_reason'])}), not succeeded`);
  const value = units(body['amount']);
  await expectBalance(ctx, accountId, before, value, `${method} collection ${id} of ${String(body['amount'])}`);
  const refers = (t: JsonObject) => t['account_id'] === accountId && (t['source'] as JsonObject | undefined)?.['id'] === id;
  const { item, items } = await findInList(ctx, 'listTransactions', { query: { account_id: accountId } }, refers);
  check(item !== undefined, `no transaction of ${accountId} references ${method} collection ${id} (${items.length} listed)`);
  check(item['direction'] === 'credit', `the transaction for ${method} collection ${id} is a ${JSON.stringify(item['direction'])}, not a credit`);
  check(units(item['amount'], 'transaction amount') === value, `the credit for ${method} collection ${id} is ${JSON.stringify(item['amount'])}; ${show(value)} was collected`);
}

export const flows: CheckDef[] = [
  {
    ...base,
    requirement: 'FSAPI-COL-001',
    variant: 'three-methods',
    title: 'a card, a bank-transfer and a mobile-money collection each succeed, credit the account by their amount and write a credit transaction',
    uses: ['getCollection', 'getAccount', 'listTransactions', 'createAccount'],
    async run(ctx) {
      const { label } = ctx.config;
      const usd = idOf(await ctx.world.newAccount());
      const kes = idOf(await ctx.world.newAccount({ currency: 'KES' }));
      await collect(ctx, 'card', usd, cardCollection(ctx.faker, label, usd, amount(ctx.faker, 10, 90)));
      await collect(ctx, 'bank_transfer', usd, bankTransferCollection(ctx.faker, label, usd, amount(ctx.faker, 10, 90)));
      await collect(ctx, 'mobile_money', kes, mobileMoneyCollection(ctx.faker, label, kes, amount(ctx.faker, 100, 900)));
    },
  },
  {
    ...base,
    requirement: 'FSAPI-COL-002',
    variant: 'declined-card',
    title: 'a card collection with the declined card 4000000000000002 fails with a reason and credits nothing',
    uses: ['getCollection', 'getAccount', 'createAccount'],
    referenceOnly: true,
    async run(ctx) {
      const account = idOf(await ctx.world.newAccount());
      // The balances the run reads around the collection, each a case its judge reads again; kept as facts too, for a
      // reader of the report (the judge holds each to its read).
      ctx.fact('balance_before', show(await balanceCase(ctx, 'balance_before', account)));
      const body = cardCollection(ctx.faker, ctx.config.label, account, amount(ctx.faker, 10, 90), 'USD', DECLINED_CARD_NUMBER);
      const res = await callCase(ctx, 'create', 'createCollection', { body });
      const id = STATUS.is2xx(res.status) ? readId(res.json) : undefined;
      if (id === undefined) return;
      // Read until settled; the last read is the one judged.
      await readUntil(ctx, 'getCollection', { pathParams: { collection_id: id } }, settled);
      ctx.fact('balance_after', show(await balanceCase(ctx, 'balance_after', account)));
    },
    judge(answers, facts) {
      // In the order the run read them: a read that failed there fails here first.
      const { balance: before, account } = recordedBalance(answers, 'balance_before', facts);
      const created = jsonOf(caseAnswer(answers, 'create'), STATUS.is2xx, 'status of the declined card collection');
      const end = answers.findLast((r) => r.exchange.operation === 'getCollection');
      if (!end) throw new Error('no read of the collection recorded to judge');
      const settledAs = jsonOf(end);
      check(settledAs['status'] === 'failed', `the collection with the declined card ${DECLINED_CARD_NUMBER} reads ${JSON.stringify(settledAs['status'])}, not failed`);
      const reason = settledAs['failure_reason'];
      check(typeof reason === 'string' && reason !== '', `the failed collection ${idOf(created)} carries no failure_reason (${JSON.stringify(reason)})`);
      const after = recordedBalance(answers, 'balance_after', facts).balance;
      check(after === before, `the declined collection credited ${account}: ${show(before)} → ${show(after)}`);
    },
  },
];

await defineSuite('collections', flows);
