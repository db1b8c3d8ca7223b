/** Transfers: send funds internally and to external accounts. */
import { amount, transferCreate } from '../fixtures/factories.js';
import { check } from '../src/harness/assert.js';
import type { CheckContext, CheckDef } from '../src/harness/check.js';
import { defineSuite } from '../src/vitest-suite/suite.js';
import { balanceCase, balanceOf, callCase, caseAnswer, expectBalance, findInList, idOf, jsonOf, readUntil, recordedBalance, show, units, type JsonObject } from '../src/world/flow-support.js';

const base = { family: 'flow', group: 'transfers', operation: 'createTransfer', writes: true } as const;

/** Expects the account's history to hold an entry of this direction and amount referencing the transfer. */
async function expectEntry(ctx: CheckContext, accountId: string, transferId: string, direction: 'credit' | 'debit', value: bigint): Promise<void> {
  // The entry of this account for this transfer: matched here, not trusted to the filter (FSAPI-TXN-001 judges it).
  const refers = (t: JsonObject) => t['account_id'] === accountId && (t['source'] as JsonObject | undefined)?.['id'] === transferId;
  const { item, items } = await findInList(ctx, 'listTransactions', { query: { account_id: accountId } }, refers);
  check(item !== undefined, `no transaction of ${accountId} references transfer ${transferId} (${items.length} listed)`);
  check(item['direction'] === direction, `the transaction of ${accountId} for ${transferId} is a ${JSON.stringify(item['direction'])}, not a ${direction}`);
  check(units(item['amount'], 'transaction amount') === value, `the ${direction} of ${accountId} for ${transferId} is ${JSON.stringify(item['amount'])}; the transfer moved ${show(value)}`);
}

export const flows: CheckDef[] = [
  {
    ...base,
    requirement: 'FSAPI-TRF-001',
    variant: 'internal',
    title: 'an internal transfer completes, debits the source and credits the destination by its amount, with a transaction on each',
    uses: ['getTransfer', 'getAccount', 'listTransactions', 'createAccount', 'createCollection'],
    async run(ctx) {
      const source = idOf(await ctx.world.fundedAccount('80.00'));
      const dest = idOf(await ctx.world.newAccount());
      const [s0, d0] = [await balanceOf(ctx, source), await balanceOf(ctx, dest)];
      const value = amount(ctx.faker, 10, 40);
      const created = jsonOf(await ctx.call('createTransfer', { body: transferCreate(ctx.config.label, source, { type: 'account', account_id: dest }, value) }));
      const id = idOf(created);
      const done = await readUntil(ctx, 'getTransfer', { pathParams: { transfer_id: id } }, (t) => t['status'] === 'completed' || t['status'] === 'failed');
      check(done.value['status'] === 'completed', `internal transfer ${id} reads ${JSON.stringify(done.value['status'])}${done.ok ? '' : ` after ${ctx.config.webhookWaitMs} ms`}, not completed`);
      const v = units(value);
      await expectBalance(ctx, source, s0, -v, `transfer ${id} of ${value}`);
      await expectBalance(ctx, dest, d0, v, `transfer ${id} of ${value}`);
      await expectEntry(ctx, source, id, 'debit', v);
      await expectEntry(ctx, dest, id, 'credit', v);
    },
  },
  {
    ...base,
    requirement: 'FSAPI-TRF-002',
    variant: 'insufficient-funds',
    title: 'a transfer of the balance plus 1 is refused with 422 insufficient_funds and moves nothing',
    uses: ['getAccount', 'createAccount', 'createCollection'],
    async run(ctx) {
      const source = idOf(await ctx.world.fundedAccount('30.00'));
      const dest = idOf(await ctx.world.newAccount());
      // The balances the run reads around the transfer, each a case of its own that the judge reads again; kept as
      // facts too, for a reader of the report (the judge holds each to its read).
      const s0 = await balanceCase(ctx, 'source_before', source);
      ctx.fact('source_before', show(s0));
      ctx.fact('destination_before', show(await balanceCase(ctx, 'destination_before', dest)));
      await callCase(ctx, 'transfer', 'createTransfer', { body: transferCreate(ctx.config.label, source, { type: 'account', account_id: dest }, show(s0 + units('1'))) });
      ctx.fact('source_after', show(await balanceCase(ctx, 'source_after', source)));
      ctx.fact('destination_after', show(await balanceCase(ctx, 'destination_after', dest)));
    },
    judge(answers, facts) {
      // In the order the run read them: a read that failed there fails here first.
      const { balance: s0, account: source } = recordedBalance(answers, 'source_before', facts);
      const d0 = recordedBalance(answers, 'destination_before', facts).balance;
      const over = show(s0 + units('1'));
      const res = caseAnswer(answers, 'transfer');
      check(res.status === 422, `a transfer of ${over} from ${source}, which holds ${show(s0)}, answered ${res.status}; expected 422`);
      const code = (res.json as JsonObject | undefined)?.['code'];
      check(code === 'insufficient_funds', `the refusal carries code ${JSON.stringify(code)}, not insufficient_funds`);
      const [s1, d1] = [recordedBalance(answers, 'source_after', facts).balance, recordedBalance(answers, 'destination_after', facts).balance];
      check(s1 === s0 && d1 === d0, `the refused transfer moved money: source ${show(s0)} → ${show(s1)}, destination ${show(d0)} → ${show(d1)}`);
    },
  },
  {
    ...base,
    requirement: 'FSAPI-TRF-003',
    variant: 'external',
    title: 'a transfer to an external account is pending or processing, then completes, and debits the source',
    uses: ['getTransfer', 'getAccount', 'createExternalAccount', 'createAccount', 'createCollection'],
    async run(ctx) {
      const funded = await ctx.world.fundedAccount('90.00');
      const source = idOf(funded);
      const ext = idOf(await ctx.world.newExternalAccount(String(funded['customer_id'])));
      const s0 = await balanceOf(ctx, source);
      const value = amount(ctx.faker, 20, 60);
      const created = jsonOf(await ctx.call('createTransfer', { body: transferCreate(ctx.config.label, source, { type: 'external_account', external_account_id: ext }, value) }));
      const id = idOf(created);
      check(['pending', 'processing'].includes(String(created['status'])), `external transfer ${id} was created ${JSON.stringify(created['status'])}; expected pending or processing`);
      const done = await readUntil(ctx, 'getTransfer', { pathParams: { transfer_id: id } }, (t) => t['status'] === 'completed' || t['status'] === 'failed');
      check(done.ok, `external transfer ${id} still reads ${JSON.stringify(done.value['status'])} after ${ctx.config.webhookWaitMs} ms`);
      check(done.value['status'] === 'completed', `external transfer ${id} ended ${JSON.stringify(done.value['status'])} (${JSON.stringify(done.value['failure_reason'])}), not completed`);
      await expectBalance(ctx, source, s0, -units(value), `external transfer ${id} of ${value}`);
    },
  },
];

await defineSuite('transfers', flows);
