/**
 * The exploration of one operation: from a valid request the target accepted, the variants of src/explore/variants.ts
 * in order, each proven valid for the document before it is sent, until the budget is spent; the answers judged by
 * the contract (`judgeAnswer`), and the first failure shrunk (src/explore/shrink.ts). Sequential, so the same seed
 * sends the same requests in the same order.
 */
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import type { HttpResponse } from '../http/client.js';
import type { RequestParts } from '../http/request-parts.js';
import { inputSlots, type Slot } from './input-space.js';
import { shrink, type Shrunk } from './shrink.js';
import { describeChange, planVariants, type Variant } from './variants.js';
import { slotName } from './input-space.js';

/** Why an answer breaks the contract (a failure of the phase), or undefined when it keeps it. */
export type AnswerJudge = (res: HttpResponse) => string | undefined;

export interface ExploreIO {
  /** Sends a request of the operation; undefined when the answer says only that a made-up value names nothing. */
  send(parts: RequestParts): Promise<HttpResponse | undefined>;
  /** What makes the request invalid for the document (empty: valid). */
  problems(parts: RequestParts): string[];
  /** A slot the run keeps as it is: it carries the run's label (what the run created must stay findable). */
  keeps?(slot: Slot): boolean;
}

export interface ExploredFailure {
  variant: Variant;
  res: HttpResponse;
  why: string;
}

export interface ExploreOutcome {
  /** Requests sent for the exploration (not counting the shrinking's). */
  sent: number;
  /** Variants the budget left unexplored. */
  unexplored: number;
  /** Requests the answer to which only said a made-up value names nothing (the suite's gap, not judged). */
  madeUpRefusals: number;
  failures: ExploredFailure[];
  /** The first failure, shrunk; its last request is the minimal one. */
  minimal?: { failure: ExploredFailure; shrunk: Shrunk; res: HttpResponse };
  /** Every answer, with the variant it answered (for the judgement of other requirements over the same requests). */
  answers: { variant: Variant; res: HttpResponse }[];
}

export async function explore(spec: SpecDocument, op: Operation, base: RequestParts, seed: number, budget: number, io: ExploreIO, judge: AnswerJudge): Promise<ExploreOutcome> {
  const slots = inputSlots(spec, op, base).filter((s) => !io.keeps?.(s));
  const valid = (parts: RequestParts) => io.problems(parts).length === 0;
  const plan = planVariants(spec, base, slots, seed, valid);
  const out: ExploreOutcome = { sent: 0, unexplored: 0, madeUpRefusals: 0, failures: [], answers: [] };
  let rounds = 0;
  let spent = false;
  for (const v of plan.variants) {
    if (out.sent >= budget) {
      spent = true;
      break;
    }
    rounds++;
    out.sent++;
    const res = await io.send(v.parts);
    if (!res) {
      out.madeUpRefusals++;
      continue;
    }
    out.answers.push({ variant: v, res });
    const why = judge(res);
    if (why) out.failures.push({ variant: v, res, why });
  }
  // Rounds sent change by change count once here: the figure is what the budget left, at least.
  out.unexplored = spent ? Math.max(1, plan.total - rounds) : 0;
  const first = out.failures[0];
  if (first) {
    let last: HttpResponse = first.res;
    const stillBreaks = Object.assign(
      async (parts: RequestParts) => {
        if (!valid(parts)) return undefined;
        const res = await io.send(parts);
        if (!res) return false;
        const same = res.status === first.res.status && judge(res) !== undefined;
        if (same) last = res;
        return same;
      },
      { valid },
    );
    const shrunk = await shrink(base, first.variant.changes, slots, stillBreaks);
    out.minimal = { failure: first, shrunk, res: last };
  }
  return out;
}

/** The members a failure's changes set, for messages. */
export const changedMembers = (f: ExploredFailure): string[] => f.variant.changes.map((c) => slotName(c.slot));

/** The minimal failing request in words: what it sets, what it left out, the triggering characters. */
export function describeMinimal(m: NonNullable<ExploreOutcome['minimal']>): string {
  const { failure, shrunk } = m;
  const only = shrunk.changes.length === 1 ? shrunk.changes[0]! : undefined;
  const what = only ? describeChange({ ...only, value: shrunk.value }) : shrunk.changes.map(describeChange).join(' and ');
  const trigger = shrunk.trigger ? `; triggering characters: ${[...shrunk.trigger].map((c) => `${JSON.stringify(c)} (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`).join(', ')}` : '';
  const dropped = shrunk.dropped.length ? `; left out: ${shrunk.dropped.join(', ')}` : '';
  const from = only && JSON.stringify(shrunk.value) !== JSON.stringify(only.value) ? `, shrunk from ${describeChange(only)}` : '';
  const round = failure.variant.changes.length > 1 ? ` (found in a request that changed ${failure.variant.changes.length} members)` : '';
  return `${what}, answered ${m.res.status}${trigger}${dropped}${from}${round}; ${shrunk.requests} shrinking requests`;
}
