/**
 * FX: a fixed rate table (USD to each currency; every other pair through USD), quotes valid 60 seconds and usable
 * once, trades that debit the source and credit the target at the quoted rate (rounded half-up to the cent).
 */
import { convert, divRoundHalfUp, formatMinor, formatRate, RATE_SCALE, toMinor } from '../money.js';
import { conflict, unprocessable } from '../problem.js';
import { newId, paginate, type QuoteRec, type TradeRec } from '../store.js';
import { applyReadOnly, created, emit, find, listOf, now, optionalParam, ok, pageRequest, param, postToAccount, referenced, type Handlers } from './context.js';
import { isActive } from './features.js';
import type { Schema } from '../wire.js';

export const CURRENCIES = ['USD', 'EUR', 'GBP', 'NGN', 'KES', 'GHS'] as const;

/** Units of each currency per 1 USD. */
export const USD_RATES: Record<(typeof CURRENCIES)[number], string> = {
  USD: '1.0000',
  EUR: '0.9200',
  GBP: '0.7900',
  NGN: '1550.0000',
  KES: '129.5000',
  GHS: '15.2000',
};

export const QUOTE_TTL_MS = 60_000;

const usd = (c: string): bigint => toMinor(USD_RATES[c as keyof typeof USD_RATES], RATE_SCALE);

/** base → quote at scale 8: quote per USD divided by base per USD, rounded half-up. */
export function rateOf(base: string, quote: string): bigint {
  return divRoundHalfUp(usd(quote) * 10n ** BigInt(RATE_SCALE), usd(base));
}

export type FxRateView = Schema<'FxRate'>;

export type FxQuoteView = Schema<'FxQuote'>;

export type FxTradeView = Schema<'FxTrade'>;

type QuoteCreate = Schema<'FxQuoteCreate'>;

type TradeCreate = Schema<'FxTradeCreate'>;

/** The table in display order; `seq` only orders the pages. */
const PAIRS = CURRENCIES.flatMap((base) => CURRENCIES.filter((q) => q !== base).map((quote) => ({ base, quote }))).map((p, i, all) => ({
  ...p,
  seq: all.length - i,
}));

function quoteView(q: QuoteRec): FxQuoteView {
  return {
    id: q.id,
    object: 'fx_quote',
    source_currency: q.source_currency,
    target_currency: q.target_currency,
    source_amount: q.source_amount,
    target_amount: q.target_amount,
    rate: formatRate(q.rate),
    used: q.used,
    metadata: { ...q.metadata },
    expires_at: q.expires_at,
    created_at: q.created_at,
  };
}

export function tradeView(t: TradeRec): FxTradeView {
  return {
    id: t.id,
    object: 'fx_trade',
    quote_id: t.quote_id,
    source_account_id: t.source_account_id,
    target_account_id: t.target_account_id,
    source_currency: t.source_currency,
    target_currency: t.target_currency,
    source_amount: t.source_amount,
    target_amount: t.target_amount,
    rate: t.rate,
    status: t.status,
    metadata: { ...t.metadata },
    created_at: t.created_at,
    completed_at: t.completed_at,
  };
}

export const fx: Handlers = {
  listFxRates: {
    run(ctx) {
      const base = optionalParam(ctx, 'base');
      const quote = optionalParam(ctx, 'quote');
      const rows = ctx.faults.has('fx-rates-empty') ? [] : PAIRS.filter((p) => (base === undefined || p.base === base) && (quote === undefined || p.quote === quote));
      const page = paginate(rows, pageRequest(ctx), ctx.faults);
      const timestamp = now();
      const data: FxRateView[] = page.data.map((p) => ({ object: 'fx_rate', base: p.base, quote: p.quote, rate: formatRate(rateOf(p.base, p.quote)), timestamp }));
      return ok({ object: 'list', data, has_more: page.has_more, next_cursor: page.next_cursor });
    },
  },

  createFxQuote: {
    run(ctx) {
      const b = ctx.body as QuoteCreate;
      if (b.source_currency === b.target_currency) {
        throw unprocessable('same_currency', 'Same currency', 'The source and target currencies must differ.', '/target_currency');
      }
      const rate = rateOf(b.source_currency, b.target_currency);
      const source = toMinor(b.source_amount);
      const createdAt = new Date();
      const q: QuoteRec = applyReadOnly(ctx, {
        id: newId('fxq'),
        seq: ctx.store.nextSeq(),
        source_currency: b.source_currency,
        target_currency: b.target_currency,
        source_amount: formatMinor(source),
        target_amount: formatMinor(convert(source, rate)),
        rate,
        expires_at: new Date(createdAt.getTime() + QUOTE_TTL_MS).toISOString(),
        created_at: createdAt.toISOString(),
        used: false,
        metadata: { ...(b.metadata ?? {}) },
      }, { rate: 8 });
      ctx.tenant.quotes.set(q.id, q);
      return created(ctx, quoteView(q), `/fx/quotes/${q.id}`);
    },
  },

  listFxQuotes: {
    run: (ctx) => ok(listOf(ctx, [...ctx.tenant.quotes.values()], quoteView, (x) => [...x.quotes.values()])),
  },

  getFxQuote: {
    run: (ctx) => ok(quoteView(find(ctx, (t) => t.quotes, param(ctx, 'quote_id'), 'quote'))),
  },

  createFxTrade: {
    run(ctx) {
      const b = ctx.body as TradeCreate;
      const q = referenced(ctx.tenant.quotes, b.quote_id, 'quote', '/quote_id');
      if (q.used && !ctx.faults.has('fx-quote-reuse')) throw conflict('quote_used', 'Quote already used', `Quote ${q.id} was already traded.`);
      if (Date.now() > Date.parse(q.expires_at)) {
        throw unprocessable('quote_expired', 'Quote expired', `Quote ${q.id} expired at ${q.expires_at}.`, '/quote_id');
      }
      const source = referenced(ctx.tenant.accounts, b.source_account_id, 'account', '/source_account_id');
      const target = referenced(ctx.tenant.accounts, b.target_account_id, 'account', '/target_account_id');
      if (source.currency !== q.source_currency) {
        throw unprocessable('currency_mismatch', 'Currency mismatch', `Account ${source.id} holds ${source.currency}; the quote sells ${q.source_currency}.`, '/source_account_id');
      }
      if (target.currency !== q.target_currency) {
        throw unprocessable('currency_mismatch', 'Currency mismatch', `Account ${target.id} holds ${target.currency}; the quote buys ${q.target_currency}.`, '/target_account_id');
      }
      if (!isActive(ctx.tenant, source.customer_id, 'fx')) {
        throw unprocessable('feature_not_active', 'Feature not active', `The fx feature is not active for customer ${source.customer_id}.`, '/source_account_id');
      }
      const sourceMinor = toMinor(q.source_amount);
      if (sourceMinor > source.balance) {
        throw unprocessable(
          'insufficient_funds',
          'Insufficient funds',
          `Account ${source.id} holds ${formatMinor(source.balance)} ${source.currency}; ${q.source_amount} ${source.currency} was requested.`,
          '/source_account_id',
        );
      }
      // fx-wrong-rate: a hidden 2% spread on the booked amount, while the trade still reports the quoted rate.
      const targetMinor = ctx.faults.has('fx-wrong-rate') ? convert(sourceMinor, (q.rate * 98n) / 100n) : toMinor(q.target_amount);
      const at = now();
      const t: TradeRec = applyReadOnly(ctx, {
        id: newId('fxt'),
        seq: ctx.store.nextSeq(),
        quote_id: q.id,
        source_account_id: source.id,
        target_account_id: target.id,
        source_currency: q.source_currency,
        target_currency: q.target_currency,
        source_amount: q.source_amount,
        target_amount: formatMinor(targetMinor),
        rate: formatRate(q.rate),
        status: 'completed',
        metadata: { ...(b.metadata ?? {}) },
        created_at: at,
        completed_at: at,
      });
      q.used = true;
      ctx.tenant.trades.set(t.id, t);
      const ref = { type: 'fx_trade' as const, id: t.id };
      postToAccount(ctx, source, 'debit', sourceMinor, `FX trade ${t.id}: ${q.source_amount} ${q.source_currency} to ${q.target_currency}`, ref);
      postToAccount(ctx, target, 'credit', targetMinor, `FX trade ${t.id}: ${t.target_amount} ${q.target_currency} from ${q.source_currency}`, ref);
      emit(ctx, 'fx_trade.completed', tradeView(t));
      return created(ctx, tradeView(t), `/fx/trades/${t.id}`);
    },
  },

  listFxTrades: {
    run(ctx) {
      const accountId = optionalParam(ctx, 'account_id');
      const match = (t: TradeRec): boolean => accountId === undefined || t.source_account_id === accountId || t.target_account_id === accountId;
      return ok(listOf(ctx, [...ctx.tenant.trades.values()].filter(match), tradeView, (x) => [...x.trades.values()].filter(match)));
    },
  },

  getFxTrade: {
    run: (ctx) => ok(tradeView(find(ctx, (t) => t.trades, param(ctx, 'trade_id'), 'trade'))),
  },
};
