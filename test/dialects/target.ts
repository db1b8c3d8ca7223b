/**
 * A dialect target: the reference sandbox (in this process) behind the dialect's translating proxy, with the
 * dialect's document and truth binding written to a temporary folder. `targetEnv` gives the FSAPI_* settings a
 * user would set for it, so `run` sees it as any remote vendor.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import type { DialectName } from './definitions.js';
import { dialect } from './dialect.js';
import { dialectDocument } from './document.js';
import { startDialectProxy, startWebhookForwarder, type DialectProxy, type WebhookForwarder } from './proxy.js';
import { truthBinding } from './truth.js';

export interface DialectFiles {
  specPath: string;
  truthBindingPath: string;
}

/** Writes <dir>/<name>.openapi.yaml and <dir>/<name>.truth-binding.yaml. */
export function writeDialectFiles(name: DialectName, dir: string): DialectFiles {
  const d = dialect(name);
  const specPath = join(dir, `${name}.openapi.yaml`);
  const truthBindingPath = join(dir, `${name}.truth-binding.yaml`);
  writeFileSync(specPath, stringify(dialectDocument(d), { aliasDuplicateObjects: false, lineWidth: 0 }));
  writeFileSync(truthBindingPath, stringify(truthBinding(d, `${name}.openapi.yaml`), { aliasDuplicateObjects: false }));
  return { specPath, truthBindingPath };
}

export interface TargetOptions {
  /** Sandbox fault switches (sandbox/faults.ts). */
  faults?: string[];
  /** Also start the plain-HTTP listeners (sandbox and proxy), for the transport checks. */
  plainHttp?: boolean;
  /** Where the suite's webhook receiver will listen: the sandbox delivers there for both tenants. */
  webhookPort?: number;
  /** Serve the sandbox itself (the reference run), with no proxy in front. */
  reference?: boolean;
}

export interface DialectTarget extends DialectFiles {
  name: DialectName | 'reference';
  baseUrl: string;
  caFile: string;
  plainHttpUrl?: string;
  apiKey: string;
  tenantId: string;
  sandbox: RunningSandbox;
  proxy?: DialectProxy;
  close(): Promise<void>;
}

/** The sandbox, and the dialect's proxy in front of it (none for the reference run). */
export async function startDialectTarget(name: DialectName | 'reference', opts: TargetOptions = {}): Promise<DialectTarget> {
  const dir = mkdtempSync(join(tmpdir(), `fsapi-dialect-files-${name}-`));
  const files = name === 'reference' ? { specPath: '', truthBindingPath: '' } : writeDialectFiles(name, dir);
  const sandbox = await startSandbox({ faults: opts.faults ?? [], ...(opts.plainHttp ? { httpPort: 0 } : {}) });
  let proxy: DialectProxy | undefined;
  let forwarder: WebhookForwarder | undefined;
  try {
    if (opts.webhookPort !== undefined) {
      // A dialect's deliveries go through a forwarder that spells them as the vendor's.
      const receiver = `http://127.0.0.1:${opts.webhookPort}/webhooks`;
      forwarder = name === 'reference' ? undefined : await startWebhookForwarder(dialect(name), receiver, sandbox.webhook_secret);
      for (const t of sandbox.tenants) sandbox.setWebhook(t.tenant_id, { url: forwarder?.url ?? receiver, secret: sandbox.webhook_secret });
    }
    if (name !== 'reference') {
      proxy = await startDialectProxy(dialect(name), { baseUrl: sandbox.base_url, caPem: sandbox.ca_pem, ...(sandbox.plain_http_url ? { plainHttpUrl: sandbox.plain_http_url } : {}) });
    }
  } catch (e) {
    await forwarder?.close();
    await sandbox.close();
    throw e;
  }
  const alpha = sandbox.tenants[0]!;
  const plainHttpUrl = proxy ? proxy.plainHttpUrl : sandbox.plain_http_url;
  return {
    name,
    ...files,
    baseUrl: proxy?.baseUrl ?? sandbox.base_url,
    caFile: proxy?.caFile ?? sandbox.ca_file,
    ...(plainHttpUrl ? { plainHttpUrl } : {}),
    apiKey: alpha.secret_key,
    tenantId: alpha.tenant_id,
    sandbox,
    ...(proxy ? { proxy } : {}),
    async close() {
      await proxy?.close();
      await sandbox.close();
      await forwarder?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every FSAPI_* setting a user would give `run` for this target (credentials from the sandbox's fixtures). */
export function targetEnv(t: DialectTarget, opts: { webhookPort?: number } = {}): Record<string, string> {
  const [alpha, beta] = t.sandbox.tenants;
  return {
    FSAPI_BASE_URL: t.baseUrl,
    FSAPI_API_KEY: alpha!.secret_key,
    FSAPI_TENANT_ID: alpha!.tenant_id,
    FSAPI_CA_FILE: t.caFile,
    FSAPI_PUBLIC_KEY: alpha!.public_key,
    FSAPI_LIVE_API_KEY: t.sandbox.live_key,
    FSAPI_REVOKED_API_KEY: t.sandbox.revoked_key,
    FSAPI_SECOND_API_KEY: beta!.secret_key,
    FSAPI_SECOND_TENANT_ID: beta!.tenant_id,
    ...(t.plainHttpUrl ? { FSAPI_PLAIN_HTTP_URL: t.plainHttpUrl } : {}),
    ...(opts.webhookPort !== undefined ? { FSAPI_WEBHOOK_SECRET: t.sandbox.webhook_secret, FSAPI_WEBHOOK_LISTEN: `127.0.0.1:${opts.webhookPort}` } : {}),
    ...(t.specPath ? { FSAPI_SPEC: t.specPath } : {}),
    // As the embedded run has them: no polite remote rate cap against a loopback sandbox.
    FSAPI_CONCURRENCY: '16',
    FSAPI_RATE_LIMIT: '0',
  };
}

/** A free loopback port for the suite's webhook receiver (the sandbox must know it before the run starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
