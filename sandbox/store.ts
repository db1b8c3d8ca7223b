/**
 * In-memory state, per tenant. Records keep internal fields (full numbers, minor units); the handlers render the
 * public views. Every record carries a global sequence number: lists are newest first by it, and cursors name it.
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from './problem.js';
import type { FaultSet } from './faults.js';
import type { Schema } from './wire.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type Metadata = Schema<'Metadata'>;
export type Address = Schema<'Address'>;

interface Base {
  id: string;
  seq: number;
  created_at: string;
}

export interface CustomerRec extends Base {
  first_name: string;
  last_name: string;
  middle_name: string | null;
  email: string;
  phone: string;
  type: Schema<'CustomerType'>;
  gender: Schema<'Gender'> | null;
  date_of_birth: string;
  address: Address;
  kyc_status: KycStatus;
  metadata: Metadata;
  updated_at: string;
  /** Set by the customer-not-stored fault: the read side never sees this customer. */
  unreadable?: boolean;
}

export type KycStatus = Schema<'KycStatus'>;

export interface KycRec extends Base {
  customer_id: string;
  status: KycStatus;
  id_type: Schema<'KycSubmission'>['id_type'] | null;
  id_number: string | null;
  document_ids: string[];
  rejection_reason: string | null;
  history: { status: KycStatus; at: string }[];
  submitted_at: string | null;
  decided_at: string | null;
  updated_at: string;
}

export interface DocumentRec extends Base {
  customer_id: string;
  type: Schema<'KycDocument'>['type'];
  side: NonNullable<Schema<'KycDocument'>['side']> | null;
  file_name: string;
  content_type: Schema<'KycDocument'>['content_type'];
  size_bytes: number;
  sha256: string;
}

export const FEATURE_NAMES = ['cards', 'crypto_wallets', 'fx'] as const satisfies readonly Schema<'FeatureName'>[];
export type FeatureName = Schema<'FeatureName'>;

export interface AccountRec extends Base {
  customer_id: string;
  currency: Schema<'Account'>['currency'];
  type: Schema<'Account'>['type'];
  nickname: string | null;
  status: Schema<'Account'>['status'];
  balance: bigint;
  account_number: string;
  metadata: Metadata;
  updated_at: string;
}

export interface ExternalAccountRec extends Base {
  customer_id: string;
  account_holder_name: string;
  bank_name: string;
  country: Schema<'CountryCode'>;
  currency: Schema<'ExternalAccount'>['currency'];
  account_number: string;
  routing_number: string | null;
  status: Schema<'ExternalAccount'>['status'];
  metadata: Metadata;
  updated_at: string;
}

export type TransferDestination = Schema<'TransferDestination'>;

export interface TransferRec extends Base {
  source_account_id: string;
  destination: TransferDestination;
  amount: string;
  currency: Schema<'Transfer'>['currency'];
  description: string | null;
  status: Schema<'TransferStatus'>;
  failure_reason: string | null;
  metadata: Metadata;
  updated_at: string;
  completed_at: string | null;
}

export interface CardRec extends Base {
  customer_id: string;
  account_id: string;
  type: Schema<'Card'>['type'];
  status: Schema<'CardStatus'>;
  brand: Schema<'Card'>['brand'];
  pan: string;
  expiry_month: number;
  expiry_year: number;
  cardholder_name: string;
  shipping_address: Address | null;
  metadata: Metadata;
  updated_at: string;
}

export type CollectionMethodView = Schema<'Collection'>['method'];

export interface CollectionRec extends Base {
  account_id: string;
  amount: string;
  currency: Schema<'Collection'>['currency'];
  method: CollectionMethodView;
  status: Schema<'CollectionStatus'>;
  failure_reason: string | null;
  description: string | null;
  metadata: Metadata;
  updated_at: string;
}

export interface WalletRec extends Base {
  customer_id: string;
  asset: Schema<'CryptoAsset'>;
  network: Schema<'CryptoNetwork'>;
  address: string;
  /** Scale 8. */
  balance: bigint;
  status: Schema<'Wallet'>['status'];
  label: string | null;
  metadata: Metadata;
  updated_at: string;
}

export interface QuoteRec extends Base {
  source_currency: Schema<'SupportedCurrency'>;
  target_currency: Schema<'SupportedCurrency'>;
  source_amount: string;
  target_amount: string;
  rate: bigint;
  expires_at: string;
  used: boolean;
  metadata: Metadata;
}

export interface TradeRec extends Base {
  quote_id: string;
  source_account_id: string;
  target_account_id: string;
  source_currency: Schema<'SupportedCurrency'>;
  target_currency: Schema<'SupportedCurrency'>;
  source_amount: string;
  target_amount: string;
  rate: string;
  status: 'completed';
  metadata: Metadata;
  completed_at: string;
}

export interface TransactionRec extends Base {
  account_id: string | null;
  wallet_id: string | null;
  direction: 'credit' | 'debit';
  amount: string;
  currency: string;
  balance_after: string;
  description: string;
  source: { type: 'collection' | 'transfer' | 'fx_trade'; id: string };
}

export interface EventRec extends Base {
  type: Schema<'EventType'>;
  /** The event object exactly as delivered (and served). */
  body: string;
}

export type AttemptView = Schema<'WebhookDelivery'>['attempts'][number];

export interface DeliveryRec extends Base {
  event_id: string;
  event_type: Schema<'EventType'>;
  url: string;
  status: Schema<'DeliveryStatus'>;
  attempts: AttemptView[];
  next_retry_at: string | null;
  updated_at: string;
}

export class TenantState {
  readonly customers = new Map<string, CustomerRec>();
  /** By customer id. */
  readonly kyc = new Map<string, KycRec>();
  readonly documents = new Map<string, DocumentRec>();
  /** By customer id, then feature: the activation time, or absent when inactive. */
  readonly features = new Map<string, Map<FeatureName, string>>();
  readonly accounts = new Map<string, AccountRec>();
  readonly accountNumbers = new Set<string>();
  readonly externalAccounts = new Map<string, ExternalAccountRec>();
  readonly transfers = new Map<string, TransferRec>();
  readonly cards = new Map<string, CardRec>();
  readonly collections = new Map<string, CollectionRec>();
  readonly wallets = new Map<string, WalletRec>();
  readonly quotes = new Map<string, QuoteRec>();
  readonly trades = new Map<string, TradeRec>();
  readonly transactions = new Map<string, TransactionRec>();
  readonly events = new Map<string, EventRec>();
  readonly deliveries = new Map<string, DeliveryRec>();

  constructor(readonly id: string) {}
}

/** Names of the collections above that hold records with an id, for lookups across tenants. */
export type CollectionName = {
  [K in keyof TenantState]: TenantState[K] extends Map<string, infer V> ? (V extends Base ? K : never) : never;
}[keyof TenantState];

export class Store {
  private seq = 0;
  readonly tenants = new Map<string, TenantState>();

  constructor(tenantIds: string[]) {
    for (const id of tenantIds) this.tenants.set(id, new TenantState(id));
  }

  nextSeq(): number {
    return ++this.seq;
  }

  /** The tenant (other than `except`) that holds a record with this id, if any. */
  ownerOf(collection: CollectionName, id: string, except?: TenantState): TenantState | undefined {
    for (const t of this.tenants.values()) if (t !== except && t[collection].has(id)) return t;
    return undefined;
  }

  others(tenant: TenantState): TenantState[] {
    return [...this.tenants.values()].filter((t) => t !== tenant);
  }
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random bytes drawn 4 KiB at a time: a call into the CSPRNG per id cost more than making the id. */
let pool = Buffer.alloc(0);
let next = 0;
function randomByte(): number {
  if (next >= pool.length) {
    pool = randomBytes(4096);
    next = 0;
  }
  return pool[next++]!;
}

/** An opaque id such as cus_7Hq2LmX9vR4tP1aZ (16 random base-62 characters). */
export function newId(prefix: string): string {
  let out = '';
  while (out.length < 16) {
    const b = randomByte();
    if (b < 248) out += ALPHABET[b % 62]; // 248 = 62 * 4: reject the rest to stay uniform
  }
  return `${prefix}_${out}`;
}

export function randomDigits(n: number): string {
  let out = '';
  while (out.length < n) {
    const b = randomByte();
    if (b < 250) out += String(b % 10);
  }
  return out;
}

// --- Lists ----------------------------------------------------------------------------------------------------

interface Cursor {
  /** The sequence number of the last item of the previous page. */
  after: number;
  /** Index of the page this cursor opens (0 is the first page, which has no cursor). */
  page: number;
}

function encodeCursor(c: Cursor): string {
  return `c_${Buffer.from(JSON.stringify({ a: c.after, p: c.page })).toString('base64url')}`;
}

function decodeCursor(s: string): Cursor {
  try {
    if (!s.startsWith('c_')) throw new Error('prefix');
    const v = JSON.parse(Buffer.from(s.slice(2), 'base64url').toString('utf8')) as { a?: unknown; p?: unknown };
    if (Number.isSafeInteger(v.a) && Number.isSafeInteger(v.p) && (v.p as number) > 0) return { after: v.a as number, page: v.p as number };
  } catch {
    // fall through
  }
  throw new ApiError(400, 'invalid_cursor', 'Invalid cursor', 'The cursor is not one this API issued; take it from next_cursor.', [
    { field: 'cursor', message: 'is not a cursor issued by this API' },
  ]);
}

export interface PageRequest {
  limit: number;
  cursor: string | undefined;
}

/**
 * One page of `items`, which are ordered newest first (descending seq).
 * `foreign` supplies the other tenant's matching records; only the tenant-list-leak-page-two fault uses it.
 */
export function paginate<T extends { seq: number }>(
  items: readonly T[],
  req: PageRequest,
  faults: FaultSet,
  foreign?: () => readonly T[],
): { data: T[]; has_more: boolean; next_cursor: string | null } {
  const cursor = req.cursor === undefined ? undefined : decodeCursor(req.cursor);
  let rest = items;
  if (cursor) {
    const after = cursor.after;
    rest = faults.has('pagination-repeats') ? items.filter((i) => i.seq <= after) : items.filter((i) => i.seq < after);
  }
  const data = rest.slice(0, req.limit);
  const has_more = rest.length > data.length;
  const last = data[data.length - 1];
  const next_cursor = has_more && last ? encodeCursor({ after: last.seq, page: (cursor?.page ?? 0) + 1 }) : null;
  if (faults.has('tenant-list-leak-page-two') && cursor?.page === 1 && data.length > 0 && foreign) {
    const leaked = foreign()[0];
    if (leaked) data[0] = leaked;
  }
  return { data, has_more, next_cursor };
}

/** Newest first. */
export function newestFirst<T extends { seq: number }>(values: Iterable<T>): T[] {
  return [...values].sort((a, b) => b.seq - a.seq);
}
