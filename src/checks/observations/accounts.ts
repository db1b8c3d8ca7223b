/** Gap observations on accounts: list and create behaviour the seed leaves "not shown". */
import type { Operation } from '../../catalogue/openapi.js';
import { listItems, STATUS } from '../../harness/assert.js';
import { validRequest } from '../requests.js';
import { isObj } from '../../json.js';
import { shape, type Obs } from './shared.js';

export function accountObservations(list: Operation, create: Operation | undefined): Obs[] {
  return [
    {
      requirement: 'FSAPI-GAP-004',
      operation: list.operationId,
      variant: 'list-accounts-shape',
      title: 'the envelope, account fields and customer_id filtering of GET /accounts',
      async run(ctx) {
        const account = await ctx.world.account().catch(() => undefined);
        const all = await ctx.call(list, await validRequest(ctx, list));
        const items = listItems(all);
        const first = items?.[0];
        let filtering = 'customer_id filtering not tried';
        const cid = account?.['customer_id'];
        if (typeof cid === 'string') {
          const only = await ctx.call(list, {}, { query: { customer_id: cid } });
          const got = listItems(only);
          filtering = !STATUS.is2xx(only.status)
            ? `?customer_id answered ${only.status}`
            : got && got.every((i) => i['customer_id'] === cid)
              ? `?customer_id narrows the list (${got.length} of that customer's, ${items?.length ?? 0} unfiltered)`
              : `?customer_id does not narrow the list (${got?.length ?? 0} items, not all of that customer)`;
        }
        ctx.observe(`${shape(all)}${first ? `; an account has ${Object.keys(first).join(', ')}` : '; no account listed'}; ${filtering}`);
      },
    },
    {
      requirement: 'FSAPI-GAP-005',
      operation: list.operationId,
      variant: 'pagination-style',
      title: 'the pagination members of lists and the largest accepted limit',
      async run(ctx) {
        const base = await validRequest(ctx, list);
        const res = await ctx.call(list, base);
        const members = isObj(res.json) ? Object.keys(res.json).filter((k) => /cursor|more|page|next|prev|links|total|offset|limit/i.test(k)) : [];
        const tried: string[] = [];
        let largest: number | undefined;
        for (const limit of [20, 100, 101, 1000, 100_000]) {
          const r = await ctx.call(list, base, { query: { limit } });
          tried.push(`limit=${limit} → ${r.status}${STATUS.is2xx(r.status) ? ` (${listItems(r)?.length ?? '?'} items)` : ''}`);
          if (STATUS.is2xx(r.status)) largest = limit;
        }
        ctx.observe(`pagination members: ${members.join(', ') || 'none'}; ${tried.join(', ')}; largest accepted: ${largest ?? 'none'}`);
      },
    },
    {
      requirement: 'FSAPI-GAP-006',
      operation: list.operationId,
      variant: 'tenant-header-required',
      title: 'the status of GET /accounts and POST /customers without x-tenant-id',
      ...(create ? { writes: true, uses: [create.operationId] } : {}),
      async run(ctx) {
        const get = await ctx.call(list, await validRequest(ctx, list), { headers: { 'x-tenant-id': undefined }, probe: 'no-tenant' });
        let post = 'POST /customers not in the spec in use';
        if (create) {
          const res = await ctx.call(create, await validRequest(ctx, create, { fresh: true }), { headers: { 'x-tenant-id': undefined }, probe: 'no-tenant' });
          post = `${create.method} ${create.path} → ${shape(res, false)}`;
        }
        ctx.observe(`without x-tenant-id: ${list.method} ${list.path} → ${shape(get, false)}; ${post}`);
      },
    },
    {
      requirement: 'FSAPI-GAP-009',
      operation: list.operationId,
      variant: 'rate-limit-headers',
      title: 'rate-limit headers announced on responses',
      async run(ctx) {
        const parts = await validRequest(ctx, list);
        const seen = new Map<string, string>();
        for (let i = 0; i < 3; i++) {
          const res = await ctx.call(list, parts);
          for (const [k, v] of Object.entries(res.headers)) if (/^(x-)?rate-?limit|^retry-after$/i.test(k)) seen.set(k, v);
        }
        ctx.observe(seen.size ? `rate-limit headers: ${[...seen].map(([k, v]) => `${k}: ${v}`).join('; ')}` : `no RateLimit-*, X-RateLimit-* or Retry-After header on 3 requests to ${list.method} ${list.path}`);
      },
    },
  ];
}
