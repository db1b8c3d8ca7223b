/** Crypto wallets for customers with the crypto_wallets feature, on the supported asset/network pairs. */
import { randomBytes } from 'node:crypto';
import { unprocessable } from '../problem.js';
import { newId, type WalletRec } from '../store.js';
import { applyReadOnly, created, emit, find, listOf, metadataOf, now, ok, optionalParam, param, referenced, walletBalance, type Handlers } from './context.js';
import { isActive } from './features.js';
import type { Schema } from '../wire.js';

export const SUPPORTED_NETWORKS: Record<string, readonly string[]> = {
  BTC: ['bitcoin'],
  ETH: ['ethereum'],
  USDC: ['ethereum', 'polygon', 'solana'],
  USDT: ['ethereum', 'tron'],
};

export type WalletView = Schema<'Wallet'>;

type WalletCreate = Schema<'WalletCreate'>;

export function walletView(w: WalletRec): WalletView {
  return {
    id: w.id,
    object: 'wallet',
    customer_id: w.customer_id,
    asset: w.asset,
    network: w.network,
    address: w.address,
    balance: walletBalance(w),
    status: w.status,
    label: w.label,
    metadata: { ...w.metadata },
    created_at: w.created_at,
    updated_at: w.updated_at,
  };
}

function pick(alphabet: string, n: number): string {
  let out = '';
  for (const b of randomBytes(n)) out += alphabet[b % alphabet.length];
  return out;
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** An address of the network's usual shape (never a real one: random). */
function newAddress(network: string): string {
  switch (network) {
    case 'bitcoin':
      return `bc1q${pick('qpzry9x8gf2tvdw0s3jn54khce6mua7l', 38)}`;
    case 'solana':
      return pick(BASE58, 44);
    case 'tron':
      return `T${pick(BASE58, 33)}`;
    default: // ethereum, polygon: EVM
      return `0x${randomBytes(20).toString('hex')}`;
  }
}

export const wallets: Handlers = {
  createWallet: {
    run(ctx) {
      const b = ctx.body as WalletCreate;
      const customer = referenced(ctx.tenant.customers, b.customer_id, 'customer', '/customer_id');
      if (!SUPPORTED_NETWORKS[b.asset]?.includes(b.network) && !ctx.faults.has('wallet-any-network')) {
        throw unprocessable(
          'unsupported_network',
          'Unsupported network',
          `${b.asset} is not supported on ${b.network}; supported: ${(SUPPORTED_NETWORKS[b.asset] ?? []).join(', ')}.`,
          '/network',
        );
      }
      if (!isActive(ctx.tenant, customer.id, 'crypto_wallets')) {
        throw unprocessable('feature_not_active', 'Feature not active', `The crypto_wallets feature is not active for customer ${customer.id}.`, '/customer_id');
      }
      const at = now();
      const w: WalletRec = applyReadOnly(
        ctx,
        {
          id: newId('wal'),
          seq: ctx.store.nextSeq(),
          customer_id: customer.id,
          asset: b.asset,
          network: b.network,
          address: newAddress(b.network),
          balance: 0n,
          status: 'active',
          label: b.label ?? null,
          metadata: metadataOf(b),
          created_at: at,
          updated_at: at,
        },
        { balance: 8 },
      );
      ctx.tenant.wallets.set(w.id, w);
      emit(ctx, 'wallet.created', walletView(w));
      return created(ctx, walletView(w), `/wallets/${w.id}`);
    },
  },

  listWallets: {
    run(ctx) {
      const customerId = optionalParam(ctx, 'customer_id');
      const match = (w: WalletRec): boolean => customerId === undefined || w.customer_id === customerId;
      return ok(listOf(ctx, [...ctx.tenant.wallets.values()].filter(match), walletView, (t) => [...t.wallets.values()].filter(match)));
    },
  },

  getWallet: {
    run: (ctx) => ok(walletView(find(ctx, (t) => t.wallets, param(ctx, 'wallet_id'), 'wallet'))),
  },
};
