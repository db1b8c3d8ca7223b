import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { CROSS_CUTTING, GROUPS, groupOf, type SuiteSlug } from '../catalogue/groups.js';
import { UsageError } from '../errors.js';
import { fromRoot } from '../paths.js';
import { loadCapabilities, type Capabilities } from './capabilities.js';
import { readDotenv } from './dotenv-file.js';
import { pacingFor, type Pacing } from './pacing.js';
import { EMBEDDED_CONCURRENCY, KNOWN_ENV, LIVE_CONCURRENCY, numericDefault, settingDefault, SETTINGS } from './variables.js';
import { nearest } from '../nearest.js';

export type Environment = 'sandbox' | 'live';

export interface Credentials {
  apiKey: string;
  tenantId: string;
  publicKey?: string;
  liveApiKey?: string;
  revokedApiKey?: string;
  second?: { apiKey: string; tenantId: string };
  webhookSecret?: string;
}

/** Everything a run needs, validated. `target` is undefined when the embedded sandbox is to be started. */
export interface RunConfig {
  target?: { baseUrl: string; credentials: Credentials; caFile?: string; caPem?: string };
  environment: Environment;
  webhookListen?: { host: string; port: number };
  plainHttpUrl?: string;
  specPath?: string;
  /** The vendor binding file (src/binding): how FSAPI_SPEC plays the reference operations. */
  bindingPath?: string;
  capabilities?: Capabilities;
  groups: SuiteSlug[];
  seed: number;
  seedGiven: boolean;
  concurrency: number;
  /** How the run's requests are paced (src/config/pacing.ts): adaptive for a remote target unless FSAPI_RATE_LIMIT is given. */
  pacing: Pacing;
  timeoutMs: number;
  maxResponseBytes: number;
  reportDir: string;
  strict: boolean;
  allowLiveWrites: boolean;
  html: boolean;
  /** No live progress while the checks run. */
  quiet: boolean;
  baseline?: string;
  /** With a baseline: extra runs of a check that passed there and fails now (src/harness/retry.ts). */
  retries: number;
  /** With a baseline: how many times the baseline's p50/p95 an operation's latency may reach before it is drift. */
  latencyDrift: number;
  /** Earlier runs in the report directory that summary.md's trend covers (0: none). */
  trend: number;
  shard?: { index: number; count: number };
  sandboxFaults: string[];
  sandboxFixtures?: string;
  traceFile?: string;
  idempotencyParallel: number;
  webhookWaitMs: number;
  replayDelayMs: number;
  /** The exploration phase's budget: valid requests explored per operation (0: off). */
  explore: number;
  /** The exploration phase's requests over the whole run, shared among its operations when the run is planned (0: no total). */
  exploreTotal: number;
}

// Where the bench scripts find them; defined with the other defaults (src/config/variables.ts).
export { EMBEDDED_CONCURRENCY, LIVE_CONCURRENCY };

/**
 * vitest workers for a run of `files` suite files (its suites, and the waiting file when a check waits): one per
 * file, at most the CPUs (at least 2 where there are more files than CPUs). (Three on two CPUs was slower: another isolate to load and warm up; the suites phase took
 * 4.87-4.99 s against 4.53-4.67 s with two, 3 interleaved runs each.)
 */
export function harnessWorkers(files: number): number {
  return Math.max(1, Math.min(files, Math.max(2, availableParallelism())));
}

export const ALL_SUITES: SuiteSlug[] = [...GROUPS.map((g) => g.slug), ...CROSS_CUTTING];

type Flags = Record<string, string | boolean | string[] | undefined>;

/**
 * Builds the run configuration. Precedence: flags > environment > .env > defaults; secrets only from the
 * environment or .env. Any missing or malformed value is one UsageError, before a single request is sent.
 */
export function loadRunConfig(flags: Flags, opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): RunConfig {
  const cwd = opts.cwd ?? process.cwd();
  const processEnv = opts.env ?? process.env;
  const fileEnv = readDotenv(resolve(cwd, '.env'));
  const env: Record<string, string | undefined> = { ...fileEnv, ...processEnv };

  // A misspelt variable is a setting silently ignored: name it and its nearest known spelling.
  for (const name of Object.keys(env)) {
    if (name.startsWith('FSAPI_') && !KNOWN_ENV.has(name)) {
      const near = nearest(name, [...KNOWN_ENV]);
      throw new UsageError(`unknown setting ${name}${name in fileEnv ? ' (in .env)' : ''}${near ? `; did you mean ${near}?` : ''}`, {
        fix: 'use one of the variables listed by `fsapi-conformance run --help`, or remove it',
      });
    }
  }

  const raw = (envName: string): string | undefined => {
    const s = SETTINGS.find((x) => x.env === envName)!;
    const flag = s.flag ? flags[s.flag] : undefined;
    if (Array.isArray(flag)) return flag.length ? flag.join(',') : undefined;
    if (typeof flag === 'boolean') return flag ? 'true' : undefined;
    if (typeof flag === 'string') return flag;
    const v = env[envName];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const where = (envName: string) => {
    const s = SETTINGS.find((x) => x.env === envName)!;
    return s.flag && flags[s.flag] !== undefined ? `--${s.flag}` : envName;
  };
  const bool = (envName: string): boolean => {
    const v = raw(envName);
    if (v === undefined) return false;
    if (/^(1|true|yes|on)$/i.test(v)) return true;
    if (/^(0|false|no|off)$/i.test(v)) return false;
    throw new UsageError(`${where(envName)} must be true or false, not "${v}"`, { fix: `set ${envName}=true or false` });
  };
  const int = (envName: string, min: number, max: number, dflt = numericDefault(envName)): number => {
    const v = raw(envName);
    if (v === undefined) return dflt;
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      throw new UsageError(`${where(envName)} must be a whole number from ${min} to ${max}, not "${v}"`, { fix: `set ${envName} to a number in that range` });
    }
    return Number(v);
  };
  const ratio = (envName: string, dflt: number): number => {
    const v = raw(envName);
    if (v === undefined) return dflt;
    if (!/^\d+(\.\d+)?$/.test(v) || Number(v) <= 1 || Number(v) > 1000) {
      throw new UsageError(`${where(envName)} must be a ratio above 1 (e.g. 1.5 or 2), not "${v}"`, { fix: `set ${envName} to how many times slower than the baseline counts as drift` });
    }
    return Number(v);
  };

  const baseUrlRaw = raw('FSAPI_BASE_URL');
  let target: RunConfig['target'];
  if (baseUrlRaw !== undefined) {
    const baseUrl = parseBaseUrl(baseUrlRaw, where('FSAPI_BASE_URL'));
    const apiKey = env['FSAPI_API_KEY']?.trim();
    const tenantId = raw('FSAPI_TENANT_ID');
    if (!apiKey) throw new UsageError('FSAPI_API_KEY is required when a base URL is set', { fix: 'export FSAPI_API_KEY=<your secret key> (or put it in .env); keys are never taken as flags' });
    if (!tenantId) throw new UsageError('FSAPI_TENANT_ID is required when a base URL is set', { fix: 'set FSAPI_TENANT_ID (or --tenant-id) to your business identifier' });
    const credentials: Credentials = { apiKey, tenantId };
    const optional = (name: string) => env[name]?.trim() || undefined;
    if (optional('FSAPI_PUBLIC_KEY')) credentials.publicKey = optional('FSAPI_PUBLIC_KEY')!;
    if (optional('FSAPI_LIVE_API_KEY')) credentials.liveApiKey = optional('FSAPI_LIVE_API_KEY')!;
    if (optional('FSAPI_REVOKED_API_KEY')) credentials.revokedApiKey = optional('FSAPI_REVOKED_API_KEY')!;
    const secondKey = optional('FSAPI_SECOND_API_KEY');
    const secondTenant = raw('FSAPI_SECOND_TENANT_ID');
    if (!!secondKey !== !!secondTenant) {
      throw new UsageError('FSAPI_SECOND_API_KEY and FSAPI_SECOND_TENANT_ID go together', { fix: 'set both (tenant isolation checks) or neither' });
    }
    if (secondKey && secondTenant) credentials.second = { apiKey: secondKey, tenantId: secondTenant };
    if (optional('FSAPI_WEBHOOK_SECRET')) credentials.webhookSecret = optional('FSAPI_WEBHOOK_SECRET')!;
    target = { baseUrl, credentials };
    const caFile = raw('FSAPI_CA_FILE');
    if (caFile) {
      const p = resolve(cwd, caFile);
      if (!existsSync(p)) throw new UsageError(`${where('FSAPI_CA_FILE')}: ${caFile} does not exist`, { fix: 'point it at a PEM file holding the CA certificate' });
      const pem = readFileSync(p, 'utf8');
      if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
        throw new UsageError(`${where('FSAPI_CA_FILE')}: ${caFile} holds no PEM certificate`, { fix: 'supply the CA certificate in PEM form (-----BEGIN CERTIFICATE-----)' });
      }
      target.caFile = p;
      target.caPem = pem;
    }
  } else {
    if (raw('FSAPI_CA_FILE')) throw new UsageError('FSAPI_CA_FILE is set but FSAPI_BASE_URL is not', { fix: 'set FSAPI_BASE_URL too, or unset FSAPI_CA_FILE to run against the embedded sandbox' });
  }

  const environment = (raw('FSAPI_ENVIRONMENT') ?? settingDefault('FSAPI_ENVIRONMENT')).toLowerCase();
  if (environment !== 'sandbox' && environment !== 'live') {
    throw new UsageError(`${where('FSAPI_ENVIRONMENT')} must be sandbox or live, not "${environment}"`, { fix: 'set FSAPI_ENVIRONMENT=sandbox (or live)' });
  }
  if (!target && environment === 'live') {
    throw new UsageError('FSAPI_ENVIRONMENT=live needs a target: the embedded sandbox is a sandbox', { fix: 'set FSAPI_BASE_URL, or unset FSAPI_ENVIRONMENT' });
  }

  let webhookListen: RunConfig['webhookListen'];
  const listen = raw('FSAPI_WEBHOOK_LISTEN');
  if (listen) {
    const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(listen);
    if (!m || Number(m[2]) > 65535) throw new UsageError(`${where('FSAPI_WEBHOOK_LISTEN')} must be HOST:PORT, not "${listen}"`, { fix: 'e.g. 0.0.0.0:8787 (the target must be configured to deliver there)' });
    webhookListen = { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
  }
  if (target && !!webhookListen !== !!target.credentials.webhookSecret) {
    throw new UsageError('FSAPI_WEBHOOK_SECRET and FSAPI_WEBHOOK_LISTEN go together', { fix: 'set both (webhook checks) or neither' });
  }

  const plainHttpUrl = raw('FSAPI_PLAIN_HTTP_URL');
  if (plainHttpUrl && !/^http:\/\//i.test(plainHttpUrl)) {
    throw new UsageError(`${where('FSAPI_PLAIN_HTTP_URL')} must start with http://`, { fix: 'give the plain-HTTP address of the API, e.g. http://api.example.com/v1/' });
  }

  const specRaw = raw('FSAPI_SPEC');
  const specPath = specRaw ? resolve(cwd, specRaw) : undefined;
  const bindingRaw = raw('FSAPI_BINDING');
  const bindingPath = bindingRaw ? resolve(cwd, bindingRaw) : undefined;
  if (bindingPath && !specPath) throw new UsageError('FSAPI_BINDING (--binding) is given without FSAPI_SPEC (--spec)', { fix: "a binding describes a vendor's document: give that document with --spec too" });
  // The embedded sandbox serves the reference profile only: a vendor's document judged against it gives a verdict
  // on nothing (every path and shape the vendor changed fails). That is a configuration error unless asked for.
  if (specPath && !target && !bool('FSAPI_EMBEDDED_SANDBOX') && !isReferenceDocument(specPath)) {
    throw new UsageError(`${where('FSAPI_SPEC')} names a vendor document, but no base URL is set: the embedded sandbox serves only the reference profile, so the verdict would mean nothing`, {
      fix: 'set FSAPI_BASE_URL (with FSAPI_API_KEY and FSAPI_TENANT_ID) to the API the document describes, or add --embedded-sandbox to try the document and binding against the sandbox anyway',
    });
  }
  const capsRaw = raw('FSAPI_CAPABILITIES');
  const capabilities = capsRaw ? loadCapabilities(resolve(cwd, capsRaw), { strict: bool('FSAPI_STRICT') }) : undefined;

  let groups = ALL_SUITES;
  const groupsRaw = raw('FSAPI_GROUPS');
  if (groupsRaw) {
    groups = [];
    for (const name of groupsRaw.split(',').map((s) => s.trim()).filter(Boolean)) {
      const slug = groupOf(name) ?? (ALL_SUITES as string[]).find((s) => s === name.toLowerCase());
      if (!slug) {
        const near = nearest(name, ALL_SUITES);
        throw new UsageError(`unknown group "${name}" in ${where('FSAPI_GROUPS')}${near ? ` (did you mean ${near}?)` : ''}`, { fix: `choose from: ${ALL_SUITES.join(', ')}` });
      }
      if (!groups.includes(slug as SuiteSlug)) groups.push(slug as SuiteSlug);
    }
  }

  const seedRaw = raw('FSAPI_SEED');
  if (seedRaw !== undefined && !/^\d{1,9}$/.test(seedRaw)) {
    throw new UsageError(`${where('FSAPI_SEED')} must be a whole number (up to 9 digits), not "${seedRaw}"`, { fix: 'use the seed printed by an earlier run to repeat it' });
  }
  const seed = seedRaw !== undefined ? Number(seedRaw) : Math.floor(Math.random() * 1e9);

  let shard: RunConfig['shard'];
  const shardRaw = raw('FSAPI_SHARD');
  if (shardRaw) {
    const m = /^(\d+)\/(\d+)$/.exec(shardRaw);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2]) || Number(m[2]) > 64) {
      throw new UsageError(`${where('FSAPI_SHARD')} must be I/N with 1 <= I <= N <= 64, not "${shardRaw}"`, { fix: 'e.g. --shard 1/4 on the first of four CI jobs' });
    }
    shard = { index: Number(m[1]), count: Number(m[2]) };
  }

  const sandboxFaults = (raw('FSAPI_SANDBOX_FAULTS') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (sandboxFaults.length && target) {
    throw new UsageError('sandbox faults apply only to the embedded sandbox', { fix: 'unset FSAPI_BASE_URL, or drop --sandbox-fault' });
  }

  const fixturesRaw = raw('FSAPI_SANDBOX_FIXTURES');
  if (fixturesRaw && target) throw new UsageError('sandbox fixtures apply only to the embedded sandbox', { fix: 'unset FSAPI_BASE_URL, or drop FSAPI_SANDBOX_FIXTURES' });

  const baseline = raw('FSAPI_BASELINE');
  if (baseline && !existsSync(resolve(cwd, baseline))) {
    throw new UsageError(`baseline ${baseline} does not exist`, { fix: 'point --baseline at an earlier conformance.json (e.g. reports/latest/conformance.json from a stored run)' });
  }

  const remote = target !== undefined;
  const rateRaw = raw('FSAPI_RATE_LIMIT');
  return {
    ...(target ? { target } : {}),
    environment,
    ...(webhookListen ? { webhookListen } : {}),
    ...(plainHttpUrl ? { plainHttpUrl } : {}),
    ...(specPath ? { specPath } : {}),
    ...(bindingPath ? { bindingPath } : {}),
    ...(capabilities ? { capabilities } : {}),
    groups,
    seed,
    seedGiven: seedRaw !== undefined,
    concurrency: int('FSAPI_CONCURRENCY', 1, 64, environment === 'live' ? LIVE_CONCURRENCY : EMBEDDED_CONCURRENCY),
    pacing: pacingFor({ remote, live: environment === 'live', rateLimit: rateRaw === undefined ? undefined : int('FSAPI_RATE_LIMIT', 0, 10_000, 0) }),
    timeoutMs: int('FSAPI_TIMEOUT_MS', 100, 600_000),
    maxResponseBytes: int('FSAPI_MAX_RESPONSE_BYTES', 1024, 1_073_741_824),
    reportDir: resolve(cwd, raw('FSAPI_REPORT_DIR') ?? settingDefault('FSAPI_REPORT_DIR')),
    strict: bool('FSAPI_STRICT'),
    allowLiveWrites: bool('FSAPI_ALLOW_LIVE_WRITES'),
    html: bool('FSAPI_HTML'),
    quiet: bool('FSAPI_QUIET'),
    ...(baseline ? { baseline: resolve(cwd, baseline) } : {}),
    retries: int('FSAPI_RETRIES', 0, 100),
    latencyDrift: ratio('FSAPI_LATENCY_DRIFT', 2),
    trend: int('FSAPI_TREND', 0, 1000),
    ...(shard ? { shard } : {}),
    sandboxFaults,
    ...(fixturesRaw ? { sandboxFixtures: resolve(cwd, fixturesRaw) } : {}),
    ...(raw('FSAPI_TRACE_FILE') ? { traceFile: resolve(cwd, raw('FSAPI_TRACE_FILE')!) } : {}),
    idempotencyParallel: int('FSAPI_IDEMPOTENCY_PARALLEL', 2, 100),
    webhookWaitMs: int('FSAPI_WEBHOOK_WAIT_MS', 100, 600_000),
    replayDelayMs: int('FSAPI_REPLAY_DELAY_MS', 0, 600_000),
    explore: int('FSAPI_EXPLORE', 0, 10_000),
    exploreTotal: int('FSAPI_EXPLORE_TOTAL', 0, 1_000_000),
  };
}

/** https only (seed, Authentication > Keys, rule 3); normalised to end with '/'; never user:pass@. */
function parseBaseUrl(value: string, where: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${where} is not a URL: "${value}"`, { fix: 'give the full base URL, e.g. https://sandbox.example.com/v1/' });
  }
  if (url.protocol !== 'https:') {
    throw new UsageError(`${where} must use https (the API is HTTPS only: seed spec, Authentication > Keys, rule 3); no request was sent`, {
      fix: 'use the https:// address of the API; the plain-HTTP probe has its own setting, FSAPI_PLAIN_HTTP_URL',
    });
  }
  if (url.username || url.password) {
    throw new UsageError(`${where} must not carry credentials (user:password@)`, { fix: 'put the key in FSAPI_API_KEY instead' });
  }
  if (url.search || url.hash) throw new UsageError(`${where} must not have a query or fragment`, { fix: 'give only scheme, host, port and path' });
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url.toString();
}

/** All configured secrets: what the redactor hides everywhere. */
export function secretsOf(c: Credentials | undefined): { name: string; value: string }[] {
  if (!c) return [];
  const out = [
    { name: 'FSAPI_API_KEY', value: c.apiKey },
    { name: 'FSAPI_PUBLIC_KEY', value: c.publicKey },
    { name: 'FSAPI_LIVE_API_KEY', value: c.liveApiKey },
    { name: 'FSAPI_REVOKED_API_KEY', value: c.revokedApiKey },
    { name: 'FSAPI_SECOND_API_KEY', value: c.second?.apiKey },
    { name: 'FSAPI_WEBHOOK_SECRET', value: c.webhookSecret },
  ];
  return out.filter((s): s is { name: string; value: string } => typeof s.value === 'string' && s.value.length > 0);
}

/** The reference profile itself, by path or by content (a copy of it is no vendor document). */
function isReferenceDocument(path: string): boolean {
  const reference = fromRoot('spec', 'openapi.yaml');
  if (resolve(path) === reference) return true;
  try {
    return readFileSync(path).equals(readFileSync(reference));
  } catch {
    // An unreadable --spec is refused, naming it, where the document is loaded.
    return false;
  }
}
