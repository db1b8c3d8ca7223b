/**
 * What the suite created on the target (the report's resources_created): successes of the requests that create
 * (a create-kind driver, or without one a POST that documents 201), each resource once however often it was
 * replayed. A 201 to anything else (a GET, an action) creates nothing the suite could be asked to clean up.
 */
import type { Operation } from '../catalogue/openapi.js';
import { isCreate } from '../checks/support.js';
import { DRIVERS } from '../drivers/index.js';
import type { HttpResponse } from '../http/client.js';
import { answeredId, STATUS } from '../harness/assert.js';

export function createsResource(op: Operation): boolean {
  const kind = DRIVERS.get(op.operationId)?.kind;
  return kind ? kind === 'create' && op.method === 'POST' : isCreate(op);
}

export class CreatedTally {
  readonly byOperation: Record<string, number> = {};
  private readonly ids = new Set<string>();
  /** Operations whose count changed since `takeChanges` was last called. */
  private changed = new Set<string>();

  /**
   * The counts that changed since the last call, as totals. Each check's meta carries these, not the whole tally:
   * a copy of every creating operation's count in every check's meta, held in both threads, grew with checks times
   * operations (against a target that answers its creates with 201, a 2,000-operation document's 57,000 checks would
   * each have carried hundreds). Totals only grow, so whoever merges them keeps the largest per operation, in any order.
   */
  takeChanges(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const op of this.changed) out[op] = this.byOperation[op]!;
    this.changed = new Set();
    return out;
  }

  note(op: Operation, res: HttpResponse): void {
    if (!STATUS.is2xx(res.status) || res.headers['idempotent-replayed'] === 'true' || !createsResource(op)) return;
    // A replay answers the first resource again: counted once, by its id, whether or not the target marks replays.
    const id = answeredId(res);
    if (id !== undefined) {
      if (this.ids.has(`${op.operationId} ${id}`)) return;
      this.ids.add(`${op.operationId} ${id}`);
    }
    this.byOperation[op.operationId] = (this.byOperation[op.operationId] ?? 0) + 1;
    this.changed.add(op.operationId);
  }
}
