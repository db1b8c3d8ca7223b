/**
 * Every setting of `run`: its environment variable, its flag (never for secrets), default and meaning.
 * One table feeds parsing, `run --help`, the README table and .env.example, so they cannot drift.
 */
export interface Setting {
  env: string;
  flag?: string;
  /** One-letter form of the flag, where a convention exists (-q for --quiet). */
  short?: string;
  type: 'string' | 'boolean' | 'list';
  value?: string;
  secret?: boolean;
  default?: string;
  /** The flag's value may be left out (`--explore` alone, or followed by another flag): it then takes the default. */
  valueOptional?: true;
  description: string;
}

/**
 * Checks in flight per suite by default: 16, every check that sits out the replay delay starts in one round, and
 * the two workers keep the CPU busy while checks wait on answers (against the embedded sandbox a full run took 0.5
 * to 1 s longer at 8, and 3 s longer at 4). A remote target gets as many: the run's pacing, not the number of
 * checks, decides what it is sent. A live one gets a polite 4.
 */
export const EMBEDDED_CONCURRENCY = 16;
export const LIVE_CONCURRENCY = 4;

export const SETTINGS: readonly Setting[] = [
  { env: 'FSAPI_BASE_URL', flag: 'base-url', type: 'string', value: 'URL', default: '(unset: start the embedded sandbox)', description: 'Base URL of the target (https only), ending in /v1/; for a document of your own (FSAPI_SPEC), the address its paths are written from.' },
  { env: 'FSAPI_API_KEY', type: 'string', secret: true, description: 'Secret key sent as Api-Key. Required with FSAPI_BASE_URL.' },
  { env: 'FSAPI_TENANT_ID', flag: 'tenant-id', type: 'string', value: 'ID', description: 'Business identifier sent as x-tenant-id. Required with FSAPI_BASE_URL.' },
  { env: 'FSAPI_ENVIRONMENT', flag: 'environment', type: 'string', value: 'sandbox|live', default: 'sandbox', description: 'Environment of the key; in live, no write is sent unless --allow-live-writes.' },
  { env: 'FSAPI_CA_FILE', flag: 'ca-file', type: 'string', value: 'FILE', description: 'Extra trusted CA certificate (PEM), added to the system roots. Verification is never switched off.' },
  { env: 'FSAPI_PUBLIC_KEY', type: 'string', secret: true, description: 'Public key of the same environment: unlocks the public-key-refused checks.' },
  { env: 'FSAPI_LIVE_API_KEY', type: 'string', secret: true, description: 'Live secret key: unlocks the live-key-refused-on-sandbox checks.' },
  { env: 'FSAPI_REVOKED_API_KEY', type: 'string', secret: true, description: 'A revoked key: unlocks the revoked-key checks.' },
  { env: 'FSAPI_SECOND_API_KEY', type: 'string', secret: true, description: "Another business's secret key: unlocks tenant isolation checks (with FSAPI_SECOND_TENANT_ID)." },
  { env: 'FSAPI_SECOND_TENANT_ID', flag: 'second-tenant-id', type: 'string', value: 'ID', description: "The other business's x-tenant-id." },
  { env: 'FSAPI_WEBHOOK_SECRET', type: 'string', secret: true, description: 'Webhook secret (whsec_...): unlocks signature checks (with FSAPI_WEBHOOK_LISTEN).' },
  { env: 'FSAPI_WEBHOOK_LISTEN', flag: 'webhook-listen', type: 'string', value: 'HOST:PORT', description: "Where the suite's webhook receiver listens; the target must be set to deliver there." },
  { env: 'FSAPI_PLAIN_HTTP_URL', flag: 'plain-http-url', type: 'string', value: 'URL', default: 'the base URL with http://, same port', description: 'Where the plain-HTTP probe goes (it carries a dummy key, never the real one).' },
  { env: 'FSAPI_SPEC', flag: 'spec', type: 'string', value: 'FILE', default: 'spec/openapi.yaml (reference profile)', description: "The vendor's own OpenAPI 3.x document; CONTRACT checks hold the target to it." },
  { env: 'FSAPI_EMBEDDED_SANDBOX', flag: 'embedded-sandbox', type: 'boolean', default: 'false', description: "With FSAPI_SPEC and no base URL: run anyway against the embedded sandbox, which serves only the reference profile (a trial of the document and binding, not a verdict on the vendor's API)." },
  { env: 'FSAPI_BINDING', flag: 'binding', type: 'string', value: 'FILE', description: "With FSAPI_SPEC: how the vendor's document plays the reference operations (paths, names, envelopes, lists); written by `fsapi-conformance bind`." },
  { env: 'FSAPI_CAPABILITIES', flag: 'capabilities', type: 'string', value: 'FILE', description: 'YAML/JSON file declaring implemented groups, operations and optional features, and waived requirements (each with its reason).' },
  { env: 'FSAPI_GROUPS', flag: 'groups', type: 'list', value: 'LIST', default: 'all 12 groups + transport, versioning', description: 'Comma-separated suites to run (e.g. customers,accounts,transport).' },
  { env: 'FSAPI_SEED', flag: 'seed', type: 'string', value: 'N', default: 'random, printed and stored', description: 'Seed of the generated data; the same seed repeats the same run.' },
  { env: 'FSAPI_CONCURRENCY', flag: 'concurrency', type: 'string', value: 'N', default: `${EMBEDDED_CONCURRENCY}; ${LIVE_CONCURRENCY} with FSAPI_ENVIRONMENT=live`, description: 'Checks in flight at once per suite (what the target is sent is paced apart: FSAPI_RATE_LIMIT).' },
  { env: 'FSAPI_PART_CHECKS', flag: 'part-checks', type: 'string', value: 'N', default: '5000', description: "A vendor's document without a binding, in a run of one worker: its operations' suite (unbound) runs in parts of at most N checks, one after another, and the test runner's state for each part's checks is freed as it ends. 0: one part whatever its size." },
  { env: 'FSAPI_RATE_LIMIT', flag: 'rate-limit', type: 'string', value: 'N', default: 'adaptive (remote), none (embedded)', description: 'A hard cap in requests per second across the whole run, in one process: each shard has its own. Unset, a remote target is paced adaptively (from 20/s and 8 in flight, raised while the answers stay healthy; live: at most 20/s); 0 = no pacing until a 429/503.' },
  { env: 'FSAPI_TIMEOUT_MS', flag: 'timeout-ms', type: 'string', value: 'MS', default: '10000', description: 'Per-request timeout (the one preflight request allows at least 5000).' },
  { env: 'FSAPI_MAX_RESPONSE_BYTES', flag: 'max-response-bytes', type: 'string', value: 'N', default: '1048576', description: 'Response bodies are cut (and reported) beyond this size.' },
  { env: 'FSAPI_REPORT_DIR', flag: 'report-dir', type: 'string', value: 'DIR', default: 'reports', description: 'Where reports/<run-id>/ and reports/latest are written.' },
  { env: 'FSAPI_STRICT', flag: 'strict', type: 'boolean', default: 'false', description: 'SHOULD and PROFILE failures fail (and block the verdict) instead of warning.' },
  { env: 'FSAPI_ALLOW_LIVE_WRITES', flag: 'allow-live-writes', type: 'boolean', default: 'false', description: 'In live, allow the checks that create or change data.' },
  { env: 'FSAPI_QUIET', flag: 'quiet', short: 'q', type: 'boolean', default: 'false', description: 'No live progress line while the checks run (the per-suite lines and the closing summary stay).' },
  { env: 'FSAPI_HTML', flag: 'html', type: 'boolean', default: 'false', description: 'Also build the single-file Allure HTML report.' },
  { env: 'FSAPI_BASELINE', flag: 'baseline', type: 'string', value: 'FILE', description: 'Earlier conformance.json (or its report directory) to compare with: document diff, behaviour drift, checks newly failing; regressions exit 4, intermittent failures 7.' },
  { env: 'FSAPI_RETRIES', flag: 'retries', type: 'string', value: 'N', default: '5', description: 'With a baseline: a check that passed there and fails now runs N more times; if one passes, it is intermittent (exit 7), with its failure rate. 0: no retry.' },
  { env: 'FSAPI_LATENCY_DRIFT', flag: 'latency-drift', type: 'string', value: 'RATIO', default: '2', description: "With a baseline: an operation's p50 or p95 latency that grew past RATIO times the baseline's (and by 50 ms or more) is reported as drift." },
  { env: 'FSAPI_TREND', flag: 'trend', type: 'string', value: 'N', default: '10', description: 'summary.md (and the Allure HTML, with its history) shows how counts, MUST coverage and latency moved over the last N runs in the report directory. 0: no trend.' },
  { env: 'FSAPI_SHARD', flag: 'shard', type: 'string', value: 'I/N', description: 'Run only shard I of N (1-based): whole suites, balanced by their number of checks. For CI matrix jobs; merge the reports afterwards.' },
  { env: 'FSAPI_SANDBOX_FAULTS', flag: 'sandbox-fault', type: 'list', value: 'NAME', description: 'Embedded sandbox only: switch on fault(s), to see the suite catch them.' },
  { env: 'FSAPI_TRACE_FILE', flag: 'trace-file', type: 'string', value: 'FILE', description: 'Append every request sent (redacted, one JSON line each) to this file: for benchmarks and debugging.' },
  { env: 'FSAPI_SANDBOX_FIXTURES', flag: 'sandbox-fixtures', type: 'string', value: 'FILE', default: 'fixtures/tenants.json', description: 'Embedded sandbox only: its tenants and (fake) keys.' },
  { env: 'FSAPI_IDEMPOTENCY_PARALLEL', flag: 'idempotency-parallel', type: 'string', value: 'N', default: '8', description: 'Parallel identical POSTs in the concurrency checks.' },
  { env: 'FSAPI_WEBHOOK_WAIT_MS', flag: 'webhook-wait-ms', type: 'string', value: 'MS', default: '10000', description: 'How long to wait for a webhook delivery or retry.' },
  { env: 'FSAPI_EXPLORE', flag: 'explore', type: 'string', value: 'N', default: '24', valueOptional: true, description: 'The exploration phase: valid requests per operation that walk its input space (edges, unicode, formats, then seeded random values), each failure shrunk to a minimal request. 0: off. A bare --explore takes the default.' },
  { env: 'FSAPI_EXPLORE_TOTAL', flag: 'explore-total', type: 'string', value: 'M', default: '1000', description: "The exploration phase's requests over the whole run: each explorable operation gets an even share of M, at most its FSAPI_EXPLORE; with fewer than one each, the first M operations by operationId get one and the rest none. Decided when the run is planned. 0: no total." },
  { env: 'FSAPI_REPLAY_DELAY_MS', flag: 'replay-delay-ms', type: 'string', value: 'MS', default: '2000', description: 'Age of the idempotency key in the delayed-replay check.' },
];

export const KNOWN_ENV = new Set(SETTINGS.map((s) => s.env).concat(['FSAPI_DEBUG', 'FSAPI_FROM_SOURCE', 'FSAPI_INVOKED_AS', 'FSAPI_SANDBOX_PORT', 'FSAPI_SANDBOX_WEBHOOK_URL', 'FSAPI_SANDBOX_WEBHOOK_SECRET', 'FSAPI_CERTIFY_KEY', 'FSAPI_CERTIFY_PARTY', 'FSAPI_CERTIFY_ALLOW_REFERENCE_SANDBOX']));

/** A setting's default as the table states it: parsing uses the same value that help, README and .env.example show. */
export function settingDefault(env: string): string {
  const value = SETTINGS.find((s) => s.env === env)?.default;
  if (value === undefined) throw new Error(`${env} has no default in SETTINGS (src/config/variables.ts)`);
  return value;
}

/** A numeric setting's default, from the same table. */
export function numericDefault(env: string): number {
  const value = settingDefault(env);
  if (!/^\d+$/.test(value)) throw new Error(`${env}'s default in SETTINGS is "${value}", not a number`);
  return Number(value);
}
