/**
 * Transfers: internal (completes at once), external (processing, settles right after answering; exactly 13.13
 * fails with beneficiary_bank_rejected and the amount is returned), and USD to a USDC/USDT wallet at 1:1.
 */
import { formatMinor, toMinor } from '../money.js';
import { unprocessable } from '../problem.js';
import { newId, type TransferRec } from '../store.js';
import {
  applyReadOnly,
  creditWallet,
  emit,
  find,
  listOf,
  metadataOf,
  now,
  ok,
  optionalParam,
  param,
  postToAccount,
  referenced,
  STABLECOINS,
  created,
  type Context,
  type Handlers,
} from './context.js';
import type { Schema } from '../wire.js';

export const FAILING_EXTERNAL_AMOUNT = '13.13';

export type TransferView = Schema<'Transfer'>;

type TransferCreate = Schema<'TransferCreate'>;

export function transferView(t: TransferRec): TransferView {
  return {
    id: t.id,
    object: 'transfer',
    source_account_id: t.source_account_id,
    destination: { ...t.destination },
    amount: t.amount,
    currency: t.currency,
    description: t.description,
    status: t.status,
    failure_reason: t.failure_reason,
    metadata: { ...t.metadata },
    created_at: t.created_at,
    updated_at: t.updated_at,
    completed_at: t.completed_at,
  };
}

const mismatch = (detail: string, field: string) => unprocessable('currency_mismatch', 'Currency mismatch', detail, field);

/** External settlement, right after the transfer was answered. */
function settleExternal(ctx: Context, t: TransferRec, minor: bigint): void {
  if (ctx.faults.has('transfer-external-stuck')) return;
  const at = now();
  t.updated_at = at;
  if (t.amount === FAILING_EXTERNAL_AMOUNT) {
    t.status = 'failed';
    t.failure_reason = 'beneficiary_bank_rejected';
    const source = ctx.tenant.accounts.get(t.source_account_id)!;
    postToAccount(ctx, source, 'credit', minor, `Transfer ${t.id} returned: beneficiary bank rejected`, { type: 'transfer', id: t.id });
    emit(ctx, 'transfer.failed', transferView(t));
  } else {
    t.status = 'completed';
    t.completed_at = at;
    emit(ctx, 'transfer.completed', transferView(t));
  }
}

export const transfers: Handlers = {
  createTransfer: {
    run(ctx) {
      const b = ctx.body as TransferCreate;
      const source = referenced(ctx.tenant.accounts, b.source_account_id, 'account', '/source_account_id');
      if (b.currency !== source.currency) {
        throw mismatch(`The transfer currency must be the source account's (${source.currency}).`, '/currency');
      }
      const minor = toMinor(b.amount);
      const dest = b.destination;
      const account = dest.type === 'account' ? referenced(ctx.tenant.accounts, dest.account_id, 'account', '/destination/account_id') : undefined;
      const external =
        dest.type === 'external_account'
          ? referenced(ctx.tenant.externalAccounts, dest.external_account_id, 'external account', '/destination/external_account_id')
          : undefined;
      const wallet = dest.type === 'wallet' ? referenced(ctx.tenant.wallets, dest.wallet_id, 'wallet', '/destination/wallet_id') : undefined;
      if (account) {
        if (account.id === source.id) {
          throw unprocessable('same_account', 'Same account', 'The destination must be another account.', '/destination/account_id');
        }
        if (account.currency !== source.currency) {
          throw mismatch(`Account ${account.id} holds ${account.currency}; the transfer is in ${source.currency}.`, '/destination/account_id');
        }
      }
      if (external) {
        if (external.status === 'removed') {
          throw unprocessable('external_account_removed', 'External account removed', `External account ${external.id} was removed.`, '/destination/external_account_id');
        }
        if (external.currency !== source.currency) {
          throw mismatch(`External account ${external.id} holds ${external.currency}; the transfer is in ${source.currency}.`, '/destination/external_account_id');
        }
      }
      if (wallet && !(source.currency === 'USD' && STABLECOINS.has(wallet.asset))) {
        throw unprocessable(
          'unsupported_conversion',
          'Unsupported conversion',
          `Only USD accounts can fund USDC or USDT wallets (1:1); wallet ${wallet.id} holds ${wallet.asset}.`,
          '/destination/wallet_id',
        );
      }
      if (minor > source.balance && !ctx.faults.has('transfer-overdraft')) {
        throw unprocessable(
          'insufficient_funds',
          'Insufficient funds',
          `Account ${source.id} holds ${formatMinor(source.balance)} ${source.currency}; ${formatMinor(minor)} ${source.currency} was requested.`,
          '/amount',
        );
      }
      const at = now();
      const t: TransferRec = applyReadOnly(ctx, {
        id: newId('tr'),
        seq: ctx.store.nextSeq(),
        source_account_id: source.id,
        destination: { ...dest },
        amount: formatMinor(minor),
        currency: source.currency,
        description: b.description ?? null,
        status: external ? 'processing' : 'completed',
        failure_reason: null,
        metadata: metadataOf(b),
        created_at: at,
        updated_at: at,
        completed_at: external ? null : at,
      });
      ctx.tenant.transfers.set(t.id, t);
      const ref = { type: 'transfer' as const, id: t.id };
      if (account) {
        postToAccount(ctx, source, 'debit', minor, `Transfer ${t.id} to ${account.id}`, ref);
        if (!ctx.faults.has('transfer-no-credit')) postToAccount(ctx, account, 'credit', minor, `Transfer ${t.id} from ${source.id}`, ref);
      } else if (wallet) {
        postToAccount(ctx, source, 'debit', minor, `Transfer ${t.id} to wallet ${wallet.id}`, ref);
        creditWallet(ctx, wallet, minor, `Transfer ${t.id} from ${source.id} (${source.currency} to ${wallet.asset} 1:1)`, ref);
      } else if (external) {
        postToAccount(ctx, source, 'debit', minor, `Transfer ${t.id} to external account ${external.id}`, ref);
      }
      emit(ctx, 'transfer.created', transferView(t));
      if (external) ctx.after(() => settleExternal(ctx, t, minor));
      else emit(ctx, 'transfer.completed', transferView(t));
      return created(ctx, transferView(t), `/transfers/${t.id}`);
    },
  },

  listTransfers: {
    run(ctx) {
      const accountId = optionalParam(ctx, 'account_id');
      const status = optionalParam(ctx, 'status');
      const match = (t: TransferRec): boolean =>
        (accountId === undefined || t.source_account_id === accountId || (t.destination.type === 'account' && t.destination.account_id === accountId)) &&
        (status === undefined || t.status === status);
      return ok(listOf(ctx, [...ctx.tenant.transfers.values()].filter(match), transferView, (x) => [...x.transfers.values()].filter(match)));
    },
  },

  getTransfer: {
    run: (ctx) => ok(transferView(find(ctx, (t) => t.transfers, param(ctx, 'transfer_id'), 'transfer'))),
  },
};
