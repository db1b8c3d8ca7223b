/**
 * Fault switches: each one breaks exactly one behaviour of the reference sandbox, so the suite's self-verification
 * can run the suite once per fault and assert that exactly the requirements in `breaks` fail.
 *
 * Every fault is checked with `faults.has(name)` at the one place its behaviour lives (grep for the name).
 * Where a fault cannot help breaking a second requirement, that requirement is listed too: `breaks` must stay exact.
 */
import { UsageError } from '../src/errors.js';
import { nearest } from '../src/nearest.js';

export interface FaultDefinition {
  name: string;
  /** Requirement IDs (spec/requirements.yaml) that fail when this fault is on. */
  breaks: string[];
  description: string;
  /**
   * What the fault changes, when its name's prefix does not say it: faults of one area could mask each other, so the
   * batched self-verification never runs them together (text/plain bodies hide a schema drift, for instance).
   */
  area?: string | string[];
  /**
   * Set on a fault that breaks no requirement on purpose (a conforming answer the run shows as a suggestion): what
   * the run shows instead. Every other fault breaks at least one requirement.
   */
  suggests?: string;
}

const AUTH_001_006 = ['FSAPI-AUTH-001', 'FSAPI-AUTH-002', 'FSAPI-AUTH-003', 'FSAPI-AUTH-004', 'FSAPI-AUTH-005', 'FSAPI-AUTH-006'];

const DEFINITIONS = [
  // --- Authentication ---------------------------------------------------------------------------------------
  {
    name: 'auth-skip-on-reads',
    breaks: AUTH_001_006,
    description: 'GET requests without a valid Api-Key are served for the business named by x-tenant-id.',
  },
  { name: 'auth-accept-bearer', breaks: ['FSAPI-AUTH-003'], description: 'A secret key sent only as Authorization: Bearer is accepted.' },
  {
    name: 'auth-accept-query-key',
    breaks: ['FSAPI-AUTH-004'],
    description: 'A secret key sent only as a query parameter (api_key, apiKey or Api-Key) is accepted.',
  },
  { name: 'auth-accept-public-key', breaks: ['FSAPI-AUTH-005'], description: "A tenant's public key authenticates like its secret key." },
  { name: 'auth-accept-live-key', breaks: ['FSAPI-AUTH-006'], description: "A tenant's live secret key is accepted by the sandbox." },
  { name: 'auth-accept-revoked-key', breaks: ['FSAPI-AUTH-002'], description: 'The revoked key still authenticates.' },
  {
    name: 'auth-403-instead-of-401',
    breaks: AUTH_001_006,
    description: 'A missing or invalid key is answered 403 (code forbidden, no challenge) instead of 401.',
  },
  {
    name: 'auth-no-www-authenticate',
    breaks: ['FSAPI-AUTH-101', 'FSAPI-CONTRACT-005'],
    description: '401 responses carry no WWW-Authenticate header.',
  },
  {
    name: 'auth-401-not-json',
    area: ['auth', 'response-rendering'],
    // Not CONTRACT-001: a text/plain body matches no documented media type, so it is judged as CONTRACT-003.
    breaks: ['FSAPI-MEDIA-001', 'FSAPI-ERR-001', 'FSAPI-CONTRACT-003'],
    description: '401 responses are text/plain "Unauthorized" instead of a problem document.',
  },
  {
    name: 'auth-writes-before-check',
    breaks: ['FSAPI-AUTH-007'],
    description: 'A POST with a missing or invalid key is processed for the x-tenant-id business (the write happens), then answered 401.',
  },

  // --- Idempotency ---------------------------------------------------------------------------------------------
  {
    name: 'idem-key-optional',
    breaks: ['FSAPI-IDEM-001', 'FSAPI-IDEM-101'],
    description: 'A POST without Idempotency-Key is processed (without idempotency) instead of 400.',
  },
  {
    name: 'idem-ignored',
    breaks: ['FSAPI-IDEM-002', 'FSAPI-IDEM-003', 'FSAPI-IDEM-102', 'FSAPI-IDEM-103'],
    description: 'Idempotency-Key is required and checked for format, then ignored: every POST is processed anew.',
  },
  {
    name: 'idem-replay-new-id',
    breaks: ['FSAPI-IDEM-002', 'FSAPI-IDEM-103'],
    description:
      'A replay answers the stored status and body but with a freshly minted id. A concurrent duplicate waits for the first request and gets that replay (so a parallel burst sees it too).',
  },
  {
    name: 'idem-replay-duplicates',
    breaks: ['FSAPI-IDEM-002', 'FSAPI-IDEM-003'],
    description:
      'A replay answers the stored response but also processes the request again, creating a second record. A concurrent duplicate waits for the first request and gets that replay (so a parallel burst duplicates too).',
  },
  {
    name: 'idem-accept-different-body',
    breaks: ['FSAPI-IDEM-102'],
    description: 'The same key with a different body replays the first response instead of 422.',
  },
  {
    name: 'idem-race',
    breaks: ['FSAPI-IDEM-003', 'FSAPI-IDEM-103'],
    description:
      'No in-flight lock: the lookup and the store are separated by a slow (150 ms) write, so concurrent duplicates each create a resource; sequential retries still replay.',
  },
  {
    name: 'idem-shared-across-tenants',
    breaks: ['FSAPI-IDEM-104'],
    description: "Idempotency keys are not scoped to the tenant: another tenant's identical request replays the first tenant's response.",
  },
  { name: 'idem-case-insensitive', breaks: ['FSAPI-IDEM-105'], description: 'Idempotency keys are compared case-insensitively.' },
  { name: 'idem-truncated-keys', breaks: ['FSAPI-IDEM-105'], description: 'Only the first 40 characters of an Idempotency-Key are compared.' },
  { name: 'idem-short-retention', breaks: ['FSAPI-IDEM-002'], description: 'Idempotency keys expire after 1.75 seconds instead of 24 hours.' },

  // --- Tenancy -------------------------------------------------------------------------------------------------
  { name: 'tenant-isolation-broken', breaks: ['FSAPI-TEN-001'], description: "Get-by-id finds another tenant's objects." },
  {
    name: 'tenant-list-leak-page-two',
    breaks: ['FSAPI-TEN-001'],
    description: "The second page of a list carries one record of the other tenant in place of one of the caller's.",
  },
  {
    name: 'tenant-header-trusted',
    breaks: ['FSAPI-TEN-002', 'FSAPI-TEN-102'],
    description: 'x-tenant-id chooses the business whatever the key belongs to.',
  },
  { name: 'tenant-header-optional', breaks: ['FSAPI-TEN-101'], description: "A missing x-tenant-id is accepted (the key's tenant is used)." },

  // --- Response contract -----------------------------------------------------------------------------------------
  { name: 'schema-drop-field', breaks: ['FSAPI-CONTRACT-001'], description: 'Customer responses lack created_at.', area: 'response-rendering' },
  { name: 'schema-wrong-type', breaks: ['FSAPI-CONTRACT-001'], description: 'Account balance is a JSON number instead of a decimal string.', area: 'response-rendering' },
  {
    name: 'schema-nested-drift',
    area: 'response-rendering',
    // CUS-001 too: the customer as returned no longer holds the seed field as it was sent.
    breaks: ['FSAPI-CONTRACT-001', 'FSAPI-CUS-001'],
    description: 'Customer address.postal_code is a JSON number.',
  },
  {
    name: 'text-plain-responses',
    area: 'response-rendering',
    // ACC-001 too: the seed's GET /accounts answers JSON, and a text/plain label says it does not.
    breaks: ['FSAPI-MEDIA-001', 'FSAPI-CONTRACT-003', 'FSAPI-ACC-001'],
    description: 'Success bodies (still JSON text) are labelled text/plain.',
  },
  {
    name: 'undocumented-status',
    area: 'response-rendering',
    breaks: ['FSAPI-CONTRACT-002', 'FSAPI-CONTRACT-004'],
    description: 'Creates answer 200 instead of 201 (200 is not documented for them, so no create gets a documented 2xx).',
  },
  { name: 'no-location-header', breaks: ['FSAPI-CONTRACT-005'], description: 'Creates answer without a Location header.', area: 'response-rendering' },

  // --- Errors and input --------------------------------------------------------------------------------------------
  { name: 'stack-traces', breaks: ['FSAPI-ERR-002'], description: 'Problem details carry a stack trace with file paths.', area: 'response-rendering' },
  { name: 'problem-status-mismatch', breaks: ['FSAPI-ERR-001'], description: 'The problem body status differs from the HTTP status.', area: 'response-rendering' },
  {
    name: 'malformed-json-500',
    area: ['response-rendering', 'input-validation'],
    breaks: ['FSAPI-MEDIA-102', 'FSAPI-CONTRACT-002', 'FSAPI-INPUT-002'],
    description: 'Malformed JSON is answered 500 instead of 400.',
  },
  {
    name: 'patch-json-refused', area: 'input-validation',
    // CONTRACT-004 too: the valid update built from the spec is refused; INPUT-003: invalid updates get a 415
    // naming no field.
    breaks: ['FSAPI-MEDIA-002', 'FSAPI-CONTRACT-004', 'FSAPI-INPUT-003'],
    description: 'PATCH bodies sent as application/json are refused with 415 (only application/merge-patch+json is read).',
  },
  { name: 'no-415', area: 'input-validation', breaks: ['FSAPI-MEDIA-101'], description: 'A body labelled with another media type is parsed as JSON and processed.' },
  { name: 'no-413', area: 'input-validation', breaks: ['FSAPI-LIMIT-001'], description: 'Bodies over 1 MiB are read (up to 16 MiB) and processed.' },
  { name: 'unbounded-limit', breaks: ['FSAPI-LIMIT-002'], description: 'limit above 100 is accepted and honoured.' },
  {
    name: 'validation-skip-required', area: 'input-validation',
    breaks: ['FSAPI-INPUT-001'],
    description: 'A customer without email is created (a placeholder address is stored).',
  },
  {
    name: 'mass-assignment', area: 'input-validation',
    breaks: ['FSAPI-INPUT-004'],
    description: 'Read-only fields in create bodies (id, status, balance, timestamps...) are accepted and applied when their value fits the field.',
  },
  { name: 'validation-errors-unnamed', area: 'input-validation', breaks: ['FSAPI-INPUT-003'], description: '400 problems carry no errors list.' },
  {
    name: 'date-format-unchecked', area: 'input-validation',
    // INPUT-001 too: the generic negative-data checks send the same malformed value and see it stored.
    breaks: ['FSAPI-CUS-002', 'FSAPI-INPUT-001'],
    description: 'date_of_birth is parsed leniently on create: DD/MM/YYYY and impossible dates (1990-02-30 rolls over) are stored.',
  },
  {
    name: 'phone-format-unchecked', area: 'input-validation',
    // INPUT-001 too: the generic negative-data checks send the same malformed value and see it stored.
    breaks: ['FSAPI-CUS-003', 'FSAPI-INPUT-001'],
    description: 'A phone without the leading plus sign is accepted on create (the plus is added).',
  },
  {
    name: 'country-format-unchecked', area: 'input-validation',
    // INPUT-001 too: the generic negative-data checks send the same malformed value and see it stored.
    breaks: ['FSAPI-CUS-004', 'FSAPI-INPUT-001'],
    description: 'address.country is upper-cased and cut to two letters on create (USA and us are stored as US).',
  },
  {
    name: 'state-format-unchecked', area: 'input-validation',
    // INPUT-001 too: the generic negative-data checks send the same malformed value and see it stored.
    breaks: ['FSAPI-CUS-005', 'FSAPI-INPUT-001'],
    description: 'An address.state without the country prefix is accepted on create (CA is stored as US-CA).',
  },
  {
    name: 'customer-type-individual-refused',
    // CONTRACT-004 too: the valid request built from the spec is refused.
    breaks: ['FSAPI-CUS-006', 'FSAPI-CUS-001', 'FSAPI-CONTRACT-004'],
    description: 'Customers of type individual are refused with 422.',
  },
  {
    name: 'customer-not-stored',
    // CONTRACT-004 too: a valid read of the customer just created answers 404.
    breaks: ['FSAPI-CUS-001', 'FSAPI-CONTRACT-004'],
    description: 'A created customer answers 201 but never reaches the read side: GET by id is 404 and lists omit it (other groups can still use it).',
  },
  { name: 'accounts-list-empty', breaks: ['FSAPI-ACC-001'], description: 'GET /accounts without filters always answers an empty list.' },

  // --- HTTP semantics and pagination ------------------------------------------------------------------------------
  { name: 'unknown-path-500', breaks: ['FSAPI-HTTP-001'], description: 'An unknown path under /v1/ answers 500 instead of 404.', area: ['response-rendering', 'routing'] },
  { name: 'no-405', area: 'routing', breaks: ['FSAPI-HTTP-002'], description: 'A known path with an unsupported method answers 404 without Allow.' },
  {
    name: 'unknown-id-500',
    area: 'response-rendering',
    breaks: ['FSAPI-HTTP-003', 'FSAPI-CONTRACT-002'],
    description: "A get-by-id of an id that exists nowhere answers 500 (another tenant's id still answers 404).",
  },
  { name: 'pagination-repeats', breaks: ['FSAPI-PAGE-001'], description: "Each next page repeats the previous page's last item." },

  // --- Transport and versioning ------------------------------------------------------------------------------------
  { name: 'plain-http-processed', area: 'routing', breaks: ['FSAPI-TRANS-002'], description: 'The plain-HTTP listener processes requests like the HTTPS one.' },
  { name: 'plain-http-redirect', area: 'routing', breaks: ['FSAPI-TRANS-003'], description: 'The plain-HTTP listener answers 301 to the HTTPS address.' },
  { name: 'version-ignored', area: 'routing', breaks: ['FSAPI-VER-002'], description: 'The API is also served under /v0/ and /v2/.' },
  {
    name: 'unversioned-base-path', area: 'routing',
    breaks: ['FSAPI-VER-001'],
    description: 'The API is served under / instead of /v1/, and base_url says so.',
  },

  // --- Groups and webhooks ---------------------------------------------------------------------------------------------
  {
    name: 'group-missing-transactions',
    breaks: [
      'FSAPI-GRP-001',
      'FSAPI-TXN-001',
      'FSAPI-TXN-002',
      'FSAPI-TRF-001',
      'FSAPI-COL-001',
      'FSAPI-FX-002',
      'FSAPI-PAGE-001',
      'FSAPI-CONTRACT-002',
      'FSAPI-CONTRACT-004',
      'FSAPI-CONTRACT-101',
    ],
    description:
      'Authenticated requests to /transactions and /transactions/{id} answer 404, so every check that reads transactions fails, and listTransactions answers an undocumented status (to valid requests and to the suite\'s deliberately invalid ones alike).',
  },
  { name: 'webhooks-unsigned', breaks: ['FSAPI-WH-101'], description: 'Deliveries carry no webhook-signature header.' },
  { name: 'webhooks-wrong-secret', breaks: ['FSAPI-WH-101'], description: 'Deliveries are signed with another secret than the configured one.' },
  { name: 'webhooks-no-retry', breaks: ['FSAPI-WH-102'], description: 'A failed delivery is not retried (it fails after one attempt).' },
  { name: 'webhooks-new-id-on-retry', breaks: ['FSAPI-WH-102'], description: 'A retry carries a new webhook-id.' },
  {
    name: 'webhooks-not-delivered',
    breaks: ['FSAPI-WH-003', 'FSAPI-WH-102'],
    description: 'No delivery is ever sent (events are still recorded), so no retry can be observed either.',
  },
  {
    name: 'webhooks-history-incomplete',
    breaks: ['FSAPI-WH-001', 'FSAPI-WH-103'],
    description: 'Every other delivery is missing from the delivery history (list and get).',
  },
  {
    name: 'events-not-viewable', area: 'webhooks',
    // CONTRACT-004 too: a valid read of an event that exists answers 404.
    breaks: ['FSAPI-WH-002', 'FSAPI-WH-104', 'FSAPI-CONTRACT-004'],
    description: 'GET /webhooks/events/{id} answers 404.',
  },
  {
    name: 'event-details-differ', area: 'webhooks',
    breaks: ['FSAPI-WH-104'],
    description: 'Events read through the API carry a created_at one second later than the delivered payload.',
  },

  // --- Group flows -------------------------------------------------------------------------------------------------------
  { name: 'kyc-skip-review', breaks: ['FSAPI-KYC-001'], description: 'KYC history lacks the pending and in_review steps.' },
  { name: 'kyc-reject-ignored', breaks: ['FSAPI-KYC-002'], description: 'id_number 000000000 is approved like any other.' },
  { name: 'kyc-documents-not-listed', breaks: ['FSAPI-KYC-003'], description: 'The KYC document list is always empty.' },
  { name: 'features-without-kyc', breaks: ['FSAPI-FEAT-001'], description: 'Features are eligible and activate before KYC approval.' },
  { name: 'features-double-activation', breaks: ['FSAPI-FEAT-002'], description: 'Activating an active feature answers 200 again instead of 409.' },
  { name: 'account-nonzero-opening-balance', breaks: ['FSAPI-ACC-101'], description: 'Accounts open with a balance of 100.00.' },
  {
    name: 'external-account-full-number',
    breaks: ['FSAPI-XACC-001'],
    description: 'The full external account number is returned (in metadata.account_number).',
  },
  {
    name: 'collections-no-credit',
    breaks: ['FSAPI-COL-001'],
    description:
      'Bank-transfer and mobile-money collections succeed without crediting the account or writing a transaction (card collections still credit).',
  },
  { name: 'collections-decline-ignored', breaks: ['FSAPI-COL-002'], description: 'Card 4000000000000002 succeeds like any other.' },
  {
    name: 'transfer-no-credit',
    breaks: ['FSAPI-TRF-001'],
    description: 'Internal transfers debit the source but never credit the destination account.',
  },
  { name: 'transfer-overdraft', breaks: ['FSAPI-TRF-002'], description: 'Transfers larger than the available balance go through.' },
  { name: 'transfer-external-stuck', breaks: ['FSAPI-TRF-003'], description: 'External transfers stay processing forever.' },
  {
    name: 'card-transition-unchecked',
    breaks: ['FSAPI-CARD-002'],
    description: 'Freezing a frozen card or unfreezing an active one answers 200 instead of 409.',
  },
  { name: 'card-without-feature', breaks: ['FSAPI-CARD-003'], description: 'Cards are issued without the cards feature active.' },
  { name: 'card-full-number', breaks: ['FSAPI-CARD-001'], description: 'The full card number is returned (in metadata.pan).' },
  { name: 'wallet-any-network', breaks: ['FSAPI-WAL-001'], description: 'Any asset/network pair is accepted.' },
  {
    name: 'fx-wrong-rate',
    breaks: ['FSAPI-FX-002'],
    description: 'Trades convert at 98% of the quoted rate (the trade still reports the quoted rate).',
  },
  { name: 'fx-quote-reuse', breaks: ['FSAPI-FX-003'], description: 'A quote can be traded more than once.' },
  { name: 'fx-rates-empty', breaks: ['FSAPI-FX-001'], description: 'GET /fx/rates always answers an empty list.' },
  {
    name: 'transactions-filter-ignored',
    breaks: ['FSAPI-TXN-001', 'FSAPI-TXN-002'],
    description: 'GET /transactions ignores account_id and wallet_id.',
  },

  // --- Valid input that crashes (sandbox/input-crashes.ts): only the exploration phase sends such values ---------
  { name: 'crash-non-ascii', breaks: ['FSAPI-CONTRACT-002', 'FSAPI-CONTRACT-102'], area: 'input-crash', description: 'A string member or query value holding a non-ASCII character (a customer named "Zoë"). Valid for the document, it is answered 500.' },
  { name: 'crash-plus-email', breaks: ['FSAPI-CONTRACT-002', 'FSAPI-CONTRACT-102'], area: 'input-crash', description: 'An e-mail address with a plus sign in its local part (ana+test@example.com). Valid for the document, it is answered 500.' },
  { name: 'crash-emoji', breaks: ['FSAPI-CONTRACT-002', 'FSAPI-CONTRACT-102'], area: 'input-crash', description: 'A string holding an emoji. Valid for the document, it is answered 500.' },
  { name: 'crash-rtl', breaks: ['FSAPI-CONTRACT-002', 'FSAPI-CONTRACT-102'], area: 'input-crash', description: 'A string holding right-to-left script (Hebrew, Arabic). Valid for the document, it is answered 500.' },
  { name: 'crash-combining-mark', breaks: ['FSAPI-CONTRACT-002', 'FSAPI-CONTRACT-102'], area: 'input-crash', description: 'A string holding a combining mark ("Zoe" followed by U+0308). Valid for the document, it is answered 500.' },
  { name: 'crash-backslash', breaks: ['FSAPI-CONTRACT-002', 'FSAPI-CONTRACT-102'], area: 'input-crash', description: 'A string holding a backslash. Valid for the document, it is answered 500.' },
  { name: 'crash-double-quote', breaks: ['FSAPI-CONTRACT-002', 'FSAPI-CONTRACT-102'], area: 'input-crash', description: 'A string holding a double quote. Valid for the document, it is answered 500.' },
  { name: 'crash-percent', breaks: ['FSAPI-CONTRACT-002', 'FSAPI-CONTRACT-102'], area: 'input-crash', description: 'A string holding a percent sign. Valid for the document, it is answered 500.' },
  { name: 'crash-max-length', breaks: ['FSAPI-CONTRACT-002', 'FSAPI-CONTRACT-102'], area: 'input-crash', description: 'A body string exactly at its schema\'s maxLength (where that is 60 or more). Valid for the document, it is answered 500.' },
  { name: 'crash-long-domain', breaks: ['FSAPI-CONTRACT-002', 'FSAPI-CONTRACT-102'], area: 'input-crash', description: 'An e-mail address whose domain has a label of 40 or more characters, or an IDN (xn--) label. Valid for the document, it is answered 500.' },

  // --- Valid input refused with a documented 4xx (sandbox/input-crashes.ts): a suggestion of the exploration, no verdict ---
  {
    name: 'refuse-non-ascii-name',
    breaks: [],
    suggests: 'a refused value under "Values the document allows that the target refused" (explore.test)',
    area: 'input-crash',
    description:
      'A customer name (first, middle or last) holding a non-ASCII character ("Zoë") is refused with a documented 422, though the document allows it. A conforming answer, so it breaks no requirement: the exploration shows it as a suggestion (the document should say so, or the target has a defect).',
  },
] as const satisfies readonly FaultDefinition[];

export type FaultName = (typeof DEFINITIONS)[number]['name'];

/** The registry, in documentation order. */
export const FAULTS: readonly FaultDefinition[] = DEFINITIONS;

export type FaultSet = ReadonlySet<FaultName>;

const NAMES: readonly string[] = DEFINITIONS.map((d) => d.name);

export function isFaultName(name: string): name is FaultName {
  return NAMES.includes(name);
}

/** Checks fault names given by a user; an unknown one is a UsageError naming the nearest valid name. */
export function parseFaults(names: readonly string[] | undefined): FaultSet {
  const out = new Set<FaultName>();
  for (const raw of names ?? []) {
    const name = raw.trim();
    if (name === '') continue;
    if (!isFaultName(name)) {
      const near = nearest(name, NAMES) ?? closestByPrefix(name);
      throw new UsageError(`unknown fault "${name}"${near ? ` (did you mean "${near}"?)` : ''}`, {
        fix: 'use a fault name from docs/sandbox.md (Fault switches), or none for a conformant sandbox',
      });
    }
    out.add(name);
  }
  return out;
}

/** When no name is within typo distance, the one sharing the longest prefix still helps the reader. */
function closestByPrefix(given: string): string | undefined {
  let best: string | undefined;
  let bestLen = 0;
  for (const n of NAMES) {
    let i = 0;
    while (i < n.length && i < given.length && n[i] === given[i]) i++;
    if (i > bestLen) {
      best = n;
      bestLen = i;
    }
  }
  return bestLen >= 3 ? best : undefined;
}
