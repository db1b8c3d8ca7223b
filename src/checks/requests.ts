import type { Operation } from '../catalogue/openapi.js';
import { DRIVERS } from '../drivers/index.js';
import type { DriverScope, OperationDriver } from '../drivers/types.js';
import type { CheckContext, RequestParts } from '../harness/check.js';

/**
 * The driver of an operation: always on the reference profile; on a vendor's document, when the vendor's operation
 * has the reference operation's id, method and path (validRequest then checks the driver's body fits its schema).
 */
export function driverFor(ctx: CheckContext, op: Operation): OperationDriver | undefined {
  const driver = DRIVERS.get(op.operationId);
  if (!driver || ctx.config.isReferenceProfile) return driver;
  return ctx.config.referenceOperations?.[op.operationId] === `${op.method} ${op.path}` ? driver : undefined;
}

/** Request parts built from the spec's examples: the ids in them may name nothing on the target. */
const BUILT_FROM_EXAMPLES = new WeakSet<RequestParts>();
export const builtFromExamples = (parts: RequestParts): boolean => BUILT_FROM_EXAMPLES.has(parts);

export function scopeOf(ctx: CheckContext, as: 'primary' | 'second' = 'primary'): DriverScope {
  return { ctx, world: as === 'second' ? ctx.secondWorld : ctx.world, as };
}

/**
 * A valid request for an operation: from its driver (real prerequisite resources), else from the spec's own
 * examples (path parameter examples, the first request body example). Skips the check when neither exists.
 */
export async function validRequest(ctx: CheckContext, op: Operation, opts: { fresh?: boolean; as?: 'primary' | 'second' } = {}): Promise<RequestParts> {
  const driver = driverFor(ctx, op);
  if (driver) {
    const built = await driver.build(scopeOf(ctx, opts.as), { fresh: opts.fresh ?? false });
    // On a vendor's document the reference body is used only where it is valid for the vendor's own schema.
    if (ctx.config.isReferenceProfile || built.body === undefined || ctx.spec.validateRequestBody(op, built.body).length === 0) return built;
  }
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
  BUILT_FROM_EXAMPLES.add(parts);
  return parts;
}
