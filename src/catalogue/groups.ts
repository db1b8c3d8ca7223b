/** The twelve endpoint groups, named as the seed spec's "Endpoint groups" table names them. */
export const GROUPS = [
  { slug: 'customers', tag: 'Customers' },
  { slug: 'kyc', tag: 'KYC' },
  { slug: 'features', tag: 'Features' },
  { slug: 'accounts', tag: 'Accounts' },
  { slug: 'external-accounts', tag: 'External accounts' },
  { slug: 'transfers', tag: 'Transfers' },
  { slug: 'cards', tag: 'Cards' },
  { slug: 'collections', tag: 'Collections' },
  { slug: 'wallets', tag: 'Wallets' },
  { slug: 'fx', tag: 'FX' },
  { slug: 'transactions', tag: 'Transactions' },
  { slug: 'webhooks', tag: 'Webhooks' },
] as const;

export type GroupSlug = (typeof GROUPS)[number]['slug'];
/**
 * Cross-cutting suites that are not endpoint groups. `unbound` holds the operations of a vendor's document that the
 * binding places in no group: the seed's rules (Api-Key, Idempotency-Key) still apply to them.
 */
export const CROSS_CUTTING = ['transport', 'versioning', 'unbound'] as const;
export const UNBOUND_SUITE = 'unbound' as const;
export type CrossCuttingSlug = (typeof CROSS_CUTTING)[number];
export type SuiteSlug = GroupSlug | CrossCuttingSlug;

const bySlug = new Map<string, GroupSlug>(GROUPS.map((g) => [g.slug, g.slug]));
const byTag = new Map<string, GroupSlug>(GROUPS.map((g) => [normalise(g.tag), g.slug]));
// Names a vendor's spec may reasonably use for the same group.
const aliases: Record<string, GroupSlug> = {
  'know your customer': 'kyc',
  'know your customer (kyc)': 'kyc',
  'foreign exchange': 'fx',
  'foreign exchange (fx)': 'fx',
  'crypto wallets': 'wallets',
  'external bank accounts': 'external-accounts',
};

function normalise(s: string): string {
  return s.trim().toLowerCase().replace(/[_-]+/g, ' ');
}

/** Maps a tag or slug to its group, or undefined when it names none. */
export function groupOf(name: string): GroupSlug | undefined {
  const n = normalise(name);
  return bySlug.get(name) ?? byTag.get(n) ?? aliases[n] ?? bySlug.get(n.replace(/ /g, '-'));
}

export function isGroupSlug(s: string): s is GroupSlug {
  return bySlug.has(s);
}

export function groupTag(slug: GroupSlug): string {
  return GROUPS.find((g) => g.slug === slug)!.tag;
}
