import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { CROSS_CUTTING, GROUPS, groupOf, type SuiteSlug } from '../catalogue/groups.js';
import { UsageError } from '../errors.js';
import { fromRoot } from '../paths.js';
import { loadCapabilities, type Capabilities } from './capabilities.js';
import { pacingFor, type Pacing } from './pacing.js';
import { runEnvironment, settingReader, type Flags, type SettingReader } from './setting-reader.js';
import { EMBEDDED_CONCURRENCY, LIVE_CONCURRENCY, settingDefault } from './variables.js';
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
  /** A suite of more checks than this runs in parts of at most this many (src/runner/suite-parts.ts); 0: never. */
  partChecks: number;
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

/**
 * Builds the run configuration. Precedence: flags > environment > .env > defaults; secrets only from the
 * environment or .env. Any missing or malformed value is one UsageError, before a single request is sent; the
 * settings are read in a fixed order, so the first refused is always the same one.
 */
export function loadRunConfig(flags: Flags, opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): RunConfig {
  const cwd = opts.cwd ?? process.cwd();
  const read = settingReader(flags, runEnvironment(cwd, opts.env ?? process.env));
  const target = targetOf(read, cwd);
  const environment = environmentOf(read, target);
  const webhookListen = webhookListenOf(read, target);
  const plainHttpUrl = read.raw('FSAPI_PLAIN_HTTP_URL');
  if (plainHttpUrl && !/^http:\/\//i.test(plainHttpUrl)) {
    throw new UsageError(`${read.where('FSAPI_PLAIN_HTTP_URL')} must start with http://`, { fix: 'give the plain-HTTP address of the API, e.g. http://api.example.com/v1/' });
  }
  const { specPath, bindingPath } = documentOf(read, cwd, target);
  const capsRaw = read.raw('FSAPI_CAPABILITIES');
  const capabilities = capsRaw ? loadCapabilities(resolve(cwd, capsRaw), { strict: read.bool('FSAPI_STRICT') }) : undefined;
  const groups = groupsOf(read);
  const seedRaw = read.raw('FSAPI_SEED');
  if (seedRaw !== undefined && !/^\d{1,9}$/.test(seedRaw)) {
    throw new UsageError(`${read.where('FSAPI_SEED')} must be a whole number (up to 9 digits), not "${seedRaw}"`, { fix: 'use the seed printed by an earlier run to repeat it' });
  }
  const seed = seedRaw !== undefined ? Number(seedRaw) : Math.floor(Math.random() * 1e9);
  const shard = shardOf(read);
  const { sandboxFaults, fixturesRaw } = sandboxSettingsOf(read, target);
  const baseline = read.raw('FSAPI_BASELINE');
  if (baseline && !existsSync(resolve(cwd, baseline))) {
    throw new UsageError(`baseline ${baseline} does not exist`, { fix: 'point --baseline at an earlier conformance.json (e.g. reports/latest/conformance.json from a stored run)' });
  }

  const { raw, bool, int } = read;
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
    partChecks: int('FSAPI_PART_CHECKS', 0, 10_000_000),
    pacing: pacingFor({ remote: target !== undefined, live: environment === 'live', rateLimit: rateRaw === undefined ? undefined : int('FSAPI_RATE_LIMIT', 0, 10_000, 0) }),
    timeoutMs: int('FSAPI_TIMEOUT_MS', 100, 600_000),
    maxResponseBytes: int('FSAPI_MAX_RESPONSE_BYTES', 1024, 1_073_741_824),
    reportDir: resolve(cwd, raw('FSAPI_REPORT_DIR') ?? settingDefault('FSAPI_REPORT_DIR')),
    strict: bool('FSAPI_STRICT'),
    allowLiveWrites: bool('FSAPI_ALLOW_LIVE_WRITES'),
    html: bool('FSAPI_HTML'),
    quiet: bool('FSAPI_QUIET'),
    ...(baseline ? { baseline: resolve(cwd, baseline) } : {}),
    retries: int('FSAPI_RETRIES', 0, 100),
    latencyDrift: read.ratio('FSAPI_LATENCY_DRIFT', 2),
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

type Target = NonNullable<RunConfig['target']>;

/** The target and its credentials when a base URL is set; undefined for the embedded sandbox. */
function targetOf(read: SettingReader, cwd: string): Target | undefined {
  const baseUrlRaw = read.raw('FSAPI_BASE_URL');
  if (baseUrlRaw === undefined) {
    if (read.raw('FSAPI_CA_FILE')) throw new UsageError('FSAPI_CA_FILE is set but FSAPI_BASE_URL is not', { fix: 'set FSAPI_BASE_URL too, or unset FSAPI_CA_FILE to run against the embedded sandbox' });
    return undefined;
  }
  const target: Target = { baseUrl: parseBaseUrl(baseUrlRaw, read.where('FSAPI_BASE_URL')), credentials: credentialsOf(read) };
  const caFile = read.raw('FSAPI_CA_FILE');
  if (caFile) {
    const p = resolve(cwd, caFile);
    if (!existsSync(p)) throw new UsageError(`${read.where('FSAPI_CA_FILE')}: ${caFile} does not exist`, { fix: 'point it at a PEM file holding the CA certificate' });
    const pem = readFileSync(p, 'utf8');
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
      throw new UsageError(`${read.where('FSAPI_CA_FILE')}: ${caFile} holds no PEM certificate`, { fix: 'supply the CA certificate in PEM form (-----BEGIN CERTIFICATE-----)' });
    }
    target.caFile = p;
    target.caPem = pem;
  }
  return target;
}

/** The keys and tenants a target is tested with: the key and tenant are required, the others unlock checks. */
function credentialsOf(read: SettingReader): Credentials {
  const apiKey = read.secret('FSAPI_API_KEY');
  const tenantId = read.raw('FSAPI_TENANT_ID');
  if (!apiKey) throw new UsageError('FSAPI_API_KEY is required when a base URL is set', { fix: 'export FSAPI_API_KEY=<your secret key> (or put it in .env); keys are never taken as flags' });
  if (!tenantId) throw new UsageError('FSAPI_TENANT_ID is required when a base URL is set', { fix: 'set FSAPI_TENANT_ID (or --tenant-id) to your business identifier' });
  const credentials: Credentials = { apiKey, tenantId };
  const publicKey = read.secret('FSAPI_PUBLIC_KEY');
  if (publicKey) credentials.publicKey = publicKey;
  const liveApiKey = read.secret('FSAPI_LIVE_API_KEY');
  if (liveApiKey) credentials.liveApiKey = liveApiKey;
  const revokedApiKey = read.secret('FSAPI_REVOKED_API_KEY');
  if (revokedApiKey) credentials.revokedApiKey = revokedApiKey;
  const secondKey = read.secret('FSAPI_SECOND_API_KEY');
  const secondTenant = read.raw('FSAPI_SECOND_TENANT_ID');
  if (!!secondKey !== !!secondTenant) {
    throw new UsageError('FSAPI_SECOND_API_KEY and FSAPI_SECOND_TENANT_ID go together', { fix: 'set both (tenant isolation checks) or neither' });
  }
  if (secondKey && secondTenant) credentials.second = { apiKey: secondKey, tenantId: secondTenant };
  const webhookSecret = read.secret('FSAPI_WEBHOOK_SECRET');
  if (webhookSecret) credentials.webhookSecret = webhookSecret;
  return credentials;
}

function environmentOf(read: SettingReader, target: Target | undefined): Environment {
  const environment = (read.raw('FSAPI_ENVIRONMENT') ?? settingDefault('FSAPI_ENVIRONMENT')).toLowerCase();
  if (environment !== 'sandbox' && environment !== 'live') {
    throw new UsageError(`${read.where('FSAPI_ENVIRONMENT')} must be sandbox or live, not "${environment}"`, { fix: 'set FSAPI_ENVIRONMENT=sandbox (or live)' });
  }
  if (!target && environment === 'live') {
    throw new UsageError('FSAPI_ENVIRONMENT=live needs a target: the embedded sandbox is a sandbox', { fix: 'set FSAPI_BASE_URL, or unset FSAPI_ENVIRONMENT' });
  }
  return environment;
}

/** Where the suite's webhook receiver listens; with a target it goes with the webhook secret. */
function webhookListenOf(read: SettingReader, target: Target | undefined): RunConfig['webhookListen'] {
  let webhookListen: RunConfig['webhookListen'];
  const listen = read.raw('FSAPI_WEBHOOK_LISTEN');
  if (listen) {
    const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(listen);
    if (!m || Number(m[2]) > 65535) throw new UsageError(`${read.where('FSAPI_WEBHOOK_LISTEN')} must be HOST:PORT, not "${listen}"`, { fix: 'e.g. 0.0.0.0:8787 (the target must be configured to deliver there)' });
    webhookListen = { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
  }
  if (target && !!webhookListen !== !!target.credentials.webhookSecret) {
    throw new UsageError('FSAPI_WEBHOOK_SECRET and FSAPI_WEBHOOK_LISTEN go together', { fix: 'set both (webhook checks) or neither' });
  }
  return webhookListen;
}

/** The vendor document and its binding, if any. */
function documentOf(read: SettingReader, cwd: string, target: Target | undefined): { specPath?: string; bindingPath?: string } {
  const specRaw = read.raw('FSAPI_SPEC');
  const specPath = specRaw ? resolve(cwd, specRaw) : undefined;
  const bindingRaw = read.raw('FSAPI_BINDING');
  const bindingPath = bindingRaw ? resolve(cwd, bindingRaw) : undefined;
  if (bindingPath && !specPath) throw new UsageError('FSAPI_BINDING (--binding) is given without FSAPI_SPEC (--spec)', { fix: "a binding describes a vendor's document: give that document with --spec too" });
  // The embedded sandbox serves the reference profile only: a vendor's document judged against it gives a verdict
  // on nothing (every path and shape the vendor changed fails). That is a configuration error unless asked for.
  if (specPath && !target && !read.bool('FSAPI_EMBEDDED_SANDBOX') && !isReferenceDocument(specPath)) {
    throw new UsageError(`${read.where('FSAPI_SPEC')} names a vendor document, but no base URL is set: the embedded sandbox serves only the reference profile, so the verdict would mean nothing`, {
      fix: 'set FSAPI_BASE_URL (with FSAPI_API_KEY and FSAPI_TENANT_ID) to the API the document describes, or add --embedded-sandbox to try the document and binding against the sandbox anyway',
    });
  }
  return { ...(specPath ? { specPath } : {}), ...(bindingPath ? { bindingPath } : {}) };
}

/** The suites to run, by group name or slug (every suite when unset). */
function groupsOf(read: SettingReader): SuiteSlug[] {
  const groupsRaw = read.raw('FSAPI_GROUPS');
  if (!groupsRaw) return ALL_SUITES;
  const groups: SuiteSlug[] = [];
  for (const name of groupsRaw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const slug = groupOf(name) ?? (ALL_SUITES as string[]).find((s) => s === name.toLowerCase());
    if (!slug) {
      const near = nearest(name, ALL_SUITES);
      throw new UsageError(`unknown group "${name}" in ${read.where('FSAPI_GROUPS')}${near ? ` (did you mean ${near}?)` : ''}`, { fix: `choose from: ${ALL_SUITES.join(', ')}` });
    }
    if (!groups.includes(slug as SuiteSlug)) groups.push(slug as SuiteSlug);
  }
  return groups;
}

function shardOf(read: SettingReader): RunConfig['shard'] {
  const shardRaw = read.raw('FSAPI_SHARD');
  if (!shardRaw) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(shardRaw);
  if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2]) || Number(m[2]) > 64) {
    throw new UsageError(`${read.where('FSAPI_SHARD')} must be I/N with 1 <= I <= N <= 64, not "${shardRaw}"`, { fix: 'e.g. --shard 1/4 on the first of four CI jobs' });
  }
  return { index: Number(m[1]), count: Number(m[2]) };
}

/** Faults and fixtures of the embedded sandbox: refused with a target of one's own. */
function sandboxSettingsOf(read: SettingReader, target: Target | undefined): { sandboxFaults: string[]; fixturesRaw: string | undefined } {
  const sandboxFaults = (read.raw('FSAPI_SANDBOX_FAULTS') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (sandboxFaults.length && target) {
    throw new UsageError('sandbox faults apply only to the embedded sandbox', { fix: 'unset FSAPI_BASE_URL, or drop --sandbox-fault' });
  }
  const fixturesRaw = read.raw('FSAPI_SANDBOX_FIXTURES');
  if (fixturesRaw && target) throw new UsageError('sandbox fixtures apply only to the embedded sandbox', { fix: 'unset FSAPI_BASE_URL, or drop FSAPI_SANDBOX_FIXTURES' });
  return { sandboxFaults, fixturesRaw };
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
