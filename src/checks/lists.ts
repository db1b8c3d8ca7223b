/**
 * Walking paginated lists (the profile's envelope: data, has_more, next_cursor) and filling a list with enough
 * objects for a check to be decidable.
 */
import type { Operation } from '../catalogue/openapi.js';
import { describeRequest, listItems, readId, STATUS, summariseBody } from '../harness/assert.js';
import type { CheckContext } from '../harness/check.js';
import { walkPages, type Walk } from '../harness/pages.js';
import { driverFor, validRequest } from './requests.js';
import { creatorOf } from './support.js';
import type { RequestParts } from '../http/request-parts.js';

/** The identity of a list item: its id, or for items without one, its stable members (feature name, currency pair). */
export function itemKey(item: Record<string, unknown>): string {
  const id = readId(item);
  if (id !== undefined) return id;
  const stable = Object.entries(item)
    .filter(([k, v]) => typeof v === 'string' && !/(_at|timestamp|rate|balance)$/.test(k))
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify(stable);
}

/** Reads up to `maxPages` pages of `limit`, following next_cursor while has_more is true. */
export async function walk(
  ctx: CheckContext,
  op: Operation,
  parts: RequestParts,
  opts: { limit: number; maxPages: number; as?: 'primary' | 'second' },
): Promise<{ pages: Walk['pages']; stopped?: string }> {
  return described(await walkPages((query) => ctx.call(op, parts, { ...(opts.as ? { as: opts.as } : {}), query }), opts));
}

/** A walk with the page it stopped at said in words. */
export function described(w: Walk): { pages: Walk['pages']; stopped?: string } {
  if (!w.stopped) return { pages: w.pages };
  const { res, why } = w.stopped;
  return { pages: w.pages, stopped: why === 'status' ? `${describeRequest(res)} answered ${res.status}${summariseBody(res)}` : `${describeRequest(res)} answered ${res.status} without a data array` };
}

export const walkedItems = (w: { pages: Walk['pages'] }): Record<string, unknown>[] => w.pages.flatMap((p) => p.items);

/**
 * Makes sure the list holds at least `n` objects, creating the missing ones through the create operation on the
 * same path (with the list's path parameters) when its driver exists. Best effort: where nothing can be created
 * (a vendor spec, live without --allow-live-writes, no such operation), the list stays as it is.
 */
export async function fillList(ctx: CheckContext, op: Operation, parts: RequestParts, n: number, as: 'primary' | 'second' = 'primary'): Promise<void> {
  const creator = creatorOf(ctx.spec, op);
  if (!creator || !driverFor(ctx, creator)) return;
  if (ctx.config.environment === 'live' && !ctx.config.allowLiveWrites) return;
  if (ctx.config.capabilities?.excludeOperations.includes(creator.operationId)) return;
  const first = await ctx.call(op, parts, { as, query: { limit: n } });
  const have = listItems(first)?.length ?? 0;
  for (let i = have; i < n; i++) {
    // Fresh: creating in the shared scope could disturb what other checks expect of it (balances, states).
    const make = await validRequest(ctx, creator, { as, fresh: true });
    const res = await ctx.call(creator, { ...make, pathParams: { ...make.pathParams, ...parts.pathParams } }, { as });
    if (!STATUS.is2xx(res.status)) return;
  }
}
