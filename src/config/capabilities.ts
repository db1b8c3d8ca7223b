import { GROUPS, groupOf, type GroupSlug } from '../catalogue/groups.js';
import { nearest } from '../cli/command.js';
import { readSourceFile, displayPath } from '../catalogue/yaml-file.js';
import { UsageError } from '../errors.js';

/**
 * What a vendor declares it implements (like Open Banking's discovery file). Checks for anything not
 * declared are skipped with that reason, never silently dropped.
 */
export interface Capabilities {
  path: string;
  /** Implemented groups; undefined = all. */
  groups?: GroupSlug[];
  /** operationIds not implemented, though present in the spec in use. */
  excludeOperations: string[];
  /** Optional features: webhooks delivery, plain-HTTP listener to probe. */
  features: { webhooks: boolean; plainHttpProbe: boolean };
}

const KNOWN_KEYS = ['groups', 'exclude_operations', 'features'];
const KNOWN_FEATURES = ['webhooks', 'plain_http_probe'];

export function loadCapabilities(path: string): Capabilities {
  const file = readSourceFile(path, 'capabilities file');
  const shown = displayPath(path);
  const data = file.data;
  const fail = (msg: string, at: (string | number)[], fix: string): never => {
    throw new UsageError(msg, { file: shown, where: String(file.lineOf(at) ?? ''), fix });
  };
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return fail('a capabilities file is a mapping', [], 'write e.g. `groups: [customers, accounts]`');
  }
  const obj = data as Record<string, unknown>;
  for (const k of Object.keys(obj)) {
    if (!KNOWN_KEYS.includes(k)) fail(`unknown key "${k}"${nearest(k, KNOWN_KEYS) ? ` (did you mean ${nearest(k, KNOWN_KEYS)}?)` : ''}`, [k], `allowed keys: ${KNOWN_KEYS.join(', ')}`);
  }
  const caps: Capabilities = { path, excludeOperations: [], features: { webhooks: true, plainHttpProbe: true } };
  if (obj['groups'] !== undefined) {
    if (!Array.isArray(obj['groups'])) fail('groups must be a list', ['groups'], 'e.g. groups: [customers, accounts]');
    caps.groups = (obj['groups'] as unknown[]).map((g, i) => {
      const slug = typeof g === 'string' ? groupOf(g) : undefined;
      if (!slug) {
        const near = typeof g === 'string' ? nearest(g, GROUPS.map((x) => x.slug)) : undefined;
        return fail(`unknown group "${String(g)}"${near ? ` (did you mean ${near}?)` : ''}`, ['groups', i], `groups are: ${GROUPS.map((x) => x.slug).join(', ')}`);
      }
      return slug;
    });
  }
  if (obj['exclude_operations'] !== undefined) {
    const ex = obj['exclude_operations'];
    if (!Array.isArray(ex) || ex.some((x) => typeof x !== 'string')) fail('exclude_operations must be a list of operationIds', ['exclude_operations'], 'e.g. exclude_operations: [deleteExternalAccount]');
    caps.excludeOperations = ex as string[];
  }
  if (obj['features'] !== undefined) {
    const f = obj['features'];
    if (typeof f !== 'object' || f === null || Array.isArray(f)) return fail('features must be a mapping', ['features'], 'e.g. features: { webhooks: false }');
    for (const [k, v] of Object.entries(f)) {
      if (!KNOWN_FEATURES.includes(k)) fail(`unknown feature "${k}"`, ['features', k], `features are: ${KNOWN_FEATURES.join(', ')}`);
      if (typeof v !== 'boolean') fail(`feature ${k} must be true or false`, ['features', k], `write ${k}: true`);
    }
    const feats = f as Record<string, boolean>;
    caps.features = { webhooks: feats['webhooks'] ?? true, plainHttpProbe: feats['plain_http_probe'] ?? true };
  }
  return caps;
}
