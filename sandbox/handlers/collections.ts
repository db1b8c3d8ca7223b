/**
 * Collections into an account. Card: settles in the request (4000000000000002 is declined). Bank transfer and
 * mobile money: pending, settled right after answering (a mobile-money phone ending in 0000 is unreachable).
 * Success credits the account and writes a credit transaction.
 */
import { formatMinor, toMinor } from '../money.js';
import { unprocessable } from '../problem.js';
import { newId, randomDigits, type CollectionMethodView, type CollectionRec } from '../store.js';
import { applyReadOnly, created, emit, find, listOf, metadataOf, now, ok, optionalParam, param, postToAccount, referenced, type Context, type Handlers } from './context.js';
import type { Schema } from '../wire.js';

export const DECLINED_CARD = '4000000000000002';
export const UNREACHABLE_PHONE_SUFFIX = '0000';

export type CollectionView = Schema<'Collection'>;


type CollectionCreate = Schema<'CollectionCreate'>;

export function collectionView(c: CollectionRec): CollectionView {
  return {
    id: c.id,
    object: 'collection',
    account_id: c.account_id,
    amount: c.amount,
    currency: c.currency,
    method: { ...c.method },
    status: c.status,
    failure_reason: c.failure_reason,
    description: c.description,
    metadata: { ...c.metadata },
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

function settle(ctx: Context, c: CollectionRec, failure: string | null): void {
  c.updated_at = now();
  if (failure) {
    c.status = 'failed';
    c.failure_reason = failure;
    emit(ctx, 'collection.failed', collectionView(c));
    return;
  }
  c.status = 'succeeded';
  // collections-no-credit: the asynchronous settlement path forgets the credit.
  const skipCredit = ctx.faults.has('collections-no-credit') && c.method.type !== 'card';
  if (!skipCredit) {
    const account = ctx.tenant.accounts.get(c.account_id)!;
    const label = c.method.type === 'card' ? 'Card' : c.method.type === 'bank_transfer' ? 'Bank transfer' : 'Mobile money';
    postToAccount(ctx, account, 'credit', toMinor(c.amount), `${label} collection ${c.id}`, { type: 'collection', id: c.id });
  }
  emit(ctx, 'collection.succeeded', collectionView(c));
}

export const collections: Handlers = {
  createCollection: {
    run(ctx) {
      const b = ctx.body as CollectionCreate;
      const account = referenced(ctx.tenant.accounts, b.account_id, 'account', '/account_id');
      if (b.currency !== account.currency) {
        throw unprocessable('currency_mismatch', 'Currency mismatch', `Account ${account.id} holds ${account.currency}; the collection is in ${b.currency}.`, '/currency');
      }
      const m = b.method;
      const method: CollectionMethodView =
        m.type === 'card'
          ? { type: 'card', card_last4: m.card.number.slice(-4) }
          : m.type === 'bank_transfer'
            ? { type: 'bank_transfer', payer_name: m.payer_name, reference: `FSAPI${randomDigits(10)}` }
            : { type: 'mobile_money', phone: m.phone, provider: m.provider };
      const at = now();
      const c: CollectionRec = applyReadOnly(ctx, {
        id: newId('col'),
        seq: ctx.store.nextSeq(),
        account_id: account.id,
        amount: formatMinor(toMinor(b.amount)),
        currency: account.currency,
        method,
        status: 'pending',
        failure_reason: null,
        description: b.description ?? null,
        metadata: metadataOf(b),
        created_at: at,
        updated_at: at,
      });
      ctx.tenant.collections.set(c.id, c);
      emit(ctx, 'collection.created', collectionView(c));
      if (m.type === 'card') {
        const declined = m.card.number === DECLINED_CARD && !ctx.faults.has('collections-decline-ignored');
        settle(ctx, c, declined ? 'card_declined' : null);
      } else {
        const failure = m.type === 'mobile_money' && m.phone.endsWith(UNREACHABLE_PHONE_SUFFIX) ? 'payer_unreachable' : null;
        ctx.after(() => settle(ctx, c, failure));
      }
      return created(ctx, collectionView(c), `/collections/${c.id}`);
    },
  },

  listCollections: {
    run(ctx) {
      const accountId = optionalParam(ctx, 'account_id');
      const match = (c: CollectionRec): boolean => accountId === undefined || c.account_id === accountId;
      return ok(listOf(ctx, [...ctx.tenant.collections.values()].filter(match), collectionView, (t) => [...t.collections.values()].filter(match)));
    },
  },

  getCollection: {
    run: (ctx) => ok(collectionView(find(ctx, (t) => t.collections, param(ctx, 'collection_id'), 'collection'))),
  },
};
