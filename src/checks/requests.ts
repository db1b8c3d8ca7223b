import type { Operation } from '../catalogue/openapi.js';
import { BindingGap } from '../binding/binding.js';
import { DRIVERS } from '../drivers/index.js';
import { generatedBody } from './generated-body.js';
import type { DriverScope, OperationDriver } from '../drivers/types.js';
import type { CheckContext, RequestParts } from '../harness/check.js';

/**
 * The driver of an operation: the driver of the reference operation it plays, by the binding (on the reference
 * profile every operation plays itself; on a vendor's document, what its binding file or a matching
 * operationId and method says).
 */
export function driverFor(ctx: CheckContext, op: Operation): OperationDriver | undefined {
  const bound = ctx.binding.referenceOf(op);
  return bound ? DRIVERS.get(bound.refId) : undefined;
}

/** Request parts built from the spec's examples: the ids in them may name nothing on the target. */
const BUILT_FROM_EXAMPLES = new WeakSet<RequestParts>();
export const builtFromExamples = (parts: RequestParts): boolean => BUILT_FROM_EXAMPLES.has(parts);

/** The reference-profile parts a driver built, by the vendor parts they became (drivers read their own terms). */
const REFERENCE_PARTS = new WeakMap<RequestParts, RequestParts>();
export const referencePartsOf = (parts: RequestParts): RequestParts => REFERENCE_PARTS.get(parts) ?? parts;

/**
 * A driver's request (reference terms) as the vendor operation takes it, remembered so the driver's effects() and
 * vary() can read it in their own terms. Skips (a binding gap, the suite's) when the binding cannot express it.
 */
export function vendorParts(ctx: CheckContext, op: Operation, parts: RequestParts): RequestParts {
  const bound = ctx.binding.referenceOf(op);
  if (!bound || bound.identity) return parts;
  try {
    const out = ctx.binding.toVendor(bound, parts);
    REFERENCE_PARTS.set(out, parts);
    return out;
  } catch (e) {
    if (e instanceof BindingGap) ctx.skip(e.message, 'binding');
    throw e;
  }
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
  let refused: string | undefined;
  if (driver) {
    const built = vendorParts(ctx, op, await driver.build(scopeOf(ctx, opts.as), { fresh: opts.fresh ?? false }));
    // On a vendor's document the reference body is used only where it is valid for the vendor's own schema.
    if (ctx.config.isReferenceProfile || built.body === undefined) return built;
    const problems = ctx.spec.validateRequestBody(op, built.body);
    if (problems.length === 0) return built;
    refused = `the driver's body for ${op.operationId} does not fit its request schema (${problems.slice(0, 2).map((p) => `${p.pointer || "(body)"} ${p.message}`).join('; ')}): bind its field names (fields) in the binding file`;
  }
  // The reference profile's examples name objects that exist nowhere: without a driver they would only get 404s.
  if (ctx.config.isReferenceProfile && (op.requestBody || op.parameters.some((p) => p.in === 'path'))) {
    ctx.skip(`no driver for ${op.operationId} yet (src/drivers): the profile's examples name objects that do not exist`);
  }
  const pathParams: Record<string, string> = {};
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    if (p.example === undefined) ctx.skip(refused ?? `no driver and no example for path parameter ${p.name} of ${op.operationId}: bind the operation to a reference operation (fsapi-conformance bind), or give the parameter an example in the document`, 'binding');
    pathParams[p.name] = String(p.example);
  }
  const parts: RequestParts = { pathParams };
  if (op.requestBody) {
    const json = op.requestBody.content.find((c) => c.mediaType === 'application/json');
    if (json && json.examples.length > 0) parts.body = structuredClone(json.examples[0]);
    else {
      // No driver body fits and the document gives no example: one made from the schema, if it is valid for it.
      const made = json ? generatedBody(ctx.spec, op, ctx.faker, ctx.config.label) : undefined;
      const problems = made === undefined ? [] : ctx.spec.validateRequestBody(op, made);
      if (made === undefined || problems.length > 0) {
        ctx.skip(refused ?? `no driver, no request body example, and no body made from the schema fits ${op.operationId}${problems.length ? ` (${problems[0]!.pointer || '(body)'} ${problems[0]!.message})` : ''}: bind it to a reference operation (fsapi-conformance bind), or add an example to its request body`, 'binding');
      }
      parts.body = made;
    }
  }
  BUILT_FROM_EXAMPLES.add(parts);
  // The document's examples are in the vendor's terms; the driver's effects() and vary() read their own.
  const bound = driver ? ctx.binding.referenceOf(op) : undefined;
  if (bound && !bound.identity) REFERENCE_PARTS.set(parts, ctx.binding.partsToReference(bound, parts));
  return parts;
}
