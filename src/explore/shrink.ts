/**
 * Shrinking a request that broke the target to a smaller one that still breaks it the same way, as property-based
 * testing does: the one change of its round that breaks it found by halving the changes, the other optional members
 * left out (unless kept: a refusal is shrunk on the request the target accepted, the rest as it was), then the
 * offending string cut down (chunks removed, largest first), then its characters made plain ('a') where that changes
 * nothing, so what is left is the value that triggers it. Only requests valid for the document
 * count; each one tried costs a request from a fixed budget.
 */
import type { RequestParts } from '../http/request-parts.js';
import { withSlot, type Slot } from './input-space.js';
import { applyChanges, type Change } from './variants.js';

/** Requests one failure's shrinking may send. */
export const SHRINK_BUDGET = 24;

export interface Shrunk {
  parts: RequestParts;
  /** The changes of the valid request that still break the target (one, unless the budget or an interplay stopped the halving). */
  changes: Change[];
  /** The value of the one change left, shrunk. */
  value: unknown;
  /** Members left out on the way (their names). */
  dropped: string[];
  /** The characters of a shrunk string that the failure needs (what plain letters could not replace). */
  trigger?: string;
  /** Requests sent to shrink. */
  requests: number;
}

/**
 * `breaks` answers whether a request still breaks the target the same way, or undefined when the request is not
 * valid for the document (then nothing is sent and nothing is counted).
 */
export type StillBreaks = ((parts: RequestParts) => Promise<boolean | undefined>) & {
  /** Whether a request is valid for the document (nothing is sent to know it). */
  valid(parts: RequestParts): boolean;
};

const PLAIN = 'a';

/** Chunk sizes for a string of n code points: n/2, n/4, ... 1. */
function chunkSizes(n: number): number[] {
  const out: number[] = [];
  for (let size = Math.floor(n / 2); size >= 1; size = Math.floor(size / 2)) out.push(size);
  return out;
}

export interface ShrinkOptions {
  /** Keep every other member as the valid request has it: the change alone on the request the target accepted. */
  keepOthers?: boolean;
  budget?: number;
}

export async function shrink(base: RequestParts, failing: readonly Change[], others: readonly Slot[], breaks: StillBreaks, opts: ShrinkOptions = {}): Promise<Shrunk> {
  const budget = opts.budget ?? SHRINK_BUDGET;
  let requests = 0;
  const dropped: string[] = [];
  const attempt = async (candidate: RequestParts): Promise<boolean> => {
    if (requests >= budget) return false;
    const verdict = await breaks(candidate);
    if (verdict === undefined) return false;
    requests++;
    return verdict;
  };
  // 0. The change that breaks it: halves of the round's changes, each on the valid request, while one still breaks it.
  let changes = [...failing];
  while (changes.length > 1) {
    const half = Math.ceil(changes.length / 2);
    const [a, b] = [changes.slice(0, half), changes.slice(half)];
    if (await attempt(applyChanges(base, a))) changes = a;
    else if (await attempt(applyChanges(base, b))) changes = b;
    else break;
  }
  let parts = applyChanges(base, changes);
  // 1. Fewer members: each other optional member the request has, left out.
  const changed = new Set(changes.map((c) => c.slot.path.join('.')));
  for (const o of opts.keepOthers ? [] : others) {
    if (!o.optional || o.base === undefined || changed.has(o.path.join('.'))) continue;
    const candidate = withSlot(parts, o, undefined);
    if (await attempt(candidate)) {
      parts = candidate;
      dropped.push(o.in === 'query' ? o.path[0]! : o.path.join('.'));
    }
  }
  const only = changes.length === 1 ? changes[0]! : undefined;
  const current = only?.value;
  const slot = only?.slot;
  if (!slot || typeof current !== 'string') return { parts, changes, value: current, dropped, requests };
  let chars = [...current];
  // 2. Plain letters of the same length that still break it: the length (or shape), not a character, is the trigger.
  const allPlain = withSlot(parts, slot, PLAIN.repeat(chars.length));
  if (chars.some((c) => c !== PLAIN) && (await attempt(allPlain))) return { parts: allPlain, changes, value: PLAIN.repeat(chars.length), dropped, requests };
  // 3. A shorter string: chunks removed, largest first.
  for (const size of chunkSizes(chars.length)) {
    for (let i = 0; i + size <= chars.length; ) {
      const cut = [...chars.slice(0, i), ...chars.slice(i + size)];
      const candidate = withSlot(parts, slot, cut.join(''));
      if (cut.length > 0 && (await attempt(candidate))) {
        chars = cut;
        parts = candidate;
      } else i += size;
    }
  }
  // 4. The smallest offending characters: runs of characters made plain where the failure stays. A character the
  // document needs there (an e-mail's "@") is kept for validity, and is no trigger.
  const needed = new Set<number>();
  for (const size of chunkSizes(chars.length * 2)) {
    for (let i = 0; i < chars.length; i += size) {
      const run = chars.slice(i, i + size);
      if (run.every((c) => c === PLAIN)) continue;
      const plain = [...chars.slice(0, i), ...run.map(() => PLAIN), ...chars.slice(i + size)];
      const candidate = withSlot(parts, slot, plain.join(''));
      if (size === 1 && !breaks.valid(candidate)) {
        needed.add(i);
        continue;
      }
      if (await attempt(candidate)) {
        chars = plain;
        parts = candidate;
      }
    }
  }
  // What plain letters could not replace triggers it, once the search was not cut short by the budget.
  const trigger = requests < budget ? [...new Set(chars.filter((c, i) => c !== PLAIN && !needed.has(i)))].join('') : '';
  return { parts, changes, value: chars.join(''), dropped, requests, ...(trigger ? { trigger } : {}) };
}
