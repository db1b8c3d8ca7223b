/**
 * What an operation's collection does with money, read from the member names of what it is given (its create's
 * request) or answers: a transfer moves money from one account to another (a destination, a counterparty, a
 * recipient); a checkout payment takes money in from a payer (a shopper, a card's cvc, a return URL); a billing
 * payment settles an invoice. A pairing of transfers or collections needs the same effect: a payment against an
 * invoice is no transfer, whatever its name.
 */
import type { Operation, SpecDocument } from '../../catalogue/openapi.js';
import { deref } from '../../catalogue/schema-walker.js';
import { isObj } from '../../json.js';
import { rawWords, squash } from './vocabulary.js';

export type Effect = 'moves' | 'collects' | 'bills';

export const EFFECT_TEXT: Record<Effect, string> = {
  moves: 'moves money from one account to another',
  collects: 'takes money in from a payer',
  bills: 'settles an invoice',
};

/** Words of a member naming the other side of a movement of money. */
const MOVES = new Set(['destination', 'recipient', 'receiver', 'beneficiary', 'counterparty', 'creditor', 'payee', 'originating', 'origination', 'originator']);
/** Words and names of a member that only a payer's payment has: the payer, the card's secret, where to send the payer back. */
const COLLECTS = new Set(['shopper', 'buyer', 'payer', 'cvc', 'cvv']);
const COLLECTS_NAMES = new Set(['redirecturl', 'returnurl', 'cancelurl', 'paymentmethod', 'paymentmethodid', 'cardnumber', 'verificationtoken']);
const BILLS = new Set(['invoice']);

/** Member names of a schema down to `maxDepth` (0: its own members), through arrays' items, with their depth. */
function memberNames(spec: SpecDocument, schema: unknown, maxDepth: number): { name: string; depth: number }[] {
  const out: { name: string; depth: number }[] = [];
  // Every branch apart: the catalogue's merged walk keeps one branch's member where branches share a name (the
  // `attributes` of a JSON:API oneOf), and the other side of a movement may be in any branch.
  const branches = (s: unknown, seen: number): unknown[] => {
    const d = deref(spec, s);
    if (!d || seen > 8) return [];
    const alts = ['oneOf', 'anyOf', 'allOf'].flatMap((k) => (Array.isArray(d[k]) ? (d[k] as unknown[]) : []));
    return [d, ...alts.flatMap((a) => branches(a, seen + 1))];
  };
  const walk = (s: unknown, depth: number): void => {
    if (depth > maxDepth) return;
    for (const b of branches(s, 0)) {
      const props = isObj(b) && isObj(b['properties']) ? b['properties'] : {};
      for (const [name, v] of Object.entries(props)) {
        out.push({ name, depth });
        const d = deref(spec, v);
        walk(d && isObj(d['items']) ? d['items'] : v, depth + 1);
      }
    }
  };
  walk(schema, 0);
  return out;
}

const json = (media: { mediaType: string; schema: unknown }[] | undefined): unknown => (media ?? []).find((m) => m.mediaType.includes('json'))?.schema;

/** The effect an operation's own fields show: its request's, else its success answer's. */
export function effectOf(spec: SpecDocument, op: Operation): Effect | undefined {
  const ok = op.responses.filter((r) => r.status.startsWith('2')).sort((a, b) => a.status.localeCompare(b.status))[0];
  const schema = json(op.requestBody?.content) ?? (ok ? json(ok.content) : undefined);
  if (schema === undefined) return undefined;
  const names = memberNames(spec, schema, 2);
  const has = (set: ReadonlySet<string>, maxDepth: number) => names.some((n) => n.depth <= maxDepth && rawWords(n.name).some((w) => set.has(w)));
  if (has(BILLS, 2)) return 'bills';
  if (has(COLLECTS, 1) || names.some((n) => n.depth <= 1 && COLLECTS_NAMES.has(squash(n.name)))) return 'collects';
  if (has(MOVES, 2)) return 'moves';
  return undefined;
}
