import type { Operation } from '../catalogue/openapi.js';
import { DRIVERS } from '../drivers/index.js';
import type { DriverScope, OperationDriver } from '../drivers/types.js';
import type { CheckContext, RequestParts } from '../harness/check.js';

/** The driver of an operation, when the spec in use is the reference profile (vendor operations have none). */
export function driverFor(ctx: CheckContext, op: Operation): OperationDriver | undefined {
  return ctx.config.isReferenceProfile ? DRIVERS.get(op.operationId) : undefined;
}

export function scopeOf(ctx: CheckContext, as: 'primary' | 'second' = 'primary'): DriverScope {
  return { ctx, world: as === 'second' ? ctx.secondWorld : ctx.world, as };
}

/**
 * A valid request for an operation: from its driver (real prerequisite resources), else from the spec's own
 * examples (path parameter examples, the first request body example). Skips the check when neither exists.
 */
export async function validRequest(ctx: CheckContext, op: Operation, opts: { fresh?: boolean; as?: 'primary' | 'second' } = {}): Promise<RequestParts> {
  const driver = driverFor(ctx, op);
  if (driver) return driver.build(scopeOf(ctx, opts.as), { fresh: opts.fresh ?? false });
  // The reference profile's examples name objects that exist nowhere: without a driver they would only get 404s.
  if (ctx.config.isReferenceProfile && (op.requestBody || op.parameters.some((p) => p.in === 'path'))) {
    ctx.skip(`no driver for ${op.operationId} yet (src/drivers): the profile's examples name objects that do not exist`);
  }
  const pathParams: Record<string, string> = {};
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    if (p.example === undefined) ctx.skip(`no driver and no example for path parameter ${p.name} of ${op.operationId}`);
    pathParams[p.name] = String(p.example);
  }
  const parts: RequestParts = { pathParams };
  if (op.requestBody) {
    const json = op.requestBody.content.find((c) => c.mediaType === 'application/json');
    if (!json || json.examples.length === 0) ctx.skip(`no driver and no request body example for ${op.operationId}`);
    parts.body = structuredClone(json!.examples[0]);
  }
  return parts;
}
