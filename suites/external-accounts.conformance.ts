/** External accounts: add and manage external bank accounts for outgoing transfers. */
import { externalAccountCreate, transferCreate } from '../fixtures/factories.js';
import { check, describeRequest } from '../src/harness/assert.js';
import type { CheckDef } from '../src/harness/check.js';
import type { HttpResponse } from '../src/http/client.js';
import { defineSuite } from '../src/vitest-suite/suite.js';
import { balanceOf, findInList, idOf, jsonOf, show } from '../src/world/flow-support.js';

export const flows: CheckDef[] = [
  {
    requirement: 'FSAPI-XACC-001',
    family: 'flow',
    group: 'external-accounts',
    operation: 'createExternalAccount',
    variant: 'lifecycle',
    title: 'an external account exposes only its last four digits, is listed, removes to removed, refuses a second removal and transfers to it',
    uses: ['getExternalAccount', 'listExternalAccounts', 'deleteExternalAccount', 'createTransfer', 'getAccount'],
    writes: true,
    async run(ctx) {
      const source = await ctx.world.fundedAccount('50.00');
      const cid = String(source['customer_id']);
      const body = externalAccountCreate(ctx.faker, ctx.config.label, cid, 'Conformance Holder');
      const number = String(body['account_number']);
      const noFullNumber = (res: HttpResponse) =>
        check(!res.text.includes(number), `${describeRequest(res)} answered ${res.status} with the full account number (ending ${number.slice(-4)}) in its body (only the last four digits may be exposed)`);

      const createdRes = await ctx.call('createExternalAccount', { body });
      const created = jsonOf(createdRes);
      const id = idOf(created);
      noFullNumber(createdRes);
      check(created['account_number_last4'] === number.slice(-4), `external account ${id} shows account_number_last4 ${JSON.stringify(created['account_number_last4'])}; the number ends ${number.slice(-4)}`);
      const readRes = await ctx.call('getExternalAccount', { pathParams: { external_account_id: id } });
      const read = jsonOf(readRes);
      noFullNumber(readRes);
      check(read['account_number_last4'] === number.slice(-4), `GET ${id} shows account_number_last4 ${JSON.stringify(read['account_number_last4'])}`);
      const { item } = await findInList(ctx, 'listExternalAccounts', { query: { customer_id: cid } }, (e) => e['id'] === id);
      check(item !== undefined, `external account ${id} is not listed by GET /external-accounts?customer_id=${cid}`);
      check(!JSON.stringify(item).includes(number), `the listed external account ${id} carries the full account number (ending ${number.slice(-4)})`);

      const removedRes = await ctx.call('deleteExternalAccount', { pathParams: { external_account_id: id } });
      const removed = jsonOf(removedRes);
      noFullNumber(removedRes);
      check(removed['status'] === 'removed', `DELETE ${id} answered status ${JSON.stringify(removed['status'])}, not removed`);
      const twice = await ctx.call('deleteExternalAccount', { pathParams: { external_account_id: id } });
      check(twice.status === 409, `removing ${id} a second time answered ${twice.status}; expected 409`);

      const sid = idOf(source);
      const before = await balanceOf(ctx, sid);
      const transfer = await ctx.call('createTransfer', { body: transferCreate(ctx.config.label, sid, { type: 'external_account', external_account_id: id }, '5.00') });
      check(transfer.status === 422, `a transfer to the removed external account ${id} answered ${transfer.status}; expected 422`);
      const after = await balanceOf(ctx, sid);
      check(after === before, `the refused transfer to a removed external account moved money: ${sid} went from ${show(before)} to ${show(after)}`);
    },
  },
];

await defineSuite('external-accounts', flows);
