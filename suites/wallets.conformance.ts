/** Wallets: create and manage crypto wallets for customers. */
import { token, walletCreate } from '../fixtures/factories.js';
import { check, readId, STATUS } from '../src/harness/assert.js';
import type { CheckDef } from '../src/harness/check.js';
import { defineSuite } from '../src/vitest-suite/suite.js';
import { callCase, caseAnswer, idOf, jsonOf, listAll, units } from '../src/world/flow-support.js';

const base = { family: 'flow', group: 'wallets', operation: 'createWallet', writes: true, requirement: 'FSAPI-WAL-001' } as const;

export const flows: CheckDef[] = [
  {
    ...base,
    variant: 'supported-pair',
    title: 'a USDC wallet on polygon is created with an address and a zero balance',
    uses: ['getWallet'],
    async run(ctx) {
      const customer = await ctx.world.approvedCustomer();
      const body = walletCreate(ctx.config.label, idOf(customer), 'USDC', 'polygon', `fsapi-conformance ${token(ctx.faker)}`);
      const res = await callCase(ctx, 'create', 'createWallet', { body });
      const id = STATUS.is2xx(res.status) ? readId(res.json) : undefined;
      if (id !== undefined) await callCase(ctx, 'read', 'getWallet', { pathParams: { wallet_id: id } });
    },
    judge(answers) {
      const w = jsonOf(caseAnswer(answers, 'create'));
      const id = idOf(w);
      check(typeof w['address'] === 'string' && w['address'].length >= 26, `wallet ${id} was created with address ${JSON.stringify(w['address'])}; expected a network address`);
      check(units(w['balance'], `the balance of ${id}`) === 0n, `wallet ${id} was created with balance ${JSON.stringify(w['balance'])}; expected 0`);
      check(w['asset'] === 'USDC' && w['network'] === 'polygon', `wallet ${id} is ${String(w['asset'])} on ${String(w['network'])}, not USDC on polygon`);
      const read = jsonOf(caseAnswer(answers, 'read'));
      check(read['address'] === w['address'], `GET ${id} shows address ${JSON.stringify(read['address'])}; it was created with ${JSON.stringify(w['address'])}`);
    },
  },
  {
    ...base,
    variant: 'unsupported-pair',
    title: 'BTC on ethereum is refused with 422 and creates nothing',
    uses: ['listWallets'],
    // The judge covers the answer; that the refusal left no wallet listed (a list walk) is the run's.
    comparesState: true,
    judge: (answers) => {
      const res = caseAnswer(answers, 'create');
      check(res.status === 422, `a BTC wallet on ethereum answered ${res.status}; expected 422`);
    },
    async run(ctx) {
      const customer = await ctx.world.approvedCustomer();
      const cid = idOf(customer);
      const label = `fsapi-conformance ${token(ctx.faker)}`;
      const res = await callCase(ctx, 'create', 'createWallet', { body: walletCreate(ctx.config.label, cid, 'BTC', 'ethereum', label) });
      if (res.status !== 422) return;
      const made = (await listAll(ctx, 'listWallets', { query: { customer_id: cid } })).filter((w) => w['label'] === label);
      check(made.length === 0, `the refused BTC-on-ethereum request left wallet ${made[0] ? idOf(made[0]) : ''} listed for ${cid}`);
    },
  },
];

await defineSuite('wallets', flows);
