/**
 * The matcher's vocabulary: the words vendors use for the reference's verbs, resources and actions, folded onto
 * one, and how a name of any spelling is cut into words.
 */
/** Words a vendor uses for the same thing, folded onto one. Verbs first, then the resources of the seed's groups. */
export const SYNONYMS: Record<string, string> = {
  retrieve: 'get', fetch: 'get', read: 'get', show: 'get', find: 'get', describe: 'get', view: 'get',
  all: 'list', search: 'list', index: 'list', query: 'list', browse: 'list',
  add: 'create', new: 'create', open: 'create', register: 'create', make: 'create', initiate: 'create', issue: 'create', post: 'create',
  modify: 'update', edit: 'update', patch: 'update', change: 'update', put: 'update',
  remove: 'delete', destroy: 'delete', unlink: 'delete', archive: 'delete',
  client: 'customer', user: 'customer', person: 'customer', individual: 'customer', party: 'customer', holder: 'customer', consumer: 'customer',
  verification: 'kyc', identity: 'kyc', onboarding: 'kyc', kyb: 'kyc', check: 'kyc', screening: 'kyc',
  document: 'document', file: 'document', upload: 'document',
  product: 'feature', capability: 'feature', eligibility: 'feature', entitlement: 'feature',
  // A balance is no account (GET /counterparties/{id}/balance does not read one).
  ledger: 'account',
  beneficiary: 'external', counterparty: 'external', payee: 'external', recipient: 'external', bank: 'external', linked: 'external',
  payment: 'transfer', payout: 'transfer', send: 'transfer', movement: 'transfer', remittance: 'transfer',
  payin: 'collection', deposit: 'collection', charge: 'collection', funding: 'collection', incoming: 'collection',
  // An address is more often a postal one than a wallet's.
  crypto: 'wallet',
  exchange: 'fx', conversion: 'fx', currency: 'fx', forex: 'fx', rate: 'fx',
  // A statement is not a transaction (a vendor's listStatements does not play listTransactions).
  entry: 'transaction', activity: 'transaction', history: 'transaction',
  // A subscription is a webhook endpoint's registration (or a billing plan's), not an event or a delivery.
  // A notification is an event sent to an endpoint: a delivery.
  notification: 'delivery', event: 'event', delivery: 'delivery', attempt: 'delivery', hook: 'webhook',
  lock: 'freeze', block: 'freeze', suspend: 'freeze', pause: 'freeze', unlock: 'unfreeze', unblock: 'unfreeze', resume: 'unfreeze', reactivate: 'unfreeze',
  enable: 'activate', turn: 'activate',
  approve: 'approve', decide: 'approve',
};
export const STOP = new Set(['v1', 'api', 'the', 'a', 'an', 'of', 'for', 'by', 'to', 'and', 'or', 'in', 'on', 'with', 'id', 'ids', 'me']);

/**
 * What an operation does to an existing resource beyond create/read/update/delete, by the words that say it. The
 * reference's actions (freeze, unfreeze, activate, submit, upload) must be the vendor operation's own; an operation
 * with another action (renew, upload an image) does not play them, nor a plain create or read.
 */
export const ACTIONS: Record<string, string[]> = {
  freeze: ['freeze', 'lock', 'block', 'suspend', 'pause'],
  unfreeze: ['unfreeze', 'unlock', 'unblock', 'resume', 'reactivate', 'unsuspend', 'unpause'],
  activate: ['activate', 'enable'],
  deactivate: ['deactivate', 'disable'],
  approve: ['approve', 'accept'],
  reject: ['reject', 'decline', 'deny'],
  submit: ['submit'],
  upload: ['upload'],
  download: ['download', 'export'],
  cancel: ['cancel', 'void', 'revoke'],
  close: ['close', 'terminate'],
  renew: ['renew', 'reissue', 'replace'],
  refund: ['refund', 'reverse', 'reversal'],
  capture: ['capture'],
  verify: ['verify', 'validate', 'confirm'],
  simulate: ['simulate'],
  retry: ['retry', 'resend', 'redeliver'],
};
export const ACTION_OF = new Map(Object.entries(ACTIONS).flatMap(([action, ws]) => ws.map((w) => [w, action] as const)));
/** Said only as a path's trailing action segment (POST /capabilities/{id}/request): too common a word elsewhere. */
export const PATH_ACTIONS: Record<string, string> = { request: 'activate', start: 'submit' };
/** Actions that create a record: a vendor's plain create plays them (uploadKycDocument as POST /documents). */
export const CREATE_LIKE = new Set(['submit', 'upload']);
/** Head nouns too ambiguous to fold: an exchange alone is as often a bank connection as a currency exchange. */
export const UNFOLDED_HEADS = new Set(['exchange']);
/** A resource's head noun that says nothing of which resource it is: the word before it does. */
export const GENERIC_HEADS = new Set(['order', 'request', 'item', 'record', 'detail', 'info', 'data', 'object', 'resource', 'entity', 'summary', 'list']);

export function singular(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(ches|shes|sses|xes)$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

/** Lower-case singular words of a name of any spelling (camelCase, snake_case, kebab, dotted), not yet folded. */
export function rawWords(s: string): string[] {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w && !STOP.has(w) && !/^v\d+$/.test(w))
    .map(singular);
}

/** Lower-case words of a name of any spelling, singular and folded onto the reference's vocabulary. */
export function words(s: string): string[] {
  return rawWords(s).map((w) => SYNONYMS[w] ?? w);
}

/** A field name with its spelling removed: first_name, firstName and FirstName are one. */
export const squash = (s: string): string => s.replace(/[^a-zA-Z0-9]/g, '').toLowerCase();

export function overlap(a: string[], b: string[]): number {
  const A = new Set(a);
  const B = new Set(b);
  if (A.size === 0 || B.size === 0) return 0;
  let n = 0;
  for (const x of A) if (B.has(x)) n++;
  return n / Math.max(A.size, B.size);
}

export const CRUD = new Set(['get', 'list', 'create', 'update', 'delete']);
