/** What a handler gets, what it returns, and the helpers every group shares. */
import type { Operation, SpecDocument } from '../../src/catalogue/index.js';
import type { EventBus, EventObject, EventType } from '../events.js';
import type { FaultSet } from '../faults.js';
import { formatMinor, toMinor } from '../money.js';
import { notFound, unprocessable } from '../problem.js';
import type { Answer, ListPage, OperationId } from '../wire.js';
import {
  newestFirst,
  newId,
  paginate,
  type AccountRec,
  type Metadata,
  type TenantState,
  type TransactionRec,
  type WalletRec,
  type Store,
} from '../store.js';

export interface Context {
  spec: SpecDocument;
  store: Store;
  tenant: TenantState;
  op: Operation;
  /** Path and query parameters, validated and typed by their schemas. */
  params: Record<string, unknown>;
  /** The request body, validated against the operation's schema. */
  body: unknown;
  faults: FaultSet;
  events: EventBus;
  /** Path prefix of Location headers: "/v1" (or "" under the unversioned-base-path fault). */
  basePath: string;
  /** Read-only fields a create body carried; applied only under the mass-assignment fault. */
  readOnly: Record<string, unknown> | undefined;
  /**
   * Work that happens right after the answer is made (a settlement, a KYC decision): it runs once the response
   * body is fixed and before any later request is processed, so the answer shows the state before it.
   */
  after(fn: () => void): void;
}

export interface Result<Body = unknown> {
  status: number;
  body: Body;
  /** Absolute path of a created resource. */
  location?: string;
}

export interface Handler<Body = unknown> {
  run(ctx: Context): Result<Body>;
  /** Adjusts the body before validation (the format faults live here). */
  prepare?(body: unknown, faults: FaultSet): unknown;
}

/** Handlers by operationId: each answers what the contract says its operation answers on success. */
export type Handlers = { [Op in OperationId]?: Handler<Answer<Op>> };

export const now = (): string => new Date().toISOString();

export function param(ctx: Context, name: string): string {
  const v = ctx.params[name];
  if (typeof v !== 'string') throw new TypeError(`parameter ${name} missing`);
  return v;
}

export function optionalParam(ctx: Context, name: string): string | undefined {
  const v = ctx.params[name];
  return typeof v === 'string' ? v : undefined;
}

export const ok = <Body>(body: Body): Result<Body> => ({ status: 200, body });

export function created<Body>(ctx: Context, body: Body, path?: string): Result<Body> {
  return { status: 201, body, ...(path ? { location: `${ctx.basePath}${path}` } : {}) };
}

/**
 * A record of the caller's tenant by id, or 404. Under tenant-isolation-broken a GET also finds other tenants'
 * records; under unknown-id-500 a GET of an id that exists nowhere crashes (500), as an unchecked lookup would.
 */
export function find<T>(ctx: Context, pick: (t: TenantState) => Map<string, T>, id: string, what: string): T {
  const own = pick(ctx.tenant).get(id);
  if (own) return own;
  const isGet = ctx.op.method === 'GET';
  const elsewhere = [...ctx.store.tenants.values()].map((t) => pick(t).get(id)).find((r) => r !== undefined);
  if (isGet && elsewhere !== undefined && ctx.faults.has('tenant-isolation-broken')) return elsewhere;
  if (isGet && elsewhere === undefined && ctx.faults.has('unknown-id-500')) {
    // The bug this fault models: the record is dereferenced before anyone checks that it exists.
    throw new TypeError("Cannot read properties of undefined (reading 'tenant_id')");
  }
  throw notFound(what, id);
}

/** A record a request body refers to: unknown (or another tenant's) is a 422 naming the field. */
export function referenced<T>(map: Map<string, T>, id: string, what: string, field: string): T {
  const rec = map.get(id);
  if (!rec) throw unprocessable(`${what.replace(/ /g, '_')}_not_found`, `Unknown ${what}`, `No ${what} ${id} exists.`, field);
  return rec;
}

export function pageRequest(ctx: Context): { limit: number; cursor: string | undefined } {
  const limit = typeof ctx.params['limit'] === 'number' ? ctx.params['limit'] : 20;
  return { limit, cursor: optionalParam(ctx, 'cursor') };
}

/** A list page of records (newest first), rendered by `view`. */
export function listOf<T extends { seq: number }, V>(
  ctx: Context,
  records: Iterable<T>,
  view: (r: T) => V,
  foreign?: (t: TenantState) => Iterable<T>,
): ListPage<V> {
  const page = paginate(newestFirst(records), pageRequest(ctx), ctx.faults, foreign ? () => ctx.store.others(ctx.tenant).flatMap((t) => newestFirst(foreign(t))) : undefined);
  return { object: 'list', data: page.data.map(view), has_more: page.has_more, next_cursor: page.next_cursor };
}

export function emit(ctx: Context, type: EventType, object: EventObject): void {
  ctx.events.emit(ctx.tenant, type, object);
}

export function metadataOf(body: { metadata?: Metadata }): Metadata {
  return { ...(body.metadata ?? {}) };
}

/** mass-assignment: read-only fields of a create body are applied to the new record when they fit. */
export function applyReadOnly<T extends object>(ctx: Context, rec: T, scales: Record<string, number> = {}): T {
  if (!ctx.readOnly) return rec;
  const target = rec as Record<string, unknown>;
  for (const [k, v] of Object.entries(ctx.readOnly)) {
    if (k === 'object') continue;
    const field = k === 'available_balance' ? 'balance' : k;
    if (!(field in target)) continue;
    if (typeof target[field] === 'bigint' && typeof v === 'string') {
      // A smuggled amount with more places than the field holds is refused like any malformed amount, not a crash.
      try {
        target[field] = toMinor(v, scales[field] ?? 2);
      } catch {
        continue;
      }
    }
    else if (typeof target[field] !== 'bigint') target[field] = v;
  }
  return rec;
}

// --- Money movements -------------------------------------------------------------------------------------------

export function writeTransaction(
  ctx: Context,
  entry: Omit<TransactionRec, 'id' | 'seq' | 'created_at'>,
): TransactionRec {
  const rec: TransactionRec = { id: newId('txn'), seq: ctx.store.nextSeq(), created_at: now(), ...entry };
  ctx.tenant.transactions.set(rec.id, rec);
  return rec;
}

/** Moves `minor` (scale 2) into or out of an account and writes its transaction. */
export function postToAccount(
  ctx: Context,
  account: AccountRec,
  direction: 'credit' | 'debit',
  minor: bigint,
  description: string,
  source: TransactionRec['source'],
): void {
  account.balance += direction === 'credit' ? minor : -minor;
  account.updated_at = now();
  writeTransaction(ctx, {
    account_id: account.id,
    wallet_id: null,
    direction,
    amount: formatMinor(minor),
    currency: account.currency,
    balance_after: formatMinor(account.balance),
    description,
    source,
  });
}

export const STABLECOINS = new Set(['USDC', 'USDT']);

/** Wallet balances are held at scale 8; stablecoins are shown with 2 places, other assets with 8. */
export function walletBalance(w: WalletRec): string {
  return STABLECOINS.has(w.asset) ? formatMinor(w.balance / 1_000_000n, 2) : formatMinor(w.balance, 8);
}

export function creditWallet(ctx: Context, wallet: WalletRec, minorFiat: bigint, description: string, source: TransactionRec['source']): void {
  wallet.balance += minorFiat * 1_000_000n;
  wallet.updated_at = now();
  writeTransaction(ctx, {
    account_id: null,
    wallet_id: wallet.id,
    direction: 'credit',
    amount: formatMinor(minorFiat),
    currency: wallet.asset,
    balance_after: walletBalance(wallet),
    description,
    source,
  });
}
