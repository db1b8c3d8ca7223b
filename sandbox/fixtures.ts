/** Sandbox tenants and their (fake) keys, read from fixtures/tenants.json or a file the user names. */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fromRoot } from '../src/paths.js';
import { UsageError } from '../src/errors.js';

export const DEFAULT_FIXTURES_PATH = fromRoot('fixtures', 'tenants.json');

export interface FixtureTenant {
  tenant_id: string;
  name: string;
  sandbox_secret_key: string;
  sandbox_public_key: string;
  live_secret_key: string;
  live_public_key: string;
}

export interface Fixtures {
  tenants: FixtureTenant[];
  revoked_keys: { key: string; tenant_id: string }[];
  webhook_secret: string;
}

const TENANT_FIELDS = ['tenant_id', 'name', 'sandbox_secret_key', 'sandbox_public_key', 'live_secret_key', 'live_public_key'] as const;

export function loadFixtures(path: string = DEFAULT_FIXTURES_PATH): Fixtures {
  const shown = relative(process.cwd(), path) || path;
  // The same file is named by the sandbox command's --fixtures and by run's --sandbox-fixtures (FSAPI_SANDBOX_FIXTURES).
  const fix = 'point `sandbox --fixtures` or `run --sandbox-fixtures` (FSAPI_SANDBOX_FIXTURES) at a readable copy of fixtures/tenants.json';
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'is not readable' : code === 'EISDIR' ? 'is a directory' : 'cannot be read';
    throw new UsageError(`the sandbox fixtures file ${why}`, { file: shown, fix });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`the sandbox fixtures file is not valid JSON: ${(e as Error).message}`, { file: shown, fix });
  }
  const bad = (where: string, what: string): never => {
    throw new UsageError(`the sandbox fixtures file is invalid: ${where} ${what}`, { file: shown, where, fix });
  };
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return bad('(root)', 'must be an object');
  const root = data as Record<string, unknown>;
  if (!Array.isArray(root['tenants']) || root['tenants'].length < 2) return bad('tenants', 'must list at least two tenants');
  const tenants: FixtureTenant[] = root['tenants'].map((t: unknown, i: number) => {
    if (typeof t !== 'object' || t === null) return bad(`tenants.${i}`, 'must be an object');
    const rec = t as Record<string, unknown>;
    for (const f of TENANT_FIELDS) {
      if (typeof rec[f] !== 'string' || rec[f] === '') bad(`tenants.${i}.${f}`, 'must be a non-empty string');
    }
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(rec['tenant_id'] as string)) bad(`tenants.${i}.tenant_id`, 'must match ^[A-Za-z0-9_-]{1,64}$');
    return Object.fromEntries(TENANT_FIELDS.map((f) => [f, rec[f] as string])) as unknown as FixtureTenant;
  });
  const revokedRaw = root['revoked_keys'] ?? [];
  if (!Array.isArray(revokedRaw)) return bad('revoked_keys', 'must be a list');
  const revoked_keys = revokedRaw.map((r: unknown, i: number) => {
    const rec = (typeof r === 'object' && r !== null ? r : {}) as Record<string, unknown>;
    if (typeof rec['key'] !== 'string' || typeof rec['tenant_id'] !== 'string') bad(`revoked_keys.${i}`, 'needs key and tenant_id strings');
    return { key: rec['key'] as string, tenant_id: rec['tenant_id'] as string };
  });
  if (typeof root['webhook_secret'] !== 'string' || !root['webhook_secret'].startsWith('whsec_')) {
    return bad('webhook_secret', 'must be a whsec_ secret');
  }
  const keys = new Set<string>();
  for (const k of [...tenants.flatMap((t) => [t.sandbox_secret_key, t.sandbox_public_key, t.live_secret_key, t.live_public_key]), ...revoked_keys.map((r) => r.key)]) {
    if (keys.has(k)) bad('tenants', 'use a key twice; every key must be unique');
    keys.add(k);
  }
  return { tenants, revoked_keys, webhook_secret: root['webhook_secret'] };
}
