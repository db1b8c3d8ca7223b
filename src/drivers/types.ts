import type { CheckContext } from '../harness/check.js';
import type { World } from '../harness/world.js';
import type { RequestParts } from '../http/request-parts.js';

/** Whose request: the configured business, or the second one (tenant checks). */
export interface DriverScope {
  ctx: CheckContext;
  world: World;
  as: 'primary' | 'second';
}

/**
 * How the generic checks exercise one operation of the reference profile: a valid request, and for writes,
 * how to see whether a request took effect. Keyed by operationId; a vendor spec with other operationIds falls
 * back to its own examples (src/checks/requests.ts), and effect checks are skipped with that reason.
 */
export interface OperationDriver {
  operationId: string;
  /**
   * create: each processed request creates one resource; action: it moves an existing resource to another
   * state; read: no effect; remove: it removes a resource.
   */
  kind: 'create' | 'action' | 'read' | 'remove';
  /** A valid request. `fresh`: in a scope of its own (new parent resources) that no other check touches. */
  build(scope: DriverScope, opts: { fresh: boolean }): Promise<RequestParts>;
  /**
   * Writes only: how many times requests like `parts` have taken effect in their scope (resources created,
   * transitions made). 0 before the first success, 1 after it, 2 after a duplicate.
   */
  effects?(scope: DriverScope, parts: RequestParts): Promise<number>;
  /** Writes only: the same request in the same scope with a different body (for the reused-key check). */
  vary?(parts: RequestParts, scope: DriverScope): RequestParts;
  /** Creates only: read-only fields to smuggle in (FSAPI-INPUT-004's judge says which of them took effect). */
  readOnly?: { fields: Record<string, unknown> };
}
