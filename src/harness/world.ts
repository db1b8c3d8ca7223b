import type { Faker } from '@faker-js/faker';
import type { SpecDocument } from '../catalogue/openapi.js';
import type { HttpResponse } from '../http/client.js';
import type { WorkerConfig } from './worker-config.js';
import type { CallOptions, RequestParts } from '../http/request-parts.js';

/**
 * Prerequisite resources of one business, created through the API on first use and shared by the checks of a
 * suite (fresh ones on request, for checks that must own their scope). Implemented in src/world/.
 */
export type { JsonObject } from '../json.js';
import type { JsonObject } from '../json.js';

export interface World {
  readonly principal: 'primary' | 'second';
  /** A customer with KYC not started. */
  customer(): Promise<JsonObject>;
  /** `created` is told of the answer that created it: a check following the customer's events keeps it as evidence. */
  newCustomer(overrides?: JsonObject, created?: (res: HttpResponse) => void): Promise<JsonObject>;
  /** A customer with KYC approved and every feature active. */
  approvedCustomer(): Promise<JsonObject>;
  newApprovedCustomer(): Promise<JsonObject>;
  /** An account of the approved customer (USD unless said otherwise). */
  account(currency?: string): Promise<JsonObject>;
  newAccount(opts?: { customerId?: string; currency?: string }): Promise<JsonObject>;
  /** A new account holding at least `amount`, funded by a card collection. */
  fundedAccount(amount: string, currency?: string): Promise<JsonObject>;
  kycDocument(customerId?: string): Promise<JsonObject>;
  externalAccount(): Promise<JsonObject>;
  card(): Promise<JsonObject>;
  /** A USDC wallet on polygon of the approved customer. */
  wallet(): Promise<JsonObject>;
  transfer(): Promise<JsonObject>;
  collection(): Promise<JsonObject>;
  fxTrade(): Promise<JsonObject>;
  transaction(): Promise<JsonObject>;
  event(): Promise<JsonObject>;
  /** A webhook delivery, when the target delivers to a configured URL (undefined when none appears in time). */
  delivery(): Promise<JsonObject | undefined>;
  /** A new customer whose KYC is approved and who has no feature active. */
  newVerifiedCustomer(): Promise<JsonObject>;
  /** Uploads a document and submits KYC for a customer (approved unless `reject`); answers the submission's response body. */
  submitKyc(customerId: string, opts?: { reject?: boolean }): Promise<JsonObject>;
  /** Reads the KYC status until it is decided (approved or rejected), bounded by the webhook wait. */
  kycDecision(customerId: string): Promise<JsonObject>;
  /** A new external account (of the shared approved customer unless said otherwise). */
  newExternalAccount(customerId?: string): Promise<JsonObject>;
  /** A new card on a new account of the shared approved customer; frozen when asked. */
  newCard(opts?: { frozen?: boolean }): Promise<JsonObject>;
  /** A new wallet of the shared approved customer (or the given one, which needs crypto_wallets active). */
  newWallet(opts?: { customerId?: string; asset?: string; network?: string; label?: string }): Promise<JsonObject>;
  /** A new FX quote. */
  newQuote(source: string, target: string, amount: string): Promise<JsonObject>;
  /** Reads an account (its balance now). */
  readAccount(accountId: string): Promise<JsonObject>;
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
