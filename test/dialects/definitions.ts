/**
 * Three vendor spellings of the reference profile, written as a vendor would spell its API rather than around the
 * suite's code. Each is the one source of truth for its dialect: the OpenAPI document (document.ts), the truth
 * binding (truth.ts) and the translating proxy (proxy.ts) are all derived from it.
 *
 * Fixed by the seed and therefore kept by every dialect: POST /customers with the seed's body fields, GET /accounts,
 * the /v1/ base and the headers (Api-Key, Idempotency-Key, x-tenant-id).
 */

export type DialectName = 'names' | 'paths' | 'shapes' | 'conventions';
export const DIALECT_NAMES: readonly DialectName[] = ['names', 'paths', 'shapes', 'conventions'];

/** A cursor-paginated list spelled otherwise: `{ <items>: [...], <next_cursor>: "..." | null }`. */
export interface CursorListShape {
  items: string;
  next_cursor: string;
  /** Omitted: the vendor says "no more pages" only by a null cursor. */
  has_more?: string;
  cursor_param: string;
  limit_param: string;
}

/** An offset-paginated list: `?<offset_param>=&<limit_param>=` answering `{ <items>: [...], <total>: n }`. */
export interface OffsetListShape {
  items: string;
  total: string;
  offset_param: string;
  limit_param: string;
}

export type ListShape = CursorListShape | OffsetListShape;
export const isOffsetList = (l: ListShape | undefined): l is OffsetListShape => l !== undefined && 'offset_param' in l;

/** Where an error answer keeps its code and message (dotted paths), instead of an RFC 9457 problem document. */
export interface ErrorShape {
  code: string;
  message: string;
}

export interface DialectDefinition {
  name: DialectName;
  /** info.title of the vendor document. */
  title: string;
  /** What kind of vendor spells it this way (for the document's description and the bench). */
  style: string;
  /** Reference path template -> vendor path template; path parameters correspond by position. Unlisted: same. */
  paths: Record<string, string>;
  /** Reference operationId -> the vendor's. */
  operationIds: Record<string, string>;
  /** Reference tag -> the vendor's tag (vendors group differently from the seed's 12 groups). Unlisted: same. */
  tags: Record<string, string>;
  /** Field names in bodies, resources and query parameters: derived (camelCase) when true. */
  camelCaseFields?: boolean;
  /** Path parameter names camelCased (customer_id -> customerId) on every path not listed in `paths`. */
  camelCasePathParams?: boolean;
  /** Reference state value -> vendor value, in `status`/`state` members. */
  states?: Record<string, string>;
  /**
   * Every enum value spelled as a word (not_started, passport, bitcoin) in UPPER_SNAKE_CASE, states included,
   * except the values the seed fixes (the customer create's); event types excepted (see `events`).
   */
  upperCaseValues?: boolean;
  /** Event types in PascalCase (customer.created -> CustomerCreated). */
  pascalCaseEvents?: boolean;
  /** Reference id prefix -> the vendor's (cus -> CUST-: cus_7Hq2... is CUST-7Hq2...). */
  idPrefixes?: Record<string, string>;
  /** Errors as `{ error: { code, message } }` (application/json) instead of RFC 9457 problem documents. */
  errors?: ErrorShape;
  /** Single-resource responses sit under this member. */
  envelope?: string;
  list?: ListShape;
}

/** Stripe-like: dotted resource.verb operationIds, product-area tags, `{id}` for the addressed object. */
const names: DialectDefinition = {
  name: 'names',
  title: 'Northwind Banking API',
  style: 'resource.verb operationIds, product-area tags, {id} and camelCase parent path parameters',
  paths: {
    '/customers/{customer_id}': '/customers/{id}',
    '/customers/{customer_id}/kyc': '/customers/{customerId}/kyc',
    '/customers/{customer_id}/kyc/documents': '/customers/{customerId}/kyc/documents',
    '/customers/{customer_id}/kyc/documents/{document_id}': '/customers/{customerId}/kyc/documents/{id}',
    '/customers/{customer_id}/features': '/customers/{customerId}/features',
    '/customers/{customer_id}/features/{feature}': '/customers/{customerId}/features/{featureName}',
    '/customers/{customer_id}/features/{feature}/activate': '/customers/{customerId}/features/{featureName}/activate',
    '/accounts/{account_id}': '/accounts/{id}',
    '/external-accounts/{external_account_id}': '/external-accounts/{id}',
    '/transfers/{transfer_id}': '/transfers/{id}',
    '/cards/{card_id}': '/cards/{id}',
    '/cards/{card_id}/freeze': '/cards/{id}/freeze',
    '/cards/{card_id}/unfreeze': '/cards/{id}/unfreeze',
    '/collections/{collection_id}': '/collections/{id}',
    '/wallets/{wallet_id}': '/wallets/{id}',
    '/fx/quotes/{quote_id}': '/fx/quotes/{id}',
    '/fx/trades/{trade_id}': '/fx/trades/{id}',
    '/transactions/{transaction_id}': '/transactions/{id}',
    '/webhooks/events/{event_id}': '/webhooks/events/{id}',
    '/webhooks/deliveries/{delivery_id}': '/webhooks/deliveries/{id}',
  },
  operationIds: {
    createCustomer: 'customers.create',
    listCustomers: 'customers.list',
    getCustomer: 'customers.retrieve',
    updateCustomer: 'customers.update',
    getKycStatus: 'customers.kyc.retrieve',
    submitKyc: 'customers.kyc.submit',
    uploadKycDocument: 'customers.kyc.documents.create',
    listKycDocuments: 'customers.kyc.documents.list',
    getKycDocument: 'customers.kyc.documents.retrieve',
    listFeatures: 'customers.features.list',
    getFeatureEligibility: 'customers.features.retrieve',
    activateFeature: 'customers.features.activate',
    createAccount: 'accounts.create',
    listAccounts: 'accounts.list',
    getAccount: 'accounts.retrieve',
    createExternalAccount: 'externalAccounts.create',
    listExternalAccounts: 'externalAccounts.list',
    getExternalAccount: 'externalAccounts.retrieve',
    deleteExternalAccount: 'externalAccounts.delete',
    createTransfer: 'transfers.create',
    listTransfers: 'transfers.list',
    getTransfer: 'transfers.retrieve',
    issueCard: 'cards.create',
    listCards: 'cards.list',
    getCard: 'cards.retrieve',
    freezeCard: 'cards.freeze',
    unfreezeCard: 'cards.unfreeze',
    createCollection: 'collections.create',
    listCollections: 'collections.list',
    getCollection: 'collections.retrieve',
    createWallet: 'wallets.create',
    listWallets: 'wallets.list',
    getWallet: 'wallets.retrieve',
    listFxRates: 'fx.rates.list',
    createFxQuote: 'fx.quotes.create',
    listFxQuotes: 'fx.quotes.list',
    getFxQuote: 'fx.quotes.retrieve',
    createFxTrade: 'fx.trades.create',
    listFxTrades: 'fx.trades.list',
    getFxTrade: 'fx.trades.retrieve',
    listTransactions: 'transactions.list',
    getTransaction: 'transactions.retrieve',
    listWebhookEvents: 'events.list',
    getWebhookEvent: 'events.retrieve',
    listWebhookDeliveries: 'webhookDeliveries.list',
    getWebhookDelivery: 'webhookDeliveries.retrieve',
  },
  tags: {
    Customers: 'Clients',
    KYC: 'Identity',
    Features: 'Products',
    Accounts: 'Banking',
    'External accounts': 'Money movement',
    Transfers: 'Money movement',
    Cards: 'Card issuing',
    Collections: 'Payins',
    Wallets: 'Digital assets',
    FX: 'Currency exchange',
    Transactions: 'Banking',
    Webhooks: 'Events',
  },
};

/**
 * Modern-Treasury/Stripe-Issuing-like: resources moved and renamed (counterparties, payment orders, issuing cards,
 * payins, exchange conversions), KYC as identity verifications, features as capabilities, PascalCase operationIds.
 */
const paths: DialectDefinition = {
  name: 'paths',
  title: 'Meridian Treasury API',
  style: 'resources moved and renamed (counterparties, payment orders, issuing, exchange), PascalCase operationIds',
  paths: {
    '/customers/{customer_id}': '/customers/{customer}',
    '/customers/{customer_id}/kyc': '/identity-verifications/{customer}',
    '/customers/{customer_id}/kyc/documents': '/identity-verifications/{customer}/documents',
    '/customers/{customer_id}/kyc/documents/{document_id}': '/identity-verifications/{customer}/documents/{document}',
    '/customers/{customer_id}/features': '/customers/{customer}/capabilities',
    '/customers/{customer_id}/features/{feature}': '/customers/{customer}/capabilities/{capability}',
    '/customers/{customer_id}/features/{feature}/activate': '/customers/{customer}/capabilities/{capability}/request',
    '/accounts/{account_id}': '/accounts/{account}',
    '/external-accounts': '/counterparties',
    '/external-accounts/{external_account_id}': '/counterparties/{counterparty}',
    '/transfers': '/payment-orders',
    '/transfers/{transfer_id}': '/payment-orders/{payment_order}',
    '/cards': '/issuing/cards',
    '/cards/{card_id}': '/issuing/cards/{card}',
    '/cards/{card_id}/freeze': '/issuing/cards/{card}/suspend',
    '/cards/{card_id}/unfreeze': '/issuing/cards/{card}/reactivate',
    '/collections': '/payins',
    '/collections/{collection_id}': '/payins/{payin}',
    '/wallets': '/crypto/wallets',
    '/wallets/{wallet_id}': '/crypto/wallets/{wallet}',
    '/fx/rates': '/exchange/rates',
    '/fx/quotes': '/exchange/quotes',
    '/fx/quotes/{quote_id}': '/exchange/quotes/{quote}',
    '/fx/trades': '/exchange/conversions',
    '/fx/trades/{trade_id}': '/exchange/conversions/{conversion}',
    '/transactions': '/ledger/entries',
    '/transactions/{transaction_id}': '/ledger/entries/{entry}',
    '/webhooks/events': '/events',
    '/webhooks/events/{event_id}': '/events/{event}',
    '/webhooks/deliveries': '/webhook-attempts',
    '/webhooks/deliveries/{delivery_id}': '/webhook-attempts/{attempt}',
  },
  operationIds: {
    createCustomer: 'CreateCustomer',
    listCustomers: 'ListCustomers',
    getCustomer: 'GetCustomer',
    updateCustomer: 'UpdateCustomer',
    getKycStatus: 'GetIdentityVerification',
    submitKyc: 'StartIdentityVerification',
    uploadKycDocument: 'UploadIdentityDocument',
    listKycDocuments: 'ListIdentityDocuments',
    getKycDocument: 'GetIdentityDocument',
    listFeatures: 'ListCapabilities',
    getFeatureEligibility: 'GetCapability',
    activateFeature: 'RequestCapability',
    createAccount: 'OpenAccount',
    listAccounts: 'ListAccounts',
    getAccount: 'GetAccount',
    createExternalAccount: 'CreateCounterparty',
    listExternalAccounts: 'ListCounterparties',
    getExternalAccount: 'GetCounterparty',
    deleteExternalAccount: 'ArchiveCounterparty',
    createTransfer: 'CreatePaymentOrder',
    listTransfers: 'ListPaymentOrders',
    getTransfer: 'GetPaymentOrder',
    issueCard: 'IssueCard',
    listCards: 'ListIssuedCards',
    getCard: 'GetIssuedCard',
    freezeCard: 'SuspendCard',
    unfreezeCard: 'ReactivateCard',
    createCollection: 'CreatePayin',
    listCollections: 'ListPayins',
    getCollection: 'GetPayin',
    createWallet: 'CreateCryptoWallet',
    listWallets: 'ListCryptoWallets',
    getWallet: 'GetCryptoWallet',
    listFxRates: 'ListExchangeRates',
    createFxQuote: 'CreateExchangeQuote',
    listFxQuotes: 'ListExchangeQuotes',
    getFxQuote: 'GetExchangeQuote',
    createFxTrade: 'CreateConversion',
    listFxTrades: 'ListConversions',
    getFxTrade: 'GetConversion',
    listTransactions: 'ListLedgerEntries',
    getTransaction: 'GetLedgerEntry',
    listWebhookEvents: 'ListEvents',
    getWebhookEvent: 'GetEvent',
    listWebhookDeliveries: 'ListWebhookAttempts',
    getWebhookDelivery: 'GetWebhookAttempt',
  },
  tags: {
    Customers: 'Customers',
    KYC: 'Compliance',
    Features: 'Capabilities',
    Accounts: 'Accounts',
    'External accounts': 'Counterparties',
    Transfers: 'Payments',
    Cards: 'Issuing',
    Collections: 'Payments',
    Wallets: 'Crypto',
    FX: 'Exchange',
    Transactions: 'Ledger',
    Webhooks: 'Events',
  },
};

/**
 * Google-AIP/Unit-like shapes: every single resource under `data`, lists as `{ items, next_page_token }` with
 * `page_size`/`page_token`, camelCase members (except the seed's customer fields, which the seed fixes), other state
 * names. Paths and operationIds are the reference's, so this dialect measures shape inference alone.
 */
const shapes: DialectDefinition = {
  name: 'shapes',
  title: 'Lumen Money API',
  style: 'enveloped resources, items/next_page_token lists, camelCase members, other state names',
  paths: {},
  operationIds: {},
  tags: {},
  camelCaseFields: true,
  states: { active: 'enabled', inactive: 'disabled', frozen: 'locked', approved: 'verified' },
  envelope: 'data',
  list: { items: 'items', next_cursor: 'next_page_token', cursor_param: 'page_token', limit_param: 'page_size' },
};

/**
 * A vendor with every convention at once, as many real ones have several: camelCase members, query and path
 * parameters; UPPER_CASE enum values (types and states alike); offset/limit lists answering `{ results, total }`;
 * single resources under `result`; errors as `{ error: { code, message } }`; PascalCase event types; ids with other
 * prefixes (CUST-..., not cus_...). Paths and operationIds are the reference's, so this dialect measures the
 * conventions alone.
 */
const conventions: DialectDefinition = {
  name: 'conventions',
  title: 'Atlas Ledger API',
  style: 'camelCase members and parameters, UPPER_CASE enums, offset/limit lists with totals, result envelopes, {error:{code,message}} errors, PascalCase events, CUST- style ids',
  paths: {},
  operationIds: {},
  tags: {},
  camelCaseFields: true,
  camelCasePathParams: true,
  upperCaseValues: true,
  pascalCaseEvents: true,
  idPrefixes: {
    cus: 'CUST-', kyc: 'KYCV-', doc: 'DOC-', acc: 'ACCT-', ext: 'EXTA-', tr: 'TRF-', card: 'CARD-', col: 'COLL-',
    wal: 'WALT-', fxq: 'FXQ-', fxt: 'FXT-', txn: 'TXN-', evt: 'EVT-', whd: 'WHD-',
  },
  errors: { code: 'error.code', message: 'error.message' },
  envelope: 'result',
  list: { items: 'results', total: 'total', offset_param: 'offset', limit_param: 'limit' },
};

export const DIALECTS: Record<DialectName, DialectDefinition> = { names, paths, shapes, conventions };

export function isDialectName(s: string): s is DialectName {
  return (DIALECT_NAMES as readonly string[]).includes(s);
}
