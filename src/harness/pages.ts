/**
 * The one walk over a paginated list in the reference's shape ({ data, has_more, next_cursor }; a bound vendor list
 * is read in that shape through its binding). Drivers, worlds, flows and the pagination checks all page through it,
 * each deciding what a page that cannot be read means for it.
 */
import type { HttpResponse } from '../http/client.js';
import { listItems, STATUS } from './assert.js';

/** The most pages any walk reads: 50 pages of 100 items, far more than a run creates in one scope. */
export const LIST_PAGE_CAP = 50;

export interface Page {
  res: HttpResponse;
  items: Record<string, unknown>[];
  hasMore: boolean | undefined;
  nextCursor: string | null | undefined;
}

export interface Walk {
  pages: Page[];
  /** The page the walk could not read: not a 2xx, or no items array. */
  stopped?: { res: HttpResponse; why: 'status' | 'shape' };
}

/** One answer as a page of the walk, or why the walk stops at it. */
export function readPage(res: HttpResponse, itemsOf: (res: HttpResponse) => Record<string, unknown>[] | undefined = listItems): Page | NonNullable<Walk['stopped']> {
  if (!STATUS.is2xx(res.status)) return { res, why: 'status' };
  const items = itemsOf(res);
  if (!items) return { res, why: 'shape' };
  const j = res.json as { has_more?: unknown; next_cursor?: unknown };
  return {
    res,
    items,
    hasMore: typeof j.has_more === 'boolean' ? j.has_more : undefined,
    nextCursor: typeof j.next_cursor === 'string' ? j.next_cursor : j.next_cursor === null ? null : undefined,
  };
}

/** A walk as its answers were recorded, in order: the same pages and stop as walkPages read from them. */
export function recordedWalk(answers: readonly HttpResponse[]): Walk {
  const pages: Page[] = [];
  for (const res of answers) {
    const page = readPage(res);
    if ('why' in page) return { pages, stopped: page };
    pages.push(page);
  }
  return { pages };
}

/**
 * Reads pages of `limit` by `fetch(query)`, following next_cursor while has_more is true, until `maxPages` or
 * `stop(page)` says enough. `itemsOf` reads a page's items where they are not the reference's `data` (a list of the
 * document's own shape); has_more and next_cursor are read as the reference names them either way.
 */
export async function walkPages(
  fetch: (query: { limit: number; cursor?: string }) => Promise<HttpResponse>,
  opts: { limit: number; maxPages?: number; stop?: (page: Page) => boolean; itemsOf?: (res: HttpResponse) => Record<string, unknown>[] | undefined },
): Promise<Walk> {
  const pages: Page[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < (opts.maxPages ?? LIST_PAGE_CAP); i++) {
    const res = await fetch({ limit: opts.limit, ...(cursor ? { cursor } : {}) });
    const page = readPage(res, opts.itemsOf);
    if ('why' in page) return { pages, stopped: page };
    pages.push(page);
    if (opts.stop?.(page) || page.hasMore !== true || typeof page.nextCursor !== 'string' || page.nextCursor === '') break;
    cursor = page.nextCursor;
  }
  return { pages };
}
