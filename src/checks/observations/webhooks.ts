/** Gap observations on webhooks: delivery, retries and signatures as the target chose them. */
import type { SpecDocument } from '../../catalogue/openapi.js';
import { listItems } from '../../harness/assert.js';
import { type JsonObject } from '../../json.js';
import { FAIL_FIRST_MARKER, type ReceivedDelivery } from '../../webhooks/delivery.js';
import { type Obs } from './shared.js';

export function webhookObservations(spec: SpecDocument): Obs[] {
  const events = spec.byId.get('listWebhookEvents') ?? spec.operations.find((o) => o.method === 'GET' && o.path === '/webhooks/events');
  const deliveries = spec.byId.get('listWebhookDeliveries') ?? spec.operations.find((o) => o.method === 'GET' && o.path === '/webhooks/deliveries');
  const defs: Obs[] = [
    {
      requirement: 'FSAPI-GAP-012',
      variant: 'signature-headers',
      title: 'the signature-related headers of a webhook delivery',
      needs: ['webhooks'],
      writes: true,
      async run(ctx) {
        const customer = await ctx.world.customer();
        const url = new URL(ctx.config.receiver!.inspectUrl);
        // Only this object's deliveries: the receiver holds the whole run's, which can be megabytes.
        url.searchParams.set('object_id', String(customer['id']));
        url.searchParams.set('min', '1');
        url.searchParams.set('timeout_ms', String(ctx.config.webhookWaitMs));
        const got = await ctx.send({ method: 'GET', path: url.toString(), timeoutMs: ctx.config.webhookWaitMs + 10_000, unpaced: true });
        const list = Array.isArray(got.json) ? (got.json as { headers?: Record<string, string> }[]) : [];
        const d = list[0];
        if (!d?.headers) {
          ctx.observe(`no delivery reached the receiver within ${ctx.config.webhookWaitMs} ms`);
          return;
        }
        const sig = Object.entries(d.headers).filter(([k]) => /webhook|signature|timestamp|svix|hmac|digest/i.test(k));
        ctx.observe(
          sig.length
            ? `delivery headers: ${sig.map(([k, v]) => `${k}: ${/signature/i.test(k) ? `${v.split(',')[0]},<${v.length} characters>` : v}`).join('; ')}`
            : `a delivery arrived without any signature-related header (headers: ${Object.keys(d.headers).join(', ')})`,
        );
      },
    },
  ];
  if (events) {
    defs.push({
      requirement: 'FSAPI-GAP-013',
      operation: events.operationId,
      variant: 'event-types-and-retries',
      title: 'the event types seen and the delay before a failed delivery is retried',
      writes: true,
      async run(ctx) {
        await ctx.world.customer();
        const ev = await ctx.call(events, {}, { query: { limit: 100 } });
        const types = [...new Set((listItems(ev) ?? []).map((e) => e['type']).filter((t): t is string => typeof t === 'string'))].sort();
        let retry = 'no delivery history to read';
        if (ctx.config.receiver) {
          // The receiver fails the first attempt of an object marked fail-first: the retry shows the delay.
          const marked = await ctx.world.newCustomer({ metadata: { [ctx.config.label.metadataKey]: ctx.config.label.metadataValue, fsapi_webhook: FAIL_FIRST_MARKER } });
          const url = new URL(ctx.config.receiver.inspectUrl);
          url.searchParams.set('object_id', String(marked['id']));
          url.searchParams.set('min', '2');
          url.searchParams.set('timeout_ms', String(ctx.config.webhookWaitMs));
          const got = await ctx.send({ method: 'GET', path: url.toString(), timeoutMs: ctx.config.webhookWaitMs + 10_000, unpaced: true });
          const attempts = Array.isArray(got.json) ? (got.json as ReceivedDelivery[]) : [];
          retry =
            attempts.length >= 2
              ? `a delivery the receiver failed (${attempts[0]!.answered}) was retried after ${Date.parse(attempts[1]!.received_at) - Date.parse(attempts[0]!.received_at)} ms`
              : `a delivery the receiver failed was ${attempts.length ? 'not retried' : 'never received'} within ${ctx.config.webhookWaitMs} ms`;
        } else if (deliveries) {
          const dl = await ctx.call(deliveries, {}, { query: { limit: 100 } });
          const delays = (listItems(dl) ?? [])
            .map((d) => (Array.isArray(d['attempts']) ? (d['attempts'] as JsonObject[]) : []))
            .filter((a) => a.length >= 2)
            .map((a) => Date.parse(String(a[1]!['attempted_at'])) - Date.parse(String(a[0]!['attempted_at'])))
            .filter((n) => Number.isFinite(n));
          retry = delays.length ? `retries in the delivery history followed a failed attempt after ${Math.min(...delays)}..${Math.max(...delays)} ms` : 'no retried delivery in the history';
        }
        ctx.observe(`event types seen: ${types.join(', ') || 'none'} (${events.method} ${events.path} answered ${ev.status}); ${retry}`);
      },
    });
  }
  return defs;
}
