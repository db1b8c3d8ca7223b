/**
 * Run configuration: precedence, validation and the one-message errors. Also the proof of FSAPI-TRANS-001
 * (client scope): a base URL that is not https is refused before any request is sent.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunConfig, secretsOf } from '../src/config/run-config.js';
import { SETTINGS } from '../src/config/variables.js';
import { UsageError } from '../src/errors.js';

const cwd = () => mkdtempSync(join(tmpdir(), 'fsapi-config-'));
const remote = { FSAPI_BASE_URL: 'https://api.example.test/v1/', FSAPI_API_KEY: 'sk_test_fake_0123456789', FSAPI_TENANT_ID: 'ten_1' };
const load = (env: NodeJS.ProcessEnv, flags: Record<string, string | boolean | string[]> = {}, dir = cwd()) => loadRunConfig(flags, { env, cwd: dir });
const error = (f: () => unknown): UsageError => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return e as UsageError;
  }
  throw new Error('expected a UsageError');
};

describe('run configuration', () => {
  it('defaults to the embedded sandbox with local-friendly limits', () => {
    const c = load({});
    expect(c.target).toBeUndefined();
    expect(c.environment).toBe('sandbox');
    expect(c.groups).toHaveLength(15);
    expect(c).toMatchObject({ concurrency: 16, pacing: { kind: 'none', rate: 0 }, timeoutMs: 10_000, strict: false, seedGiven: false });
  });

  it('paces a remote target adaptively from a start any sandbox takes; live keeps a polite ceiling; FSAPI_RATE_LIMIT is a hard cap', () => {
    const c = load(remote);
    expect(c.target).toMatchObject({ baseUrl: 'https://api.example.test/v1/', credentials: { apiKey: remote.FSAPI_API_KEY, tenantId: 'ten_1' } });
    expect(c).toMatchObject({ concurrency: 16, pacing: { kind: 'adaptive', rate: 20, inFlight: 8, rateCeiling: 0, inFlightCeiling: 0 } });
    expect(load({ ...remote, FSAPI_ENVIRONMENT: 'live' })).toMatchObject({ concurrency: 4, pacing: { kind: 'adaptive', rate: 20, rateCeiling: 20, inFlightCeiling: 8 } });
    expect(load({ ...remote, FSAPI_RATE_LIMIT: '50' }).pacing).toEqual({ kind: 'fixed', rate: 50, rateCeiling: 50, inFlight: 0, inFlightCeiling: 0 });
    expect(load({ ...remote, FSAPI_ENVIRONMENT: 'live' }, { 'rate-limit': '5' }).pacing).toMatchObject({ kind: 'fixed', rate: 5, rateCeiling: 5 });
    expect(load({ ...remote, FSAPI_RATE_LIMIT: '0' }).pacing).toMatchObject({ kind: 'none', rate: 0 });
  });

  it('FSAPI-TRANS-001: refuses a base URL that is not https, naming the seed rule', () => {
    const e = error(() => load({ ...remote, FSAPI_BASE_URL: 'http://api.example.test/v1/' }));
    expect(e.message).toMatch(/must use https/);
    expect(e.message).toMatch(/Authentication > Keys, rule 3/);
    expect(e.message).toMatch(/no request was sent/);
  });

  it('lets flags override the environment, which overrides .env, for everything but secrets', () => {
    const dir = cwd();
    writeFileSync(join(dir, '.env'), 'FSAPI_SEED=1\nFSAPI_CONCURRENCY=2\nFSAPI_TIMEOUT_MS=5000\n');
    const c = load({ FSAPI_CONCURRENCY: '3' }, { seed: '7' }, dir);
    expect(c.seed).toBe(7);
    expect(c.concurrency).toBe(3);
    expect(c.timeoutMs).toBe(5000);
    // There is no flag for a secret at all: the option list has none.
    for (const s of SETTINGS.filter((x) => x.secret)) expect(s.flag).toBeUndefined();
  });

  it('names a misspelt variable and its nearest real name', () => {
    const e = error(() => load({ FSAPI_BASEURL: 'https://x.test/v1/' }));
    expect(e.message).toMatch(/unknown setting FSAPI_BASEURL; did you mean FSAPI_BASE_URL\?/);
  });

  it('refuses a malformed .env line, naming the line and the fix', () => {
    const dir = cwd();
    writeFileSync(join(dir, '.env'), '# settings\nFSAPI_SEED=1\nthis line is broken\n');
    const e = error(() => load({}, {}, dir));
    expect(e.where).toBe('3');
    expect(e.fix).toMatch(/NAME=value/);
  });

  it('requires the key and tenant with a base URL, and never echoes a secret', () => {
    expect(error(() => load({ FSAPI_BASE_URL: remote.FSAPI_BASE_URL, FSAPI_TENANT_ID: 't' })).message).toMatch(/FSAPI_API_KEY is required/);
    expect(error(() => load({ FSAPI_BASE_URL: remote.FSAPI_BASE_URL, FSAPI_API_KEY: 'k' })).message).toMatch(/FSAPI_TENANT_ID is required/);
    const e = error(() => load({ ...remote, FSAPI_SECOND_API_KEY: 'sk_second_secret_value' }));
    expect(e.message).toMatch(/go together/);
    expect(`${e.message} ${e.fix}`).not.toContain('sk_second_secret_value');
  });

  it('validates every kind of value with one clear message', () => {
    const cases: [NodeJS.ProcessEnv, Record<string, string | boolean>, RegExp][] = [
      [{ FSAPI_CONCURRENCY: 'lots' }, {}, /FSAPI_CONCURRENCY must be a whole number from 1 to 64/],
      [{}, { concurrency: '0' }, /--concurrency must be a whole number/],
      [{ FSAPI_ENVIRONMENT: 'prod' }, {}, /must be sandbox or live/],
      [{ FSAPI_ENVIRONMENT: 'live' }, {}, /needs a target/],
      [{ FSAPI_GROUPS: 'customers,cardz' }, {}, /unknown group "cardz".*did you mean cards/],
      [{ FSAPI_SEED: '-3' }, {}, /must be a whole number/],
      [{ FSAPI_SHARD: '3/2' }, {}, /I\/N with 1 <= I <= N/],
      [{ FSAPI_STRICT: 'maybe' }, {}, /must be true or false/],
      [{ ...remote, FSAPI_CA_FILE: '/nope/ca.pem' }, {}, /does not exist/],
      [{ ...remote, FSAPI_WEBHOOK_LISTEN: 'nowhere' }, {}, /must be HOST:PORT/],
      [{ ...remote, FSAPI_WEBHOOK_LISTEN: '127.0.0.1:9999' }, {}, /FSAPI_WEBHOOK_SECRET and FSAPI_WEBHOOK_LISTEN go together/],
      [{ ...remote, FSAPI_PLAIN_HTTP_URL: 'https://x/' }, {}, /must start with http:\/\//],
      [{ ...remote, FSAPI_SANDBOX_FAULTS: 'idem-ignored' }, {}, /only to the embedded sandbox/],
      [{ ...remote, FSAPI_BASE_URL: 'https://user:pw@api.example.test/v1/' }, {}, /must not carry credentials/],
      [{ FSAPI_BASELINE: 'missing.json' }, {}, /baseline missing\.json does not exist/],
    ];
    for (const [env, flags, re] of cases) expect(error(() => load(env, flags)).message, JSON.stringify(env)).toMatch(re);
  });

  it('refuses a CA file that holds no certificate', () => {
    const dir = cwd();
    writeFileSync(join(dir, 'ca.pem'), 'not a certificate');
    expect(error(() => load({ ...remote, FSAPI_CA_FILE: 'ca.pem' }, {}, dir)).message).toMatch(/holds no PEM certificate/);
  });

  it('normalises the base URL and accepts groups by tag name', () => {
    const c = load({ ...remote, FSAPI_BASE_URL: 'https://api.example.test/v1', FSAPI_GROUPS: 'External accounts, FX ,transport' });
    expect(c.target!.baseUrl).toBe('https://api.example.test/v1/');
    expect(c.groups).toEqual(['external-accounts', 'fx', 'transport']);
  });

  it('lists every configured secret for the redactor', () => {
    const c = load({ ...remote, FSAPI_PUBLIC_KEY: 'pk_x_1234', FSAPI_SECOND_API_KEY: 'sk_2_1234', FSAPI_SECOND_TENANT_ID: 't2', FSAPI_WEBHOOK_SECRET: 'whsec_abcd', FSAPI_WEBHOOK_LISTEN: '127.0.0.1:0' });
    expect(secretsOf(c.target!.credentials).map((s) => s.name).sort()).toEqual(['FSAPI_API_KEY', 'FSAPI_PUBLIC_KEY', 'FSAPI_SECOND_API_KEY', 'FSAPI_WEBHOOK_SECRET']);
  });
});

describe('capabilities waivers', () => {
  const caps = (text: string) => {
    const dir = cwd();
    writeFileSync(join(dir, 'caps.yaml'), text);
    return dir;
  };
  const waiveTen = 'waive:\n  - requirement: FSAPI-TEN-001\n    reason: "the sandbox has one business"\n';

  it('reads a waiver with its reason', () => {
    const c = load({ FSAPI_CAPABILITIES: 'caps.yaml' }, {}, caps(waiveTen));
    expect(c.capabilities!.waive).toEqual([{ requirement: 'FSAPI-TEN-001', reason: 'the sandbox has one business' }]);
  });

  it('refuses a MUST waiver under --strict (certification), naming the waiver', () => {
    const e = error(() => load({ FSAPI_CAPABILITIES: 'caps.yaml' }, { strict: true }, caps(waiveTen)));
    expect(e.message).toMatch(/waive entry 1: FSAPI-TEN-001 is a MUST requirement, and --strict \(certification\) refuses to waive a MUST requirement/);
    expect(e.fix).toMatch(/without --strict/);
    // A SHOULD waiver is a choice certification can show: allowed.
    const should = load({ FSAPI_CAPABILITIES: 'caps.yaml' }, { strict: true }, caps('waive: [{ requirement: FSAPI-MEDIA-101, reason: "no text bodies" }]\n'));
    expect(should.capabilities!.waive.map((w) => w.requirement)).toEqual(['FSAPI-MEDIA-101']);
  });

  it('names an unknown requirement, a missing reason and a repeated waiver', () => {
    expect(error(() => load({ FSAPI_CAPABILITIES: 'caps.yaml' }, {}, caps('waive: [{ requirement: FSAPI-TEN-01, reason: x }]\n'))).message).toMatch(
      /waive entry 1: unknown requirement "FSAPI-TEN-01" \(did you mean FSAPI-TEN-001\?\)/,
    );
    expect(error(() => load({ FSAPI_CAPABILITIES: 'caps.yaml' }, {}, caps('waive: [{ requirement: FSAPI-TEN-001 }]\n'))).message).toMatch(/waive entry 1 \(FSAPI-TEN-001\) has no reason/);
    expect(error(() => load({ FSAPI_CAPABILITIES: 'caps.yaml' }, {}, caps(`${waiveTen}  - { requirement: FSAPI-TEN-001, reason: again }\n`))).message).toMatch(/waived twice/);
    expect(error(() => load({ FSAPI_CAPABILITIES: 'caps.yaml' }, {}, caps('waive: FSAPI-TEN-001\n'))).message).toMatch(/waive must be a list/);
  });
});

describe('.env.example', () => {
  it('is exactly what the settings table renders (regenerate with npm run conformance -- --print-env-example: the file is the checkout’s alone, never shipped)', async () => {
    const { readFileSync } = await import('node:fs');
    const { renderEnvExample } = await import('../src/config/env-example.js');
    expect(readFileSync(new URL('../.env.example', import.meta.url), 'utf8')).toBe(renderEnvExample('npm run conformance --'));
  });
});

describe('README', () => {
  it('documents every setting', async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    for (const s of SETTINGS) expect(readme, s.env).toContain(`\`${s.env}\``);
  });
});
