/**
 * The exploration of one operation: from a valid request the target accepted, the variants of src/explore/variants.ts
 * in order, each proven valid for the document before it is sent, until the budget is spent; every answer judged by
 * each of the caller's judgements (an undocumented status, a server error, a refusal), and the first answer each one
 * finds shrunk (src/explore/shrink.ts), once for the judgements that found the same answer. Sequential, so the same
 * seed sends the same requests in the same order.
 */
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import type { HttpResponse } from '../http/client.js';
import type { RequestParts } from '../http/request-parts.js';
import { inputSlots, type Slot } from './input-space.js';
import { shrink, type Shrunk } from './shrink.js';
import { describeChange, planVariants, type Variant } from './variants.js';
import { slotName } from './input-space.js';

/** Why an answer counts for a judgement (it breaks the contract, or it is a refusal to show), or undefined. */
export type AnswerJudge = (res: HttpResponse) => string | undefined;

export interface Judgement {
  why: AnswerJudge;
  /**
   * Shrunk to the one change alone on the valid request, every other member kept as it was (a refusal names the
   * value that draws it, confirmed on the request the target accepted); otherwise other optional members are left
   * out too.
   */
  changeOnly?: boolean;
}

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

export interface Minimal {
  failure: ExploredFailure;
  /** Its last request is the minimal one. */
  shrunk: Shrunk;
  res: HttpResponse;
}

/** What one judgement found over the exploration. */
export interface Found {
  failures: ExploredFailure[];
  /** The first failure, shrunk. */
  minimal?: Minimal;
}

export interface ExploreOutcome<K extends string = string> {
  /** Requests sent for the exploration (not counting the shrinking's). */
  sent: number;
  /** Variants the budget left unexplored. */
  unexplored: number;
  /** Requests the answer to which only said a made-up value names nothing (the suite's gap, not judged). */
  madeUpRefusals: number;
  /** By judgement. */
  found: Record<K, Found>;
  /** Requests sent to shrink, over every judgement. */
  shrinkRequests: number;
  /** Every answer, with the variant it answered (for the judgement of other requirements over the same requests). */
  answers: { variant: Variant; res: HttpResponse }[];
}

export async function explore<K extends string>(spec: SpecDocument, op: Operation, base: RequestParts, seed: number, budget: number, io: ExploreIO, judgements: Record<K, Judgement>): Promise<ExploreOutcome<K>> {
  const slots = inputSlots(spec, op, base).filter((s) => !io.keeps?.(s));
  const valid = (parts: RequestParts) => io.problems(parts).length === 0;
  const plan = planVariants(spec, base, slots, seed, valid);
  const names = Object.keys(judgements) as K[];
  const found = Object.fromEntries(names.map((k) => [k, { failures: [] }])) as unknown as Record<K, Found>;
  const out: ExploreOutcome<K> = { sent: 0, unexplored: 0, madeUpRefusals: 0, found, shrinkRequests: 0, answers: [] };
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
    for (const k of names) {
      const why = judgements[k].why(res);
      if (why) found[k].failures.push({ variant: v, res, why });
    }
  }
  // Rounds sent change by change count once here: the figure is what the budget left, at least.
  out.unexplored = spent ? Math.max(1, plan.total - rounds) : 0;
  for (const k of names) {
    const first = found[k].failures[0];
    if (!first || found[k].minimal) continue;
    // The judgements that found the same first answer and shrink alike share one shrinking that keeps them all.
    const alike = names.filter((j) => found[j].failures[0]?.res === first.res && !judgements[j].changeOnly === !judgements[k].changeOnly);
    let last: HttpResponse = first.res;
    const stillBreaks = Object.assign(
      async (parts: RequestParts) => {
        if (!valid(parts)) return undefined;
        const res = await io.send(parts);
        if (!res) return false;
        const same = res.status === first.res.status && alike.every((j) => judgements[j].why(res) !== undefined);
        if (same) last = res;
        return same;
      },
      { valid },
    );
    const shrunk = await shrink(base, first.variant.changes, slots, stillBreaks, { keepOthers: judgements[k].changeOnly === true });
    out.shrinkRequests += shrunk.requests;
    for (const j of alike) found[j].minimal = { failure: found[j].failures[0]!, shrunk, res: last };
  }
  return out;
}

/** The members a failure's changes set, for messages. */
export const changedMembers = (f: ExploredFailure): string[] => f.variant.changes.map((c) => slotName(c.slot));

/** What the minimal request sets (and left out): "first_name = \"ë\" (unicode: accented letter); left out: gender". */
export function describeChanges(m: Minimal): string {
  const { shrunk } = m;
  const only = shrunk.changes.length === 1 ? shrunk.changes[0]! : undefined;
  const what = only ? describeChange({ ...only, value: shrunk.value }) : shrunk.changes.map(describeChange).join(' and ');
  return `${what}${shrunk.dropped.length ? `; left out: ${shrunk.dropped.join(', ')}` : ''}`;
}

/** The characters a shrunk string needs to break the target, each with its code point; empty when none was found. */
export function describeTrigger(m: Minimal): string {
  const t = m.shrunk.trigger;
  return t ? `triggering characters: ${[...t].map((c) => `${JSON.stringify(c)} (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`).join(', ')}` : '';
}

/** The minimal failing request in words: what it sets, what it left out, the triggering characters. */
export function describeMinimal(m: Minimal): string {
  const { failure, shrunk } = m;
  const only = shrunk.changes.length === 1 ? shrunk.changes[0]! : undefined;
  const what = only ? describeChange({ ...only, value: shrunk.value }) : shrunk.changes.map(describeChange).join(' and ');
  const trigger = describeTrigger(m);
  const dropped = shrunk.dropped.length ? `; left out: ${shrunk.dropped.join(', ')}` : '';
  const from = only && JSON.stringify(shrunk.value) !== JSON.stringify(only.value) ? `, shrunk from ${describeChange(only)}` : '';
  const round = failure.variant.changes.length > 1 ? ` (found in a request that changed ${failure.variant.changes.length} members)` : '';
  return `${what}, answered ${m.res.status}${trigger ? `; ${trigger}` : ''}${dropped}${from}${round}; ${shrunk.requests} shrinking requests`;
}
