/**
 * Where the values of a request came from. A value the target returned, or a driver built on a real prerequisite,
 * names something that exists; a value from the document's examples or made from its schema may name nothing on the
 * target. Such values ride along with the request parts (a symbol-keyed member, so `{ ...parts, body }` keeps them)
 * until the request is sent, where the one rule on made-up values applies (src/values/made-up.ts).
 */
export const MADE_UP: unique symbol = Symbol('fsapi.made-up');

export interface MadeUpValue {
  in: 'path' | 'query' | 'header' | 'body';
  name: string;
  value: string;
  origin: 'example' | 'generated';
}

export interface Traced {
  [MADE_UP]?: readonly MadeUpValue[];
}

export const madeUpOf = (parts: Traced): readonly MadeUpValue[] => parts[MADE_UP] ?? [];

/** The parts with these made-up values added to what they already carry. */
export function withMadeUp<T extends Traced>(parts: T, values: readonly MadeUpValue[]): T {
  if (values.length === 0) return parts;
  return { ...parts, [MADE_UP]: [...madeUpOf(parts), ...values] };
}

/** Ids, tokens and references by their member or parameter name: the values a target looks up (and may not find). */
const RESOURCE_NAME = /(^id$|_id$|Id$|_ids?$|Ids$|ID$|token$|Token$|[sS]id$|_ref$|Ref$|_key$|Key$)/;
export const namesResource = (name: string): boolean => RESOURCE_NAME.test(name.split('.').at(-1)!);
