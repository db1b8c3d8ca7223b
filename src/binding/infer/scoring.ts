/** How well a vendor operation plays a reference operation: a score from the evidence, and its reasons. */
import { overlap } from './vocabulary.js';
import type { Shape } from './shapes.js';
import { EFFECT_TEXT } from './effect.js';

/** Heads of money resources: a payment whose effect is a collection's plays it, whatever its noun. */
const MONEY_HEADS = new Set(['transfer', 'collection']);

/**
 * How well a vendor operation plays a reference operation, with the reasons (0 when the methods differ).
 * `pluralApi`: the vendor names its collections in the plural, so a singular path is one object of its own.
 */
export function score(v: Shape, r: Shape, pluralApi: boolean, creates: { vendor: ReadonlySet<string>; reference: ReadonlySet<string> }): { score: number; reasons: string[] } {
  if (v.op.method !== r.op.method) return { score: 0, reasons: [] };
  const reasons: string[] = [];
  let s = 0;
  if (v.route === r.route) {
    s += 3;
    reasons.push(v.op.path === r.op.path ? 'same path' : `same path under a version prefix (${v.op.path})`);
  } else if (v.skeleton === r.skeleton) {
    s += 2.5;
    // Said as it is: /payments is /transfers only by a synonym.
    reasons.push(v.rawSkeleton === r.rawSkeleton ? 'same path once parameter names are set aside' : `same path shape once parameter names are set aside and synonyms folded (${v.route} for ${r.op.path})`);
  } else {
    const p = overlap(v.pathWords, r.pathWords);
    if (p > 0) reasons.push(`path words in common (${Math.round(p * 100)}%)`);
    s += 1.5 * p;
    if (v.params.length === r.params.length) s += 0.3;
    // A write to a collection and a write to an item are different operations: a trailing parameter must match.
    // (A read is judged by what it answers, a list or one object: see contradiction; a singleton such as a
    // customer's KYC is read at /customers/{id}/kyc or /verifications/{customer} alike.)
    if (v.op.method !== 'GET' && /\}$/.test(v.op.path) !== /\}$/.test(r.op.path)) s -= 0.8;
  }
  if (v.op.operationId === r.op.operationId) {
    s += 2;
    reasons.push('same operationId');
  } else {
    const i = overlap(v.idWords, r.idWords);
    if (i > 0) reasons.push(`operationId words in common (${Math.round(i * 100)}%)`);
    s += 1.5 * i;
  }
  const sm = overlap(v.summaryWords, [...r.summaryWords, ...r.idWords]);
  s += 0.5 * sm;
  const g = overlap(v.groupWords, r.groupWords);
  if (g > 0) reasons.push('tag names its group');
  s += 0.5 * g;
  const rf = overlap(v.requestFields, r.requestFields);
  if (rf > 0) reasons.push(`request fields in common (${Math.round(rf * 100)}%)`);
  const of = overlap(v.resourceFields, r.resourceFields);
  if (of > 0) reasons.push(`response fields in common (${Math.round(of * 100)}%)`);
  s += 1.2 * rf + 1.2 * of;
  // The reference's answer has members, and the vendor's shares none (or declares none): no evidence it is the same.
  if (of === 0 && r.resourceFields.length >= 3 && (v.op.method === 'GET' || v.resourceFields.length >= 3)) {
    s -= 0.6;
    reasons.push('no response field in common');
  }
  if (pluralApi && v.plural === false && r.plural === true) {
    s -= 1;
    reasons.push(`${v.op.path} is singular in an API of plural collections: one object of its own, not a collection`);
  }
  // The effect decides between money resources: the same one weighs more than a name; none said, where the name is
  // the reference's only by a synonym (a payment for a transfer), weighs against.
  const sameEffect = r.effect !== undefined && r.effect !== 'bills' && v.effect === r.effect;
  if (sameEffect) {
    s += 0.8;
    reasons.push(`the same effect: it ${EFFECT_TEXT[r.effect!]}`);
  } else if (r.effect && r.effect !== 'bills' && !v.effect && (v.head !== r.head || v.headBySynonym)) {
    s -= 1.2;
    reasons.push(`nothing in its fields says it ${EFFECT_TEXT[r.effect]}`);
  }
  // Its resource is named by another noun (a payment schedule is not a transfer): the rest must make up for it.
  if (v.head && !r.resourceWords.has(v.head) && !(sameEffect && MONEY_HEADS.has(v.head))) {
    s -= 1;
    reasons.push(`its resource is a "${v.head}", which ${r.op.operationId} does not name`);
  }
  // A resource that is the reference's only by a synonym, and that the document never writes, is the platform's
  // own (Fireblocks' and Xero's console users read as customers): the API's customers are made through the API.
  if (v.headBySynonym && creates.reference.has(r.collection) && !creates.vendor.has(v.collection)) {
    s -= 1.5;
    reasons.push(`its resource is a ${r.head ?? 'reference resource'} only by a synonym, and the document writes none at ${v.collection}: likely the platform's own, not the API's`);
  }
  if (r.actions.size > 0) reasons.push(`the same action (${[...r.actions].join(', ')})`);
  return { score: s, reasons };
}

/** Confidence of a score: 1 for the same path and operationId, lower as the evidence thins. */
export const confidence = (s: number): number => Math.max(0, Math.min(1, Math.round((s / 5) * 100) / 100));
/** Pairs scoring below this are not proposed at all. */
export const THRESHOLD = 1.6;
