import type { CheckContext } from '../harness/check.js';
import type { JsonObject, World } from '../harness/world.js';
import type { HttpResponse } from '../http/client.js';
import type { RequestParts } from '../http/request-parts.js';

/** Whose request: the configured business, or the second one (tenant checks). */
export interface DriverScope {
  ctx: CheckContext;
  world: World;
  as: 'primary' | 'second';
}

/** What an effect count reads through: the check's calls, as the scope's principal. */
export type EffectsScope = { ctx: Pick<CheckContext, 'call'>; as: 'primary' | 'second' };

/**
 * How a driver sees what requests like a given one did: one read of the target (a list walked page by page, or one
 * resource read by id) and a pure count over its answer. The run makes the read (drivers/shared.ts readEffects);
 * a judge counts again from the recorded answers of that read (recountEffects), never from a number the run wrote.
 */
export type EffectsRead =
  | {
      kind: 'list';
      /** A list (reference operationId) walked page by page; `count` sees every item of every page. */
      list: string;
      query?: Record<string, string>;
      pathParams?: Record<string, string>;
      /** What the read is, for the message when it cannot be made ("list the accounts of cus_1"). */
      what: string;
      count(items: JsonObject[]): number;
    }
  | {
      kind: 'read';
      /** One resource read by id; `count` sees its answer (and throws EffectsUnobservable when it cannot say). */
      read: string;
      pathParams: Record<string, string>;
      count(res: HttpResponse): number;
    };

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
   * Writes only: how to see how many times requests like `parts` have taken effect in their scope (resources created,
   * transitions made): 0 before the first success, 1 after it, 2 after a duplicate.
   */
  effects?(parts: RequestParts): EffectsRead;
  /** Writes only: the same request in the same scope with a different body (for the reused-key check). */
  vary?(parts: RequestParts, scope: DriverScope): RequestParts;
  /** Creates only: read-only fields to smuggle in (FSAPI-INPUT-004's judge says which of them took effect). */
  readOnly?: { fields: Record<string, unknown> };
}
