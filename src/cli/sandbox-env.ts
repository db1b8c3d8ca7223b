/** The one JSON line `sandbox --json` prints: where the sandbox listens and every credential it offers. */
export interface SandboxJsonLine {
  base_url: string;
  ca_file: string;
  /** With --http-port: the plain-HTTP listener (answers everything 403). */
  plain_http_url?: string;
  tenants: { tenant_id: string; secret_key: string; public_key: string; live_key: string }[];
  live_key: string;
  revoked_key: string;
  webhook_secret: string;
  faults: string[];
}

/**
 * `sandbox --env`: the dotenv lines a run needs to use every credential the sandbox offers (both businesses, the
 * public, live and revoked keys, the webhook secret), so `sandbox --env > .env` then `run` verifies every MUST
 * requirement instead of ending inconclusive. Webhook delivery needs the sandbox to deliver where the run's receiver
 * listens: with --webhook-url http://HOST:PORT/... the receiver's address follows from it; without, it is left
 * commented with the flag that sets it.
 */
export function sandboxEnvLines(sb: SandboxJsonLine, webhookUrl: string | undefined): string {
  const [alpha, beta] = sb.tenants;
  const lines = [
    '# fsapi-conformance sandbox: fake keys for a sandbox on loopback (gone when it stops)',
    `FSAPI_BASE_URL=${sb.base_url}`,
    `FSAPI_CA_FILE=${sb.ca_file}`,
    `FSAPI_API_KEY=${alpha!.secret_key}`,
    `FSAPI_TENANT_ID=${alpha!.tenant_id}`,
    `FSAPI_PUBLIC_KEY=${alpha!.public_key}`,
    `FSAPI_LIVE_API_KEY=${sb.live_key}`,
    `FSAPI_REVOKED_API_KEY=${sb.revoked_key}`,
    ...(beta ? [`FSAPI_SECOND_API_KEY=${beta.secret_key}`, `FSAPI_SECOND_TENANT_ID=${beta.tenant_id}`] : []),
    ...(sb.plain_http_url ? [`FSAPI_PLAIN_HTTP_URL=${sb.plain_http_url}`] : []),
  ];
  const listen = webhookUrl ? listenAddress(webhookUrl) : undefined;
  if (listen) lines.push(`FSAPI_WEBHOOK_SECRET=${sb.webhook_secret}`, `FSAPI_WEBHOOK_LISTEN=${listen}`);
  else {
    lines.push(
      '# Webhook checks: start the sandbox with --webhook-url http://127.0.0.1:8787/ to deliver where the run listens, and these are set',
      `# FSAPI_WEBHOOK_SECRET=${sb.webhook_secret}`,
      '# FSAPI_WEBHOOK_LISTEN=127.0.0.1:8787',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** http://127.0.0.1:8787/hooks -> 127.0.0.1:8787: where the run's receiver must listen to get what the sandbox sends. */
function listenAddress(webhookUrl: string): string | undefined {
  try {
    const u = new URL(webhookUrl);
    if (u.protocol !== 'http:') return undefined;
    return `${u.hostname.replace(/^\[|\]$/g, '')}:${u.port || '80'}`;
  } catch {
    return undefined;
  }
}
