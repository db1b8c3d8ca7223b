/**
 * Events and webhook deliveries. Every state change records an event (its JSON kept byte for byte); for a tenant
 * with a webhook, each event is POSTed the Standard Webhooks way and every attempt is kept in the delivery history.
 */
import { performance } from 'node:perf_hooks';
import { Agent, request } from '../src/http/undici.js';
import { sign } from '../src/webhooks/signature.js';
import type { FaultSet } from './faults.js';
import type { Scheduler } from './scheduler.js';
import { newId, type DeliveryRec, type EventRec, type TenantState, type Store } from './store.js';
import type { Schema } from './wire.js';

export type EventType = Schema<'EventType'>;

export interface WebhookConfig {
  url: string;
  secret: string;
}

/** The object an event carries: the resource as it was when the event happened. */
export type EventObject = Schema<'Event'>['data']['object'];

export const MAX_ATTEMPTS = 5;
const ATTEMPT_TIMEOUT_MS = 5_000;
/** Used by the webhooks-wrong-secret fault. */
const WRONG_SECRET = `whsec_${Buffer.from('not-the-configured-webhook-secret').toString('base64')}`;

export class EventBus {
  readonly hooks = new Map<string, WebhookConfig>();
  private readonly agent = new Agent({ keepAliveTimeout: 2_000, connect: { timeout: ATTEMPT_TIMEOUT_MS } });
  private readonly inFlight = new Set<AbortController>();

  constructor(
    private readonly store: Store,
    private readonly scheduler: Scheduler,
    private readonly faults: FaultSet,
    private readonly retryDelaysMs: readonly number[],
  ) {}

  emit(tenant: TenantState, type: EventType, object: EventObject): EventRec {
    const id = newId('evt');
    const created_at = new Date().toISOString();
    const event: Schema<'Event'> = { id, object: 'event', type, created_at, data: { object } };
    const body = JSON.stringify(event);
    const rec: EventRec = { id, seq: this.store.nextSeq(), created_at, type, body };
    tenant.events.set(id, rec);
    const hook = this.hooks.get(tenant.id);
    if (hook && !this.faults.has('webhooks-not-delivered')) this.startDelivery(tenant, rec, hook);
    return rec;
  }

  private startDelivery(tenant: TenantState, event: EventRec, hook: WebhookConfig): void {
    const now = new Date().toISOString();
    const delivery: DeliveryRec = {
      id: newId('whd'),
      seq: this.store.nextSeq(),
      event_id: event.id,
      event_type: event.type,
      url: hook.url,
      status: 'pending',
      attempts: [],
      next_retry_at: null,
      created_at: now,
      updated_at: now,
    };
    tenant.deliveries.set(delivery.id, delivery);
    this.scheduler.soon(() => this.attempt(delivery, event, hook, event.id));
  }

  private async attempt(delivery: DeliveryRec, event: EventRec, hook: WebhookConfig, webhookId: string): Promise<void> {
    const number = delivery.attempts.length + 1;
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'fsapi-sandbox-webhooks/1',
      'webhook-id': webhookId,
      'webhook-timestamp': String(timestamp),
    };
    if (!this.faults.has('webhooks-unsigned')) {
      const secret = this.faults.has('webhooks-wrong-secret') ? WRONG_SECRET : hook.secret;
      headers['webhook-signature'] = sign(secret, webhookId, timestamp, event.body);
    }
    const attempted_at = new Date().toISOString();
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    const abort = new AbortController();
    this.inFlight.add(abort);
    try {
      // An http(s) URL: checked when the hook was set (checkWebhookUrl).
      const to = new URL(hook.url);
      const res = await request(this.agent, {
        origin: to.origin,
        path: `${to.pathname}${to.search}`,
        method: 'POST',
        headers,
        body: event.body,
        signal: abort.signal,
        headersTimeout: ATTEMPT_TIMEOUT_MS,
        bodyTimeout: ATTEMPT_TIMEOUT_MS,
      });
      status = res.statusCode;
      await res.body.dump();
    } catch (e) {
      error = describeFailure(e);
    } finally {
      this.inFlight.delete(abort);
    }
    if (this.scheduler.isClosed) return;
    delivery.attempts.push({ number, attempted_at, response_status: status, error, duration_ms: Math.round(performance.now() - started) });
    delivery.updated_at = new Date().toISOString();
    if (status !== null && status >= 200 && status < 300) {
      delivery.status = 'succeeded';
      delivery.next_retry_at = null;
    } else if (number >= MAX_ATTEMPTS || this.faults.has('webhooks-no-retry')) {
      delivery.status = 'failed';
      delivery.next_retry_at = null;
    } else {
      const delay = this.retryDelaysMs[number - 1] ?? this.retryDelaysMs[this.retryDelaysMs.length - 1] ?? 1000;
      delivery.next_retry_at = new Date(Date.now() + delay).toISOString();
      const nextId = this.faults.has('webhooks-new-id-on-retry') ? newId('msg') : webhookId;
      this.scheduler.later(() => this.attempt(delivery, event, hook, nextId), delay);
    }
  }

  async close(): Promise<void> {
    for (const a of this.inFlight) a.abort();
    await this.agent.destroy().catch(() => undefined);
  }
}

function describeFailure(e: unknown): string {
  const err = e as { code?: string; name?: string; message?: string };
  if (err.name === 'AbortError') return 'aborted';
  if (err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT' || err.code === 'UND_ERR_CONNECT_TIMEOUT') return 'timeout';
  if (err.code === 'ECONNREFUSED') return 'connection refused';
  if (err.code === 'ECONNRESET' || err.code === 'UND_ERR_SOCKET') return 'connection reset';
  if (err.code === 'ENOTFOUND') return 'host not found';
  return err.code ? `request failed (${err.code})` : 'request failed';
}
