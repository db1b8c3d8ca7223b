import { GROUPS, groupOf, type GroupSlug } from '../catalogue/groups.js';
import { readSourceFile, displayPath } from '../catalogue/yaml-file.js';
import { UsageError } from '../errors.js';
import { REQUIREMENTS_PATH } from '../catalogue/index.js';
import { loadRequirements } from '../catalogue/requirements.js';
import type { Waiver } from '../results/model.js';
import { nearest } from '../nearest.js';

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
  /**
   * Requirements waived, each with its reason (a sandbox with one business, a target without webhooks): their checks
   * are skipped with cause `waived` and every report shows them as waived. Under --strict a MUST waiver is refused.
   */
  waive: Waiver[];
}

const KNOWN_KEYS = ['groups', 'exclude_operations', 'features', 'waive'];
const KNOWN_FEATURES = ['webhooks', 'plain_http_probe'];

export function loadCapabilities(path: string, opts: { strict?: boolean } = {}): Capabilities {
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
  const caps: Capabilities = { path, excludeOperations: [], features: { webhooks: true, plainHttpProbe: true }, waive: [] };
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
  if (obj['waive'] !== undefined) caps.waive = readWaivers(obj['waive'], fail, opts.strict ?? false);
  return caps;
}

const WAIVE_EXAMPLE = 'e.g. waive: [{ requirement: FSAPI-TEN-001, reason: "the sandbox has one business" }]';

/** The `waive` list: each entry a known requirement with a reason; under --strict no MUST requirement. */
function readWaivers(raw: unknown, fail: (msg: string, at: (string | number)[], fix: string) => never, strict: boolean): Waiver[] {
  if (!Array.isArray(raw)) return fail('waive must be a list', ['waive'], WAIVE_EXAMPLE);
  const requirements = loadRequirements(REQUIREMENTS_PATH, { trusted: true });
  const ids = requirements.all.map((r) => r.id);
  const seen = new Set<string>();
  return raw.map((entry: unknown, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return fail(`waive entry ${i + 1} must be a mapping with requirement and reason`, ['waive', i], WAIVE_EXAMPLE);
    const e = entry as Record<string, unknown>;
    for (const k of Object.keys(e)) if (k !== 'requirement' && k !== 'reason') fail(`waive entry ${i + 1}: unknown key "${k}"`, ['waive', i, k], 'a waiver has requirement and reason');
    const id = e['requirement'];
    if (typeof id !== 'string' || !ids.includes(id)) {
      const near = typeof id === 'string' ? nearest(id, ids) : undefined;
      return fail(`waive entry ${i + 1}: unknown requirement "${String(id)}"${near ? ` (did you mean ${near}?)` : ''}`, ['waive', i, 'requirement'], 'name a requirement of spec/requirements.yaml (`fsapi-conformance requirements` lists them)');
    }
    const reason = e['reason'];
    if (typeof reason !== 'string' || reason.trim() === '') return fail(`waive entry ${i + 1} (${id}) has no reason`, ['waive', i], 'say why it is waived: reason: "the sandbox has one business"');
    if (seen.has(id)) fail(`waive entry ${i + 1}: ${id} is waived twice`, ['waive', i], 'waive each requirement once');
    seen.add(id);
    if (strict && requirements.get(id).level === 'MUST') {
      fail(`waive entry ${i + 1}: ${id} is a MUST requirement, and --strict (certification) refuses to waive a MUST requirement`, ['waive', i], 'remove the waiver and give the run what the requirement needs, or run without --strict (a CI gate)');
    }
    return { requirement: id, reason: reason.trim() };
  });
}
