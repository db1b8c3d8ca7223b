import type { Binding } from '../binding/binding.js';
import type { SpecDocument } from '../catalogue/openapi.js';
import { isGroupSlug } from '../catalogue/groups.js';
import type { CheckDef } from './check.js';
import type { WorkerConfig } from './worker-config.js';

/** Why a check cannot run against this target with this configuration, or undefined when it can. */
export function preconditionFailure(def: CheckDef, cfg: WorkerConfig, spec: SpecDocument, binding?: Binding): string | undefined {
  const caps = cfg.capabilities;
  if (caps?.groups && isGroupSlug(def.group) && !caps.groups.includes(def.group)) {
    return `group ${def.group} is not implemented (capabilities file)`;
  }
  // A flow's operation and every `uses` are reference operations, played through the binding; a generic check's
  // operation is the document's own.
  const flow = def.family === 'flow';
  const refs = flow ? [...(def.operation ? [def.operation] : []), ...(def.uses ?? [])] : [];
  for (const id of flow ? [] : [def.operation, ...(def.uses ?? [])]) {
    if (!id) continue;
    if (!spec.byId.has(id)) return `operation ${id} is not in the spec in use`;
    if (caps?.excludeOperations.includes(id)) return `operation ${id} is not implemented (capabilities file)`;
  }
  for (const id of refs) {
    const played = binding ? binding.resolve(id)?.vendor.operationId : spec.byId.has(id) ? id : undefined;
    if (!played) {
      const ref = binding?.reference.byId.get(id);
      return binding && !binding.isIdentity && ref
        ? `no operation of the document plays ${id} (${ref.method} ${ref.path} in the reference profile): bind it in the binding file (operations.${id}; \`fsapi-conformance bind\` proposes one)`
        : `operation ${id} is not in the spec in use`;
    }
    if (caps?.excludeOperations.includes(id) || caps?.excludeOperations.includes(played)) return `operation ${played} is not implemented (capabilities file)`;
  }
  if (def.referenceOnly && !cfg.isReferenceProfile) return "relies on the reference profile's sandbox rules; the spec in use is a vendor's own";
  if (def.writes && cfg.environment === 'live' && !cfg.allowLiveWrites) return 'live environment: writes are not sent without --allow-live-writes';
  const c = cfg.credentials;
  for (const need of def.needs ?? []) {
    if (need === 'second-tenant' && !c.second) return 'needs a second business: set FSAPI_SECOND_API_KEY and FSAPI_SECOND_TENANT_ID';
    if (need === 'public-key' && !c.publicKey) return 'needs FSAPI_PUBLIC_KEY';
    if (need === 'revoked-key' && !c.revokedApiKey) return 'needs FSAPI_REVOKED_API_KEY';
    if (need === 'live-key') {
      if (!c.liveApiKey) return 'needs FSAPI_LIVE_API_KEY';
      if (cfg.environment !== 'sandbox') return 'the live-key-on-sandbox check applies to a sandbox target';
    }
    if (need === 'webhooks') {
      if (caps && !caps.features.webhooks) return 'webhook delivery is not implemented (capabilities file)';
      if (!cfg.receiver || !c.webhookSecret) return 'needs FSAPI_WEBHOOK_SECRET and FSAPI_WEBHOOK_LISTEN (and the target delivering there)';
    }
    if (need === 'plain-http' && caps && !caps.features.plainHttpProbe) return 'the plain-HTTP probe is disabled (capabilities file)';
  }
  return undefined;
}
