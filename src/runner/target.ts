import type { SuiteSlug } from '../catalogue/groups.js';
import type { Credentials, RunConfig } from '../config/run-config.js';
import { UsageError } from '../errors.js';
import type { RunningSandbox } from '../../sandbox/index.js';
import type { Closers } from './closers.js';
import { WebhookReceiver } from './receiver.js';

/** The suite whose checks read the deliveries the webhook receiver gets (the checks that need `webhooks`). */
export const DELIVERIES_READ_BY: SuiteSlug = 'webhooks';

/** The target phase's hand-off: where the checks send their requests, with what, and where deliveries arrive. */
export interface Target {
  baseUrl: string;
  credentials: Credentials;
  caPem?: string;
  plainHttpUrl: string;
  /** The embedded reference sandbox, when no target is configured. */
  sandbox?: RunningSandbox;
  receiver?: WebhookReceiver;
  /** Where the workers read the receiver's deliveries. */
  inspectUrl?: string;
}

/**
 * The configured target, or the embedded reference sandbox with every optional credential; and the webhook
 * receiver, on the configured address or on loopback wired to the embedded sandbox. What it opens is closed by
 * `closers`.
 */
export async function openTarget(cfg: RunConfig, sandboxStarting: Promise<RunningSandbox> | undefined, closers: Closers): Promise<Target> {
  const reached = cfg.target ? configured(cfg.target, cfg.plainHttpUrl) : embedded(await startedSandbox(sandboxStarting, closers));
  const target: Target = { ...reached, plainHttpUrl: reached.plainHttpUrl ?? defaultPlainHttpUrl(reached.baseUrl) };
  const { sandbox, credentials } = target;
  if (!sandbox && !cfg.webhookListen) return target;
  // Deliveries are read by the webhooks suite alone (test/run-plan.test.ts holds them to that): an embedded run
  // without it has the sandbox deliver nothing, rather than POST every event to a receiver nobody reads.
  if (sandbox && !cfg.webhookListen && !cfg.groups.includes(DELIVERIES_READ_BY)) return target;
  const receiver = new WebhookReceiver();
  closers.add(() => receiver.close());
  const where = cfg.webhookListen ?? { host: '127.0.0.1', port: 0 };
  const r = await receiver.listen(where.host, where.port).catch((e: NodeJS.ErrnoException) => {
    throw new UsageError(`the webhook receiver cannot listen on ${where.host}:${where.port} (${e.code ?? e.message})`, {
      fix: 'choose a free port in FSAPI_WEBHOOK_LISTEN',
    });
  });
  // Both businesses deliver here, so checks on the second one's deliveries have some to read.
  if (sandbox) for (const t of sandbox.tenants) sandbox.setWebhook(t.tenant_id, { url: r.url, secret: credentials.webhookSecret! });
  return { ...target, receiver, inspectUrl: r.inspectUrl };
}

/** A target reached, before the defaults: its plain-HTTP address is the one configured, or the sandbox's own. */
type Reached = Omit<Target, 'plainHttpUrl' | 'receiver' | 'inspectUrl'> & { plainHttpUrl: string | undefined };

function configured({ baseUrl, credentials, caPem }: NonNullable<RunConfig['target']>, plainHttpUrl: string | undefined): Reached {
  return { baseUrl, credentials, ...(caPem ? { caPem } : {}), plainHttpUrl };
}

async function startedSandbox(starting: Promise<RunningSandbox> | undefined, closers: Closers): Promise<RunningSandbox> {
  if (!starting) throw new Error('no embedded sandbox was started for a run without a target (beginRun was given another configuration)');
  const sandbox = await starting;
  closers.add(() => sandbox.close());
  return sandbox;
}

function embedded(sandbox: RunningSandbox): Reached {
  const [alpha, beta] = sandbox.tenants;
  return {
    baseUrl: sandbox.base_url,
    caPem: sandbox.ca_pem,
    plainHttpUrl: sandbox.plain_http_url,
    sandbox,
    credentials: {
      apiKey: alpha!.secret_key,
      tenantId: alpha!.tenant_id,
      publicKey: alpha!.public_key,
      liveApiKey: sandbox.live_key,
      revokedApiKey: sandbox.revoked_key,
      second: { apiKey: beta!.secret_key, tenantId: beta!.tenant_id },
      webhookSecret: sandbox.webhook_secret,
    },
  };
}

function defaultPlainHttpUrl(baseUrl: string): string {
  const u = new URL(baseUrl);
  u.protocol = 'http:';
  return u.toString();
}
