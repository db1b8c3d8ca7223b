/**
 * The sandbox without its listeners: configuration checked, state, events and the request pipeline.
 * startSandbox (index.ts) puts it behind HTTPS; the sandbox's own tests also drive it directly where the network
 * would add timing (concurrency faults).
 */
import { UsageError } from '../src/errors.js';
import { EventBus } from './events.js';
import { parseFaults, type FaultSet } from './faults.js';
import { DEFAULT_FIXTURES_PATH, loadFixtures, type Fixtures } from './fixtures.js';
import { IdempotencyStore } from './idempotency.js';
import { Pipeline, type KeyKind } from './pipeline.js';
import { referenceSpec } from './routes.js';
import { Scheduler } from './scheduler.js';
import { Store } from './store.js';

export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS = [100, 200, 400, 800];
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface CoreOptions {
  faults?: string[];
  webhooks?: Record<string, { url: string; secret: string }>;
  fixturesPath?: string;
  idempotencyTtlMs?: number;
  webhookRetryDelaysMs?: number[];
}

export interface SandboxCore {
  pipeline: Pipeline;
  store: Store;
  events: EventBus;
  /** Background work (webhook attempts and retries); empty after close(). */
  scheduler: Scheduler;
  faults: FaultSet;
  fixtures: Fixtures;
  setWebhook(tenantId: string, hook: { url: string; secret: string } | undefined): void;
  close(): Promise<void>;
}

export function checkWebhookUrl(url: string, tenantId: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new UsageError(`the webhook URL for ${tenantId} is not an http(s) URL: ${url}`, { fix: 'give a URL such as http://127.0.0.1:8787/hooks' });
  }
}

export async function createCore(opts: CoreOptions = {}): Promise<SandboxCore> {
  const faults = parseFaults(opts.faults);
  const fixtures = loadFixtures(opts.fixturesPath ?? DEFAULT_FIXTURES_PATH);
  const ttl = opts.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
  if (!(ttl >= 0)) throw new UsageError('idempotencyTtlMs must be 0 or more', { fix: 'omit it for the default of 24 hours' });
  const delays = opts.webhookRetryDelaysMs ?? DEFAULT_WEBHOOK_RETRY_DELAYS_MS;
  if (delays.length === 0 || delays.some((d) => !(d >= 0))) {
    throw new UsageError('webhookRetryDelaysMs must list delays of 0 ms or more', { fix: 'omit it for the default [100, 200, 400, 800]' });
  }
  const tenantIds = fixtures.tenants.map((t) => t.tenant_id);
  const checkTenant = (tenantId: string): void => {
    if (!tenantIds.includes(tenantId)) throw new UsageError(`no tenant ${tenantId} to configure a webhook for`, { fix: `use one of ${tenantIds.join(', ')}` });
  };
  for (const [tenantId, hook] of Object.entries(opts.webhooks ?? {})) {
    checkTenant(tenantId);
    checkWebhookUrl(hook.url, tenantId);
  }

  const keys = new Map<string, { kind: KeyKind; tenantId: string }>();
  for (const t of fixtures.tenants) {
    keys.set(t.sandbox_secret_key, { kind: 'sandbox_secret', tenantId: t.tenant_id });
    keys.set(t.sandbox_public_key, { kind: 'sandbox_public', tenantId: t.tenant_id });
    keys.set(t.live_secret_key, { kind: 'live_secret', tenantId: t.tenant_id });
    keys.set(t.live_public_key, { kind: 'live_public', tenantId: t.tenant_id });
  }
  for (const r of fixtures.revoked_keys) keys.set(r.key, { kind: 'revoked', tenantId: r.tenant_id });

  const spec = await referenceSpec();
  const store = new Store(tenantIds);
  const scheduler = new Scheduler();
  const events = new EventBus(store, scheduler, faults, delays);
  for (const [tenantId, hook] of Object.entries(opts.webhooks ?? {})) events.hooks.set(tenantId, { ...hook });
  const pipeline = new Pipeline({ spec, store, faults, keys, idempotency: new IdempotencyStore(ttl, faults), events });

  return {
    pipeline,
    store,
    events,
    scheduler,
    faults,
    fixtures,
    setWebhook(tenantId, hook) {
      checkTenant(tenantId);
      if (hook) {
        checkWebhookUrl(hook.url, tenantId);
        events.hooks.set(tenantId, { ...hook });
      } else events.hooks.delete(tenantId);
    },
    async close() {
      scheduler.close();
      await events.close();
    },
  };
}
