import { UsageError } from '../../errors.js';
import type { CommandSpec, ParsedArgs } from '../command.js';
import { sandboxEnvLines, type SandboxJsonLine } from '../sandbox-env.js';

export type { SandboxJsonLine };

const DEFAULT_HOST = '127.0.0.1';

/** A flag's value, else its environment variable's (flags win). */
function setting(args: ParsedArgs, flag: string, env: string): { value: string; from: string } | undefined {
  const v = args.values[flag];
  if (typeof v === 'string') return { value: v, from: `--${flag}` };
  const e = process.env[env];
  return e !== undefined && e !== '' ? { value: e, from: env } : undefined;
}

function port(s: { value: string; from: string } | undefined): number | undefined {
  if (!s) return undefined;
  if (!/^\d{1,5}$/.test(s.value.trim()) || Number(s.value) > 65535) {
    throw new UsageError(`${s.from} must be a port number from 0 to 65535, not "${s.value}"`, { fix: `give ${s.from} a free port, or 0 for any free port` });
  }
  return Number(s.value);
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** How the command waits to be stopped. In-process tests replace `wait`; the real signals are tested by spawning. */
export const stopSignals = {
  wait(): { stopped: Promise<NodeJS.Signals>; dispose(): void } {
    let onSignal: (sig: NodeJS.Signals) => void = () => undefined;
    const stopped = new Promise<NodeJS.Signals>((resolve) => (onSignal = resolve));
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    return {
      stopped,
      dispose() {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
      },
    };
  },
};

export const sandboxCommand: CommandSpec = {
  name: 'sandbox',
  summary: 'serve the embedded reference sandbox (HTTPS on loopback) until stopped',
  usage: 'fsapi-conformance sandbox [--port N] [--host H] [--http-port N] [--json | --env] [--fault NAME]... [--webhook-url URL] [--webhook-secret S] [--fixtures FILE]',
  description: `
Starts the reference sandbox: a real, in-memory implementation of the reference profile (spec/openapi.yaml),
over HTTPS with a certificate generated at start (trust exactly the CA file it prints). Its tenants and keys
are the fake ones of fixtures/tenants.json. State lives in memory and is gone when it stops.
Fault switches (--fault) each break one requirement, to see a suite catch it; docs/sandbox.md lists them.
With --json, stdout carries exactly one JSON line (base_url, ca_file, plain_http_url, tenants, live_key,
revoked_key, webhook_secret, faults) and nothing else; with --env, the dotenv lines of a run that uses every
credential it offers (\`sandbox --env > .env\`, then \`run\` in that folder). It serves until SIGTERM or SIGINT, then stops cleanly.`,
  options: [
    { name: 'port', type: 'string', value: 'N', description: 'HTTPS port (0: any free port).', default: '0', env: 'FSAPI_SANDBOX_PORT' },
    { name: 'host', type: 'string', value: 'H', description: 'Address to listen on.', default: DEFAULT_HOST },
    { name: 'http-port', type: 'string', value: 'N', description: 'Also listen for plain HTTP here (0: any free port); it answers every request 403.', default: 'none' },
    { name: 'json', type: 'boolean', description: 'Print the connection details as one JSON line on stdout, and nothing else.' },
    { name: 'env', type: 'boolean', description: 'Print, on stdout and nothing else, the FSAPI_* lines (dotenv) of a run that uses every credential the sandbox offers.' },
    { name: 'fault', type: 'string', multiple: true, value: 'NAME', description: 'Switch on a fault (comma-separated in the environment).', default: 'none', env: 'FSAPI_SANDBOX_FAULTS' },
    { name: 'webhook-url', type: 'string', value: 'URL', description: "Deliver every tenant's events to this URL (as a run against the embedded sandbox does).", default: 'none', env: 'FSAPI_SANDBOX_WEBHOOK_URL' },
    { name: 'webhook-secret', type: 'string', value: 'S', description: 'Sign deliveries with this whsec_ secret.', default: 'the fixtures’ webhook_secret', env: 'FSAPI_SANDBOX_WEBHOOK_SECRET' },
    { name: 'fixtures', type: 'string', value: 'FILE', description: 'Tenants and fake keys.', default: 'fixtures/tenants.json', env: 'FSAPI_SANDBOX_FIXTURES' },
  ],
  exitCodes: [
    { code: 0, meaning: 'stopped cleanly by SIGTERM or SIGINT' },
    { code: 2, meaning: 'bad configuration: unknown fault, port in use, unreadable or invalid fixtures, bad URL' },
    { code: 3, meaning: 'internal error of the suite' },
  ],
  async run(args) {
    if (args.values['json'] && args.values['env']) throw new UsageError('--json and --env both claim stdout', { fix: 'choose one' });
    const flagFaults = (args.values['fault'] as string[] | undefined) ?? [];
    const faults = flagFaults.length > 0 ? flagFaults.flatMap((f) => f.split(',')) : (process.env['FSAPI_SANDBOX_FAULTS'] ?? '').split(',');
    const host = typeof args.values['host'] === 'string' ? args.values['host'] : DEFAULT_HOST;
    const httpsPort = port(setting(args, 'port', 'FSAPI_SANDBOX_PORT')) ?? 0;
    const httpFlag = args.values['http-port'];
    const httpPort = port(typeof httpFlag === 'string' ? { value: httpFlag, from: '--http-port' } : undefined);
    const webhookUrl = setting(args, 'webhook-url', 'FSAPI_SANDBOX_WEBHOOK_URL')?.value;
    const webhookSecret = setting(args, 'webhook-secret', 'FSAPI_SANDBOX_WEBHOOK_SECRET')?.value;
    const fixturesPath = setting(args, 'fixtures', 'FSAPI_SANDBOX_FIXTURES')?.value;
    if (webhookSecret !== undefined && !webhookSecret.startsWith('whsec_')) {
      throw new UsageError('the webhook secret must be a whsec_ secret (whsec_ followed by base64)', { fix: 'omit it to use the fixtures’ webhook_secret' });
    }

    // Loaded only now: `--help` and flag errors need none of it.
    const { startSandbox } = await import('../../../sandbox/index.js');
    const sb = await startSandbox({
      host,
      port: httpsPort,
      faults: faults.map((f) => f.trim()).filter(Boolean),
      ...(httpPort !== undefined ? { httpPort } : {}),
      ...(fixturesPath !== undefined ? { fixturesPath } : {}),
    });
    const stop = stopSignals.wait();
    try {
      // Every business delivers there, as in a run against the embedded sandbox: the checks on the second one's
      // deliveries (tenant isolation) then have some to read, instead of waiting FSAPI_WEBHOOK_WAIT_MS for none.
      if (webhookUrl !== undefined) for (const t of sb.tenants) sb.setWebhook(t.tenant_id, { url: webhookUrl, secret: webhookSecret ?? sb.webhook_secret });
    } catch (e) {
      stop.dispose();
      await sb.close();
      throw e;
    }

    if (args.values['json'] || args.values['env']) {
      const line: SandboxJsonLine = {
        base_url: sb.base_url,
        ca_file: sb.ca_file,
        ...(sb.plain_http_url ? { plain_http_url: sb.plain_http_url } : {}),
        tenants: sb.tenants.map((t) => ({ tenant_id: t.tenant_id, secret_key: t.secret_key, public_key: t.public_key, live_key: t.live_key })),
        live_key: sb.live_key,
        revoked_key: sb.revoked_key,
        webhook_secret: sb.webhook_secret,
        faults: sb.faults,
      };
      process.stdout.write(args.values['env'] ? sandboxEnvLines(line, webhookUrl) : `${JSON.stringify(line)}\n`);
    } else {
      const alpha = sb.tenants[0]!;
      const width = Math.max(...sb.tenants.map((t) => t.tenant_id.length));
      const lines = [
        'fsapi-conformance sandbox: the reference profile, served in memory (fake keys; state is lost on stop)',
        '',
        `  base URL        ${sb.base_url}`,
        `  CA file         ${sb.ca_file}  (trust exactly this certificate)`,
        `  plain HTTP      ${sb.plain_http_url ? `${sb.plain_http_url}  (answers every request 403)` : 'off (--http-port N to start it)'}`,
        `  faults          ${sb.faults.length ? sb.faults.join(', ') : 'none (conformant)'}`,
        `  webhook         ${webhookUrl ? `${webhookUrl} for every tenant${webhookSecret ? ' (secret from --webhook-secret)' : ' (secret: webhook_secret below)'}` : 'none (--webhook-url URL)'}`,
        '',
        'tenants (send the secret key as Api-Key and the tenant id as x-tenant-id):',
        ...sb.tenants.map((t) => `  ${t.tenant_id.padEnd(width)}  secret ${t.secret_key}  public ${t.public_key}  live ${t.live_key}`),
        `  live key (refused)     ${sb.live_key}`,
        `  revoked key (refused)  ${sb.revoked_key}`,
        `  webhook secret         ${sb.webhook_secret}`,
        '',
        'try:',
        `  curl --cacert ${quote(sb.ca_file)} -H ${quote(`Api-Key: ${alpha.secret_key}`)} -H ${quote(`x-tenant-id: ${alpha.tenant_id}`)} ${sb.base_url}accounts`,
        '',
        'Serving until SIGINT (Ctrl-C) or SIGTERM.',
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    }

    const signal = await stop.stopped;
    stop.dispose();
    await sb.close();
    if (!args.values['json'] && !args.values['env']) process.stderr.write(`${signal}: sandbox stopped\n`);
    return 0;
  },
};
