/** Cards: issued active for a customer with the cards feature on one of their accounts; active ⇄ frozen. */
import { conflict, unprocessable } from '../problem.js';
import { newId, randomDigits, type CardRec } from '../store.js';
import { applyReadOnly, created, emit, find, listOf, metadataOf, now, ok, optionalParam, param, referenced, type Context, type Handlers } from './context.js';
import { isActive } from './features.js';
import type { FaultSet } from '../faults.js';
import type { Schema } from '../wire.js';

export type CardView = Schema<'Card'>;

type CardCreate = Schema<'CardCreate'>;

export function cardView(c: CardRec, faults: FaultSet): CardView {
  return {
    id: c.id,
    object: 'card',
    customer_id: c.customer_id,
    account_id: c.account_id,
    type: c.type,
    status: c.status,
    brand: c.brand,
    last4: c.pan.slice(-4),
    expiry_month: c.expiry_month,
    expiry_year: c.expiry_year,
    cardholder_name: c.cardholder_name,
    metadata: faults.has('card-full-number') ? { ...c.metadata, pan: c.pan } : { ...c.metadata },
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

/** A Visa-like 16-digit number with a valid Luhn check digit. */
function newPan(): string {
  const body = `4${randomDigits(14)}`;
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}

function transition(ctx: Context, from: CardRec['status'], to: CardRec['status']): CardRec {
  const card = find(ctx, (t) => t.cards, param(ctx, 'card_id'), 'card');
  const action = to === 'frozen' ? 'freeze' : 'unfreeze';
  if (card.status !== from) {
    if (ctx.faults.has('card-transition-unchecked')) return card;
    throw conflict('invalid_transition', 'Invalid state transition', `Card ${card.id} is ${card.status}; ${action} is allowed from ${from} only.`);
  }
  card.status = to;
  card.updated_at = now();
  emit(ctx, to === 'frozen' ? 'card.frozen' : 'card.unfrozen', cardView(card, new Set()));
  return card;
}

export const cards: Handlers = {
  issueCard: {
    run(ctx) {
      const b = ctx.body as CardCreate;
      const customer = referenced(ctx.tenant.customers, b.customer_id, 'customer', '/customer_id');
      const account = referenced(ctx.tenant.accounts, b.account_id, 'account', '/account_id');
      if (account.customer_id !== customer.id) {
        throw unprocessable('account_not_owned', 'Account not owned', `Account ${account.id} does not belong to customer ${customer.id}.`, '/account_id');
      }
      if (!isActive(ctx.tenant, customer.id, 'cards') && !ctx.faults.has('card-without-feature')) {
        throw unprocessable('feature_not_active', 'Feature not active', `The cards feature is not active for customer ${customer.id}.`, '/customer_id');
      }
      const at = now();
      const issued = new Date();
      const c: CardRec = applyReadOnly(ctx, {
        id: newId('card'),
        seq: ctx.store.nextSeq(),
        customer_id: customer.id,
        account_id: account.id,
        type: b.type,
        status: 'active',
        brand: 'visa',
        pan: newPan(),
        expiry_month: issued.getUTCMonth() + 1,
        expiry_year: issued.getUTCFullYear() + 3,
        cardholder_name: b.cardholder_name ?? `${customer.first_name} ${customer.last_name}`.toUpperCase().slice(0, 26),
        shipping_address: b.shipping_address ? { ...b.shipping_address } : null,
        metadata: metadataOf(b),
        created_at: at,
        updated_at: at,
      });
      ctx.tenant.cards.set(c.id, c);
      emit(ctx, 'card.issued', cardView(c, new Set()));
      return created(ctx, cardView(c, ctx.faults), `/cards/${c.id}`);
    },
  },

  listCards: {
    run(ctx) {
      const customerId = optionalParam(ctx, 'customer_id');
      const accountId = optionalParam(ctx, 'account_id');
      const match = (c: CardRec): boolean => (customerId === undefined || c.customer_id === customerId) && (accountId === undefined || c.account_id === accountId);
      return ok(listOf(ctx, [...ctx.tenant.cards.values()].filter(match), (c) => cardView(c, ctx.faults), (t) => [...t.cards.values()].filter(match)));
    },
  },

  getCard: {
    run: (ctx) => ok(cardView(find(ctx, (t) => t.cards, param(ctx, 'card_id'), 'card'), ctx.faults)),
  },

  freezeCard: {
    run: (ctx) => ok(cardView(transition(ctx, 'active', 'frozen'), ctx.faults)),
  },

  unfreezeCard: {
    run: (ctx) => ok(cardView(transition(ctx, 'frozen', 'active'), ctx.faults)),
  },
};
