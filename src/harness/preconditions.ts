import type { Binding } from '../binding/binding.js';
import type { SpecDocument } from '../catalogue/openapi.js';
import { isGroupSlug } from '../catalogue/groups.js';
import type { Capabilities } from '../config/capabilities.js';
import type { Environment } from '../config/run-config.js';
import type { RunSettings, SkipCause } from '../results/model.js';
import type { CheckDef } from './check.js';
import { unplayed } from './bound-call.js';
import { EXPLORATION_OFF, EXPLORATION_TOTAL_SPENT } from '../results/exploration.js';
import type { WorkerConfig } from './worker-config.js';

/**
 * What decides, before a check sends anything, whether it can run: the same for the run (from its configuration)
 * and for `verify` (from the settings the report records), so that a skip before any request is derived, not read.
 */
export interface PreconditionSettings {
  capabilities?: Pick<Capabilities, 'groups' | 'excludeOperations' | 'features' | 'waive'> | undefined;
  isReferenceProfile: boolean;
  environment: Environment;
  allowLiveWrites: boolean;
  /** The exploration phase's budget per operation (0: off). */
  explore: number;
  /** Operations the run's total exploration budget left unexplored (src/results/exploration.ts exploreAllocation). */
  exploreLeftOut?: readonly string[];
  /** Which optional credentials and addresses the run had (never their values). */
  has: RunSettings['credentials'] & { plainHttp: boolean };
}

/** A run's precondition settings, from what its workers are given. */
export function preconditionSettingsOf(cfg: WorkerConfig): PreconditionSettings {
  const c = cfg.credentials;
  return {
    capabilities: cfg.capabilities,
    isReferenceProfile: cfg.isReferenceProfile,
    environment: cfg.environment,
    allowLiveWrites: cfg.allowLiveWrites,
    explore: cfg.explore,
    exploreLeftOut: cfg.exploreAllocation.leftOut,
    has: {
      second_tenant: !!c.second,
      public_key: !!c.publicKey,
      revoked_key: !!c.revokedApiKey,
      live_key: !!c.liveApiKey,
      webhooks: !!cfg.receiver && !!c.webhookSecret,
      plainHttp: !!cfg.plainHttpUrl,
    },
  };
}

/**
 * Why a document's path key cannot be sent as written: an OpenAPI path holds no query or fragment, so a key such as
 * `/payment-link?pin=1111&referenceId=...` names no route a target has (a document slip, often a copied request);
 * what a target answers there says nothing about the operation the key meant.
 */
export function unaddressablePath(path: string): string | undefined {
  const at = path.search(/[?#]/);
  if (at < 0) return undefined;
  return `its path key "${path.length > 80 ? `${path.slice(0, 77)}...` : path}" holds a ${path[at] === '?' ? 'query string' : 'fragment'}, which an OpenAPI path does not: fix the document (the path without it, the query as declared parameters)`;
}

/** Why a check cannot run against this target with this configuration, or undefined when it can. */
export function preconditionFailure(def: CheckDef, cfg: PreconditionSettings, spec: SpecDocument, binding?: Binding): { reason: string; cause: SkipCause } | undefined {
  const caps = cfg.capabilities;
  const waiver = caps?.waive.find((w) => w.requirement === def.requirement);
  if (waiver) return { reason: `waived (capabilities file): ${waiver.reason}`, cause: 'waived' };
  if (caps?.groups && isGroupSlug(def.group) && !caps.groups.includes(def.group)) {
    return { reason: `group ${def.group} is not implemented (capabilities file)`, cause: 'capabilities' };
  }
  // A flow's operation and every `uses` are reference operations, played through the binding; a generic check's
  // operation is the document's own.
  const flow = def.family === 'flow';
  const refs = flow ? [...(def.operation ? [def.operation] : []), ...(def.uses ?? [])] : [];
  for (const id of flow ? [] : [def.operation, ...(def.uses ?? [])]) {
    if (!id) continue;
    if (!spec.byId.has(id)) return { reason: `operation ${id} is not in the spec in use`, cause: 'not-in-document' };
    const unaddressable = unaddressablePath(spec.byId.get(id)!.path);
    if (unaddressable) return { reason: `operation ${id}: ${unaddressable}`, cause: 'not-applicable' };
    if (caps?.excludeOperations.includes(id)) return { reason: `operation ${id} is not implemented (capabilities file)`, cause: 'capabilities' };
  }
  for (const id of refs) {
    const played = binding ? binding.resolve(id)?.vendor.operationId : spec.byId.has(id) ? id : undefined;
    if (!played) return binding ? unplayed(binding, id) : { reason: `operation ${id} is not in the spec in use`, cause: 'not-in-document' };
    if (caps?.excludeOperations.includes(id) || caps?.excludeOperations.includes(played)) return { reason: `operation ${played} is not implemented (capabilities file)`, cause: 'capabilities' };
  }
  if (def.inapplicable) return { reason: def.inapplicable, cause: 'not-applicable' };
  if (def.explores && cfg.explore === 0) return { reason: EXPLORATION_OFF, cause: 'not-applicable' };
  if (def.explores && def.operation && cfg.exploreLeftOut?.includes(def.operation)) return { reason: EXPLORATION_TOTAL_SPENT, cause: 'not-applicable' };
  if (def.referenceOnly && !cfg.isReferenceProfile) return { reason: "relies on the reference profile's sandbox rules; the spec in use is a vendor's own", cause: 'not-applicable' };
  if (def.writes && cfg.environment === 'live' && !cfg.allowLiveWrites) return { reason: 'live environment: writes are not sent without --allow-live-writes', cause: 'live-environment' };
  const has = cfg.has;
  for (const need of def.needs ?? []) {
    if (need === 'second-tenant' && !has.second_tenant) return { reason: 'needs a second business: set FSAPI_SECOND_API_KEY and FSAPI_SECOND_TENANT_ID', cause: 'credential' };
    if (need === 'public-key' && !has.public_key) return { reason: 'needs FSAPI_PUBLIC_KEY', cause: 'credential' };
    if (need === 'revoked-key' && !has.revoked_key) return { reason: 'needs FSAPI_REVOKED_API_KEY', cause: 'credential' };
    if (need === 'live-key') {
      if (!has.live_key) return { reason: 'needs FSAPI_LIVE_API_KEY', cause: 'credential' };
      if (cfg.environment !== 'sandbox') return { reason: 'the live-key-on-sandbox check applies to a sandbox target', cause: 'not-applicable' };
    }
    if (need === 'webhooks') {
      if (caps && !caps.features.webhooks) return { reason: 'webhook delivery is not implemented (capabilities file)', cause: 'capabilities' };
      if (!has.webhooks) return { reason: 'needs FSAPI_WEBHOOK_SECRET and FSAPI_WEBHOOK_LISTEN (and the target delivering there)', cause: 'credential' };
    }
    if (need === 'plain-http') {
      if (caps && !caps.features.plainHttpProbe) return { reason: 'the plain-HTTP probe is disabled (capabilities file)', cause: 'capabilities' };
      if (!has.plainHttp) return { reason: 'no plain-HTTP address to probe (FSAPI_PLAIN_HTTP_URL)', cause: 'credential' };
    }
  }
  return undefined;
}
