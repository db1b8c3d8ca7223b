/** FX: get exchange rates and execute currency trades. */
import { amount, fxQuoteCreate, fxTradeCreate } from '../fixtures/factories.js';
import { check, fail } from '../src/harness/assert.js';
import type { CheckContext, CheckDef } from '../src/harness/check.js';
import { STATUS } from '../src/harness/assert.js';
import { defineSuite } from '../src/vitest-suite/suite.js';
import { balanceOf, CENT, expectBalance, findInList, idOf, jsonOf, listAll, show, times, units, type JsonObject } from '../src/world/flow-support.js';

const base = { family: 'flow', group: 'fx', writes: true } as const;

/** A funded USD source and an empty EUR target of the approved customer (who has the fx feature). */
async function accounts(ctx: CheckContext): Promise<{ source: string; target: string }> {
  const source = await ctx.world.fundedAccount('100.00');
  const target = await ctx.world.newAccount({ customerId: String(source['customer_id']), currency: 'EUR' });
  return { source: idOf(source), target: idOf(target) };
}

/** |a − b| < 1 cent: b rounded to the cent, up or down, is a. */
const toTheCent = (a: bigint, exact: bigint) => (a > exact ? a - exact : exact - a) < CENT;

export const flows: CheckDef[] = [
  {
    ...base,
    writes: false,
    requirement: 'FSAPI-FX-001',
    operation: 'listFxRates',
    variant: 'positive-rates',
    title: 'rates for base USD are listed per pair with a positive rate, and the quote filter narrows to one pair',
    async run(ctx) {
      const rates = await listAll(ctx, 'listFxRates', { query: { base: 'USD' } });
      check(rates.length > 0, 'GET /fx/rates?base=USD lists no rate');
      for (const r of rates) {
        check(r['base'] === 'USD', `GET /fx/rates?base=USD lists a pair with base ${JSON.stringify(r['base'])}`);
        check(units(r['rate'], `the rate of USD/${String(r['quote'])}`) > 0n, `USD/${String(r['quote'])} has rate ${JSON.stringify(r['rate'])}; rates are positive`);
      }
      const one = await listAll(ctx, 'listFxRates', { query: { base: 'USD', quote: 'EUR' } });
      check(one.length === 1, `GET /fx/rates?base=USD&quote=EUR lists ${one.length} pairs; expected exactly USD/EUR`);
      check(one[0]!['base'] === 'USD' && one[0]!['quote'] === 'EUR', `GET /fx/rates?base=USD&quote=EUR lists ${String(one[0]!['base'])}/${String(one[0]!['quote'])}`);
      check(units(one[0]!['rate'], 'the rate of USD/EUR') > 0n, `USD/EUR has rate ${JSON.stringify(one[0]!['rate'])}`);
    },
  },
  {
    ...base,
    requirement: 'FSAPI-FX-002',
    operation: 'createFxTrade',
    variant: 'quoted-rate',
    title: 'a trade converts at the quoted rate to the cent, debits the source, credits the target, with a transaction on each',
    uses: ['createFxQuote', 'getAccount', 'listTransactions', 'createAccount', 'createCollection'],
    async run(ctx) {
      const { source, target } = await accounts(ctx);
      const [s0, t0] = [await balanceOf(ctx, source), await balanceOf(ctx, target)];
      const sourceAmount = amount(ctx.faker, 20, 80);
      const quote = jsonOf(await ctx.call('createFxQuote', { body: fxQuoteCreate('USD', 'EUR', sourceAmount) }));
      const a = units(sourceAmount);
      const rate = units(quote['rate'], 'the quoted rate');
      const quotedTarget = units(quote['target_amount'], "the quote's target_amount");
      check(toTheCent(quotedTarget, times(a, rate)), `quote ${idOf(quote)}: ${sourceAmount} × ${String(quote['rate'])} = ${show(times(a, rate))}, but target_amount is ${String(quote['target_amount'])}`);
      const trade = jsonOf(await ctx.call('createFxTrade', { body: fxTradeCreate(ctx.config.label, idOf(quote), source, target) }));
      const id = idOf(trade);
      check(units(trade['source_amount'], 'source_amount') === a, `trade ${id} sold ${String(trade['source_amount'])}; the quote was for ${sourceAmount}`);
      check(units(trade['rate'], 'the trade rate') === rate, `trade ${id} reports rate ${String(trade['rate'])}; the quote locked ${String(quote['rate'])}`);
      const traded = units(trade['target_amount'], "the trade's target_amount");
      check(
        traded === quotedTarget && toTheCent(traded, times(a, rate)),
        `trade ${id} bought ${String(trade['target_amount'])} EUR; ${sourceAmount} USD × ${String(quote['rate'])} is ${show(times(a, rate))} (quoted ${String(quote['target_amount'])})`,
      );
      await expectBalance(ctx, source, s0, -a, `trade ${id}`);
      await expectBalance(ctx, target, t0, quotedTarget, `trade ${id} at the quoted rate`);
      for (const [account, direction, value] of [
        [source, 'debit', a],
        [target, 'credit', quotedTarget],
      ] as const) {
        // The entry of this account for this trade: matched here, not trusted to the filter (FSAPI-TXN-001 judges it).
        const { item, items } = await findInList(ctx, 'listTransactions', { query: { account_id: account } }, (t) => t['account_id'] === account && (t['source'] as JsonObject | undefined)?.['id'] === id);
        if (!item) fail(`no transaction of ${account} references trade ${id} (${items.length} listed)`);
        check(item['direction'] === direction, `the transaction of ${account} for trade ${id} is a ${JSON.stringify(item['direction'])}, not a ${direction}`);
        check(units(item['amount'], 'transaction amount') === value, `the ${direction} of ${account} for trade ${id} is ${String(item['amount'])}; expected ${show(value)}`);
      }
    },
  },
  {
    ...base,
    requirement: 'FSAPI-FX-003',
    operation: 'createFxTrade',
    variant: 'quote-used-once',
    title: 'a second trade on a used quote is refused with 409 (422 accepted) and moves nothing',
    uses: ['createFxQuote', 'getAccount', 'createAccount', 'createCollection'],
    async run(ctx) {
      const { source, target } = await accounts(ctx);
      const quote = jsonOf(await ctx.call('createFxQuote', { body: fxQuoteCreate('USD', 'EUR', '10.00') }));
      jsonOf(await ctx.call('createFxTrade', { body: fxTradeCreate(ctx.config.label, idOf(quote), source, target) }), STATUS.is2xx, 'status of the first trade on the quote');
      const [s0, t0] = [await balanceOf(ctx, source), await balanceOf(ctx, target)];
      // A new Idempotency-Key (every call gets its own): this is a second trade, not a retry.
      const again = await ctx.call('createFxTrade', { body: fxTradeCreate(ctx.config.label, idOf(quote), source, target) });
      check(again.status === 409 || again.status === 422, `a second trade on quote ${idOf(quote)} answered ${again.status}; expected 409 (422 accepted)`);
      const [s1, t1] = [await balanceOf(ctx, source), await balanceOf(ctx, target)];
      check(s1 === s0 && t1 === t0, `the second trade on quote ${idOf(quote)} moved money: source ${show(s0)} → ${show(s1)}, target ${show(t0)} → ${show(t1)}`);
    },
  },
];

await defineSuite('fx', flows);
