import type { Faker } from '@faker-js/faker';
import type { SpecDocument } from '../catalogue/openapi.js';
import type { HttpResponse } from '../http/client.js';
import type { WorkerConfig } from './worker-config.js';
import type { CallOptions, RequestParts } from '../http/request-parts.js';

/**
 * Prerequisite resources of one business, created through the API on first use and shared by the checks of a
 * suite (fresh ones on request, for checks that must own their scope). Implemented in src/world/.
 */
export type Json = Record<string, unknown>;

export interface World {
  readonly principal: 'primary' | 'second';
  /** A customer with KYC not started. */
  customer(): Promise<Json>;
  /** `created` is told of the answer that created it: a check following the customer's events keeps it as evidence. */
  newCustomer(overrides?: Json, created?: (res: HttpResponse) => void): Promise<Json>;
  /** A customer with KYC approved and every feature active. */
  approvedCustomer(): Promise<Json>;
  newApprovedCustomer(): Promise<Json>;
  /** An account of the approved customer (USD unless said otherwise). */
  account(currency?: string): Promise<Json>;
  newAccount(opts?: { customerId?: string; currency?: string }): Promise<Json>;
  /** A new account holding at least `amount`, funded by a card collection. */
  fundedAccount(amount: string, currency?: string): Promise<Json>;
  kycDocument(customerId?: string): Promise<Json>;
  externalAccount(): Promise<Json>;
  card(): Promise<Json>;
  /** A USDC wallet on polygon of the approved customer. */
  wallet(): Promise<Json>;
  transfer(): Promise<Json>;
  collection(): Promise<Json>;
  fxTrade(): Promise<Json>;
  transaction(): Promise<Json>;
  event(): Promise<Json>;
  /** A webhook delivery, when the target delivers to a configured URL (undefined when none appears in time). */
  delivery(): Promise<Json | undefined>;
  /** A new customer whose KYC is approved and who has no feature active. */
  newVerifiedCustomer(): Promise<Json>;
  /** Uploads a document and submits KYC for a customer (approved unless `reject`); answers the submission's response body. */
  submitKyc(customerId: string, opts?: { reject?: boolean }): Promise<Json>;
  /** Reads the KYC status until it is decided (approved or rejected), bounded by the webhook wait. */
  kycDecision(customerId: string): Promise<Json>;
  /** A new external account (of the shared approved customer unless said otherwise). */
  newExternalAccount(customerId?: string): Promise<Json>;
  /** A new card on a new account of the shared approved customer; frozen when asked. */
  newCard(opts?: { frozen?: boolean }): Promise<Json>;
  /** A new wallet of the shared approved customer (or the given one, which needs crypto_wallets active). */
  newWallet(opts?: { customerId?: string; asset?: string; network?: string; label?: string }): Promise<Json>;
  /** A new FX quote. */
  newQuote(source: string, target: string, amount: string): Promise<Json>;
  /** Reads an account (its balance now). */
  readAccount(accountId: string): Promise<Json>;
  /** How many resources this world created, by type (for the report's resources_created). */
  created(): Record<string, number>;
}

/** What a World may use: calls as its business (recorded as setup, judged by the traffic observer). */
export interface WorldScope {
  readonly principal: 'primary' | 'second';
  readonly spec: SpecDocument;
  readonly config: WorkerConfig;
  /** Seeded for this suite and business. */
  readonly faker: Faker;
  call(operationId: string, parts?: RequestParts, opts?: Omit<CallOptions, 'as'>): Promise<HttpResponse>;
}
