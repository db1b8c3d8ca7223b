/** Cards: issue and manage virtual and physical cards. */
import { cardCreate } from '../fixtures/factories.js';
import { check, describeRequest } from '../src/harness/assert.js';
import type { CheckDef } from '../src/harness/check.js';
import type { HttpResponse } from '../src/http/client.js';
import { STATUS } from '../src/harness/assert.js';
import { defineSuite } from '../src/vitest-suite/suite.js';
import { callCase, caseAnswer, idOf, jsonOf, LONG_NUMBER } from '../src/world/flow-support.js';
import { textFact } from '../src/harness/judge.js';

const base = { family: 'flow', group: 'cards', writes: true } as const;

function noFullNumber(res: HttpResponse): void {
  const m = LONG_NUMBER.exec(res.text);
  check(!m, `${describeRequest(res)} answered ${res.status} with a ${m?.[0].length}-digit number in its body: a card body never carries a full card number`);
}

export const flows: CheckDef[] = [
  {
    ...base,
    requirement: 'FSAPI-CARD-001',
    operation: 'issueCard',
    variant: 'lifecycle',
    title: 'a card is issued active, freezes to frozen, unfreezes to active, and no body carries a 12-19 digit number',
    uses: ['freezeCard', 'unfreezeCard', 'getCard', 'listCards'],
    async run(ctx) {
      const customer = await ctx.world.approvedCustomer();
      const account = await ctx.world.newAccount({ customerId: idOf(customer) });
      // Any 2xx: which one is documented is FSAPI-CONTRACT-002's to judge, not this flow's.
      const step = async (what: string, res: Promise<HttpResponse>, expected: string) => {
        const r = await res;
        const card = jsonOf(r, STATUS.is2xx, `status of ${what}`);
        noFullNumber(r);
        check(card['status'] === expected, `${what}: the card reads ${JSON.stringify(card['status'])}, expected ${expected}`);
        return card;
      };
      const card = await step('issue', ctx.call('issueCard', { body: cardCreate(ctx.faker, ctx.config.label, idOf(customer), idOf(account)) }), 'active');
      const pathParams = { card_id: idOf(card) };
      await step('freeze', ctx.call('freezeCard', { pathParams, body: {} }), 'frozen');
      await step('read after freeze', ctx.call('getCard', { pathParams }), 'frozen');
      await step('unfreeze', ctx.call('unfreezeCard', { pathParams, body: {} }), 'active');
      await step('read after unfreeze', ctx.call('getCard', { pathParams }), 'active');
      const list = await ctx.call('listCards', { query: { account_id: idOf(account) } });
      jsonOf(list);
      noFullNumber(list);
    },
  },
  {
    ...base,
    requirement: 'FSAPI-CARD-002',
    operation: 'freezeCard',
    variant: 'invalid-transitions',
    title: 'unfreezing an active card and freezing a frozen one are refused with 409 and leave the status unchanged',
    uses: ['unfreezeCard', 'getCard', 'issueCard'],
    async run(ctx) {
      const card = await ctx.world.newCard();
      const pathParams = { card_id: idOf(card) };
      ctx.fact('card', pathParams.card_id);
      await callCase(ctx, 'unfreeze', 'unfreezeCard', { pathParams, body: {} });
      await callCase(ctx, 'read-after-unfreeze', 'getCard', { pathParams });
      await callCase(ctx, 'freeze', 'freezeCard', { pathParams, body: {} });
      await callCase(ctx, 'freeze-again', 'freezeCard', { pathParams, body: {} });
      await callCase(ctx, 'read-after-freeze', 'getCard', { pathParams });
    },
    judge(answers, facts) {
      const card = textFact(facts, 'card');
      const unfreeze = caseAnswer(answers, 'unfreeze');
      check(unfreeze.status === 409, `unfreezing the active card ${card} answered ${unfreeze.status}; expected 409`);
      check(jsonOf(caseAnswer(answers, 'read-after-unfreeze'))['status'] === 'active', `after the refused unfreeze card ${card} no longer reads active`);
      jsonOf(caseAnswer(answers, 'freeze'), STATUS.is2xx, 'status of the first freeze');
      const again = caseAnswer(answers, 'freeze-again');
      check(again.status === 409, `freezing the frozen card ${card} answered ${again.status}; expected 409`);
      check(jsonOf(caseAnswer(answers, 'read-after-freeze'))['status'] === 'frozen', `after the refused freeze card ${card} no longer reads frozen`);
    },
  },
  {
    ...base,
    requirement: 'FSAPI-CARD-003',
    operation: 'issueCard',
    variant: 'feature-required',
    title: 'a KYC-approved customer without the cards feature is refused a card with 422',
    uses: ['listCards', 'createAccount', 'submitKyc'],
    async run(ctx) {
      const customer = await ctx.world.newVerifiedCustomer();
      const account = await ctx.world.newAccount({ customerId: idOf(customer) });
      ctx.fact('customer', idOf(customer));
      const res = await callCase(ctx, 'issue', 'issueCard', { body: cardCreate(ctx.faker, ctx.config.label, idOf(customer), idOf(account)) });
      if (res.status === 422) await callCase(ctx, 'list', 'listCards', { query: { customer_id: idOf(customer) } });
    },
    judge(answers, facts) {
      const res = caseAnswer(answers, 'issue');
      const customer = textFact(facts, 'customer');
      check(res.status === 422, `issuing a card to ${customer}, whose cards feature is not active, answered ${res.status}; expected 422`);
      const list = jsonOf(caseAnswer(answers, 'list'));
      const n = Array.isArray(list['data']) ? list['data'].length : 0;
      check(n === 0, `the refused issue left ${n} card(s) listed for ${customer}`);
    },
  },
];

await defineSuite('cards', flows);
