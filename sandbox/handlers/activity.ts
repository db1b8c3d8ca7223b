/** Transactions (written by every money movement) and the Webhooks group: events and delivery history. */
import { notFound } from '../problem.js';
import type { DeliveryRec, EventRec, TenantState, TransactionRec } from '../store.js';
import { find, listOf, ok, optionalParam, param, type Context, type Handlers } from './context.js';
import type { Schema } from '../wire.js';

export type TransactionView = Schema<'Transaction'>;

export type EventView = Schema<'Event'>;

export type DeliveryView = Schema<'WebhookDelivery'>;

export function transactionView(t: TransactionRec): TransactionView {
  return {
    id: t.id,
    object: 'transaction',
    account_id: t.account_id,
    wallet_id: t.wallet_id,
    direction: t.direction,
    amount: t.amount,
    currency: t.currency,
    balance_after: t.balance_after,
    description: t.description,
    source: { ...t.source },
    created_at: t.created_at,
  };
}

/** The event exactly as delivered: the stored bytes parse back to the same object. */
function eventView(ctx: Context, e: EventRec): EventView {
  const view = JSON.parse(e.body) as EventView;
  // event-details-differ: the API re-stamps the event instead of serving what was delivered.
  if (ctx.faults.has('event-details-differ')) view.created_at = new Date(Date.parse(view.created_at) + 1000).toISOString();
  return view;
}

function deliveryView(d: DeliveryRec): DeliveryView {
  return {
    id: d.id,
    object: 'webhook_delivery',
    event_id: d.event_id,
    event_type: d.event_type,
    url: d.url,
    status: d.status,
    attempts: d.attempts.map((a) => ({ ...a })),
    next_retry_at: d.next_retry_at,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

/** The deliveries the history shows: all of them, or (webhooks-history-incomplete) every other one. */
function visibleDeliveries(ctx: Context, tenant: TenantState): DeliveryRec[] {
  const all = [...tenant.deliveries.values()];
  return ctx.faults.has('webhooks-history-incomplete') ? all.filter((_, i) => i % 2 === 0) : all;
}

export const activity: Handlers = {
  listTransactions: {
    run(ctx) {
      const ignore = ctx.faults.has('transactions-filter-ignored');
      const accountId = ignore ? undefined : optionalParam(ctx, 'account_id');
      const walletId = ignore ? undefined : optionalParam(ctx, 'wallet_id');
      const match = (t: TransactionRec): boolean => (accountId === undefined || t.account_id === accountId) && (walletId === undefined || t.wallet_id === walletId);
      return ok(listOf(ctx, [...ctx.tenant.transactions.values()].filter(match), transactionView, (x) => [...x.transactions.values()].filter(match)));
    },
  },

  getTransaction: {
    run: (ctx) => ok(transactionView(find(ctx, (t) => t.transactions, param(ctx, 'transaction_id'), 'transaction'))),
  },

  listWebhookEvents: {
    run(ctx) {
      const type = optionalParam(ctx, 'type');
      const match = (e: EventRec): boolean => type === undefined || e.type === type;
      return ok(listOf(ctx, [...ctx.tenant.events.values()].filter(match), (e) => eventView(ctx, e), (t) => [...t.events.values()].filter(match)));
    },
  },

  getWebhookEvent: {
    run(ctx) {
      const id = param(ctx, 'event_id');
      const e = find(ctx, (t) => t.events, id, 'event');
      if (ctx.faults.has('events-not-viewable')) throw notFound('event', id);
      return ok(eventView(ctx, e));
    },
  },

  listWebhookDeliveries: {
    run(ctx) {
      const eventId = optionalParam(ctx, 'event_id');
      const status = optionalParam(ctx, 'status');
      const match = (d: DeliveryRec): boolean => (eventId === undefined || d.event_id === eventId) && (status === undefined || d.status === status);
      return ok(listOf(ctx, visibleDeliveries(ctx, ctx.tenant).filter(match), deliveryView, (t) => visibleDeliveries(ctx, t).filter(match)));
    },
  },

  getWebhookDelivery: {
    run(ctx) {
      const id = param(ctx, 'delivery_id');
      const d = find(ctx, (t) => t.deliveries, id, 'delivery');
      const owner = ctx.store.ownerOf('deliveries', d.id)!;
      if (!visibleDeliveries(ctx, owner).includes(d)) throw notFound('delivery', id);
      return ok(deliveryView(d));
    },
  },
};
