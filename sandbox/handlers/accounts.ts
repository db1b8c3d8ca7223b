/** Internal accounts (zero opening balance, 10-digit number) and external bank accounts (only last4 exposed). */
import { formatMinor, toMinor } from '../money.js';
import { conflict } from '../problem.js';
import { newId, randomDigits, type AccountRec, type ExternalAccountRec, type TenantState } from '../store.js';
import { applyReadOnly, created, emit, find, listOf, metadataOf, now, ok, optionalParam, param, referenced, type Handlers } from './context.js';
import type { FaultSet } from '../faults.js';
import type { Schema } from '../wire.js';

export type AccountView = Schema<'Account'>;

export type ExternalAccountView = Schema<'ExternalAccount'>;

type AccountCreate = Schema<'AccountCreate'>;

type ExternalAccountCreate = Schema<'ExternalAccountCreate'>;

export function accountView(a: AccountRec, faults: FaultSet): AccountView {
  const balance = formatMinor(a.balance);
  const view: AccountView = {
    id: a.id,
    object: 'account',
    customer_id: a.customer_id,
    currency: a.currency,
    type: a.type,
    nickname: a.nickname,
    status: a.status,
    balance,
    available_balance: balance,
    account_number: a.account_number,
    metadata: { ...a.metadata },
    created_at: a.created_at,
    updated_at: a.updated_at,
  };
  if (faults.has('schema-wrong-type')) (view as unknown as Record<string, unknown>)['balance'] = Number(balance);
  return view;
}

export function externalAccountView(e: ExternalAccountRec, faults: FaultSet): ExternalAccountView {
  return {
    id: e.id,
    object: 'external_account',
    customer_id: e.customer_id,
    account_holder_name: e.account_holder_name,
    bank_name: e.bank_name,
    country: e.country,
    currency: e.currency,
    account_number_last4: e.account_number.slice(-4),
    routing_number: e.routing_number,
    status: e.status,
    metadata: faults.has('external-account-full-number') ? { ...e.metadata, account_number: e.account_number } : { ...e.metadata },
    created_at: e.created_at,
    updated_at: e.updated_at,
  };
}

function newAccountNumber(tenant: TenantState): string {
  for (;;) {
    const n = randomDigits(10);
    if (n[0] !== '0' && !tenant.accountNumbers.has(n)) {
      tenant.accountNumbers.add(n);
      return n;
    }
  }
}

export const accounts: Handlers = {
  createAccount: {
    run(ctx) {
      const b = ctx.body as AccountCreate;
      const customer = referenced(ctx.tenant.customers, b.customer_id, 'customer', '/customer_id');
      const at = now();
      const a: AccountRec = applyReadOnly(ctx, {
        id: newId('acc'),
        seq: ctx.store.nextSeq(),
        customer_id: customer.id,
        currency: b.currency,
        type: b.type,
        nickname: b.nickname ?? null,
        status: 'active',
        balance: ctx.faults.has('account-nonzero-opening-balance') ? toMinor('100.00') : 0n,
        account_number: newAccountNumber(ctx.tenant),
        metadata: metadataOf(b),
        created_at: at,
        updated_at: at,
      });
      ctx.tenant.accounts.set(a.id, a);
      emit(ctx, 'account.created', accountView(a, new Set()));
      return created(ctx, accountView(a, ctx.faults), `/accounts/${a.id}`);
    },
  },

  listAccounts: {
    run(ctx) {
      const customerId = optionalParam(ctx, 'customer_id');
      const currency = optionalParam(ctx, 'currency');
      const match = (a: AccountRec): boolean => (customerId === undefined || a.customer_id === customerId) && (currency === undefined || a.currency === currency);
      const unfiltered = customerId === undefined && currency === undefined;
      const rows = unfiltered && ctx.faults.has('accounts-list-empty') ? [] : [...ctx.tenant.accounts.values()].filter(match);
      return ok(listOf(ctx, rows, (a) => accountView(a, ctx.faults), (t) => [...t.accounts.values()].filter(match)));
    },
  },

  getAccount: {
    run: (ctx) => ok(accountView(find(ctx, (t) => t.accounts, param(ctx, 'account_id'), 'account'), ctx.faults)),
  },

  createExternalAccount: {
    run(ctx) {
      const b = ctx.body as ExternalAccountCreate;
      const customer = referenced(ctx.tenant.customers, b.customer_id, 'customer', '/customer_id');
      const at = now();
      const e: ExternalAccountRec = applyReadOnly(ctx, {
        id: newId('ext'),
        seq: ctx.store.nextSeq(),
        customer_id: customer.id,
        account_holder_name: b.account_holder_name,
        bank_name: b.bank_name,
        country: b.country,
        currency: b.currency,
        account_number: b.account_number,
        routing_number: b.routing_number ?? null,
        status: 'active',
        metadata: metadataOf(b),
        created_at: at,
        updated_at: at,
      });
      ctx.tenant.externalAccounts.set(e.id, e);
      emit(ctx, 'external_account.created', externalAccountView(e, new Set()));
      return created(ctx, externalAccountView(e, ctx.faults), `/external-accounts/${e.id}`);
    },
  },

  listExternalAccounts: {
    run(ctx) {
      const customerId = optionalParam(ctx, 'customer_id');
      const match = (e: ExternalAccountRec): boolean => e.status === 'active' && (customerId === undefined || e.customer_id === customerId);
      return ok(
        listOf(ctx, [...ctx.tenant.externalAccounts.values()].filter(match), (e) => externalAccountView(e, ctx.faults), (t) =>
          [...t.externalAccounts.values()].filter(match),
        ),
      );
    },
  },

  getExternalAccount: {
    run: (ctx) => ok(externalAccountView(find(ctx, (t) => t.externalAccounts, param(ctx, 'external_account_id'), 'external account'), ctx.faults)),
  },

  deleteExternalAccount: {
    run(ctx) {
      const e = find(ctx, (t) => t.externalAccounts, param(ctx, 'external_account_id'), 'external account');
      if (e.status === 'removed') throw conflict('already_removed', 'Already removed', `External account ${e.id} is already removed.`);
      e.status = 'removed';
      e.updated_at = now();
      emit(ctx, 'external_account.removed', externalAccountView(e, new Set()));
      return ok(externalAccountView(e, ctx.faults));
    },
  },
};
