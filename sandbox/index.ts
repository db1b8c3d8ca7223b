/**
 * The embedded reference sandbox: a real, in-memory implementation of the Financial Services API v1 reference
 * profile (spec/openapi.yaml), served over HTTPS on loopback, with fault switches that each break one requirement.
 * See docs/sandbox.md.
 */
import { isIP } from 'node:net';
import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { UsageError } from '../src/errors.js';
import { createCore } from './core.js';
import { closeServer, startHttps, startPlainHttp } from './server.js';
import { createCertificate, type Certificate } from './tls.js';

export { FAULTS, type FaultDefinition, type FaultName } from './faults.js';
export { DEFAULT_IDEMPOTENCY_TTL_MS, DEFAULT_WEBHOOK_RETRY_DELAYS_MS } from './core.js';

export interface SandboxOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0 (ephemeral). */
  port?: number;
  /** When set (0 = ephemeral) also start the plain-HTTP listener. */
  httpPort?: number;
  /** Fault switch names; an unknown name is a UsageError naming the nearest valid one. */
  faults?: string[];
  /** Webhook per tenant_id. */
  webhooks?: Record<string, { url: string; secret: string }>;
  /** Default fixtures/tenants.json. */
  fixturesPath?: string;
  /** Default 24 hours. */
  idempotencyTtlMs?: number;
  /** Delays before attempts 2..5; default [100, 200, 400, 800]. */
  webhookRetryDelaysMs?: number[];
  /** The embedded sandbox's: reuse the certificate kept from an earlier run (sandbox/tls.ts); default a fresh one. */
  reuseCertificate?: boolean;
}

export interface SandboxTenant {
  tenant_id: string;
  secret_key: string;
  public_key: string;
  live_key: string;
  live_public_key: string;
}

export interface SandboxInfo {
  /** https://127.0.0.1:PORT/v1/ (ends with /v1/). */
  base_url: string;
  /** PEM file of the generated certificate (trust exactly this). */
  ca_file: string;
  ca_pem: string;
  /** http://127.0.0.1:PORT2/v1/ when httpPort was given. */
  plain_http_url?: string;
  /** [alpha, beta]. */
  tenants: SandboxTenant[];
  /** Alpha's live secret key. */
  live_key: string;
  revoked_key: string;
  /** From the fixtures. */
  webhook_secret: string;
  faults: string[];
}

export interface RunningSandbox extends SandboxInfo {
  setWebhook(tenantId: string, hook: { url: string; secret: string } | undefined): void;
  /** Stops listeners, cancels pending webhook retries, removes the temporary CA directory. */
  close(): Promise<void>;
}

function checkPort(value: number | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    throw new UsageError(`${flag} must be a whole number from 0 to 65535, not ${String(value)}`, { fix: `give ${flag} a free port, or 0 for any free port` });
  }
  return value;
}

function listenError(e: unknown, host: string, port: number, flag: string): Error {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return new UsageError(`port ${port} on ${host} is already in use`, { fix: `choose another ${flag}, or 0 for any free port` });
  if (code === 'EACCES') return new UsageError(`port ${port} on ${host} needs privileges this process lacks`, { fix: `choose a port above 1023, or 0 for any free port` });
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new UsageError(`host ${host} is not an address of this machine`, { fix: 'use --host 127.0.0.1 (the default)' });
  }
  return e instanceof Error ? e : new Error(String(e));
}

/** Starts the sandbox: HTTPS on loopback (and plain HTTP when asked), its certificate, empty state. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = opts.host ?? '127.0.0.1';
  const port = checkPort(opts.port ?? 0, '--port')!;
  const httpPort = checkPort(opts.httpPort, '--http-port');
  const core = await createCore(opts);
  const { pipeline, faults, fixtures } = core;

  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : isIP(host) === 6 ? `[${host}]` : host;
  const basePath = `${pipeline.basePath}/`;
  let cert: Certificate | undefined;
  let app: HttpsServer | undefined;
  let plain: Server | undefined;
  let httpsPort = port;
  try {
    cert = await createCertificate(host, { reuse: opts.reuseCertificate === true });
    try {
      ({ server: app, port: httpsPort } = await startHttps(pipeline, faults, { host, port, key: cert.key, cert: cert.cert }));
    } catch (e) {
      throw listenError(e, host, port, '--port');
    }
    if (httpPort !== undefined) {
      try {
        ({ server: plain } = await startPlainHttp(pipeline, faults, { host, port: httpPort, httpsOrigin: () => `https://${urlHost}:${httpsPort}` }));
      } catch (e) {
        throw listenError(e, host, httpPort, '--http-port');
      }
    }
  } catch (e) {
    await core.close();
    if (app) await closeServer(app);
    cert?.remove();
    throw e;
  }

  const plainAddress = plain?.address();
  const plainPort = typeof plainAddress === 'object' && plainAddress ? plainAddress.port : undefined;
  const alpha = fixtures.tenants[0]!;
  let closing: Promise<void> | undefined;
  const certificate = cert;
  const https = app;
  return {
    base_url: `https://${urlHost}:${httpsPort}${basePath}`,
    ca_file: certificate.caFile,
    ca_pem: certificate.cert,
    ...(plainPort !== undefined ? { plain_http_url: `http://${urlHost}:${plainPort}${basePath}` } : {}),
    tenants: fixtures.tenants.map((t) => ({
      tenant_id: t.tenant_id,
      secret_key: t.sandbox_secret_key,
      public_key: t.sandbox_public_key,
      live_key: t.live_secret_key,
      live_public_key: t.live_public_key,
    })),
    live_key: alpha.live_secret_key,
    revoked_key: fixtures.revoked_keys[0]?.key ?? '',
    webhook_secret: fixtures.webhook_secret,
    faults: [...faults],
    setWebhook: (tenantId, hook) => core.setWebhook(tenantId, hook),
    close() {
      closing ??= (async () => {
        await core.close();
        if (plain) await closeServer(plain);
        await closeServer(https);
        certificate.remove();
      })();
      return closing;
    },
  };
}
