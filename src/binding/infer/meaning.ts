/**
 * What a vendor operation means against a reference operation: the same action and the same effect (what it does
 * with money), and no contradiction of what the reference operation does.
 */
import { CREATE_LIKE } from './vocabulary.js';
import type { Shape } from './shapes.js';
import { EFFECT_TEXT } from './effect.js';

/**
 * Why a vendor operation cannot play a reference operation, whatever else they share: another action, or none where
 * the reference has one (a card's image upload does not freeze it; a renewal is not an issue).
 */
export function contradiction(v: Shape, r: Shape): string | undefined {
  // A list does not read one object, nor one object a list.
  if (v.op.method === 'GET' && v.list && !r.list) return `${v.op.operationId} answers a list, and ${r.op.operationId} one object`;
  if (v.op.method === 'GET' && r.list && !v.list && /\}$/.test(v.op.path)) return `${v.op.operationId} reads one object, and ${r.op.operationId} lists`;
  for (const a of r.actions) {
    if (v.actions.has(a)) continue;
    if (CREATE_LIKE.has(a) && v.actions.size === 0) continue;
    return `${r.op.operationId} ${a}s, and ${v.op.operationId} (${v.op.method} ${v.op.path}) does not say so`;
  }
  // The same resource must do the same thing with money: a payment against an invoice, or a checkout's payment
  // taken from a shopper, moves nothing between two accounts.
  if (r.effect && r.effect !== 'bills' && v.effect && v.effect !== r.effect) return `${v.op.operationId} ${EFFECT_TEXT[v.effect]}, and ${r.op.operationId} ${EFFECT_TEXT[r.effect]}`;
  // A card stored to take a payer's money (a card on file) is no card issued to a customer.
  if (!r.effect && v.effect === 'collects') return `${v.op.operationId} ${EFFECT_TEXT[v.effect]}, and ${r.op.operationId} handles no money of a payer`;
  const other = [...v.actions].filter((a) => !r.actions.has(a));
  if (other.length) return `${v.op.operationId} (${v.op.method} ${v.op.path}) ${other.join(', ')}s, which ${r.op.operationId} does not`;
  return undefined;
}
