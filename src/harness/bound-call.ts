import { BindingGap, type Binding, type BoundOperation } from '../binding/binding.js';
import type { Operation } from '../catalogue/openapi.js';
import type { HttpResponse } from '../http/client.js';
import type { SkipCause } from '../results/model.js';
import { CheckSkipped } from './assert.js';
import type { WorkerConfig } from './worker-config.js';
import type { CallOptions, RequestParts } from '../http/request-parts.js';
import { fitBody, problemText } from '../values/request-validity.js';

/** A call resolved through the binding: the vendor operation, its request, and how to read its answer. */
export interface BoundCall {
  op: Operation;
  parts: RequestParts;
  opts: CallOptions;
  /** The answer as the reference profile shapes it (the recorded exchange and the observer keep the raw one). */
  view(res: HttpResponse): HttpResponse;
}

const asIs = (res: HttpResponse): HttpResponse => res;

/** Why a reference operation cannot be called: the document lacks it, or (a vendor's document) nothing binds it. */
export function unplayed(binding: Binding, refId: string): { reason: string; cause: SkipCause } {
  const ref = binding.reference.byId.get(refId);
  return binding.isIdentity || !ref
    ? { reason: `operation ${refId} is not in the spec in use`, cause: 'not-in-document' }
    : { reason: `no operation of the document plays ${refId} (${ref.method} ${ref.path} in the reference profile): bind it in the binding file (operations.${refId}; \`fsapi-conformance bind\` proposes one)`, cause: 'binding' };
}

/**
 * Resolves a call. By reference operationId (drivers, worlds, flows): the vendor operation that plays it, with the
 * request translated into the vendor's terms. By operation (generic checks): as given, already in its terms.
 * Either way an answer of a bound operation is read in the reference's terms. What the binding cannot express is
 * a gap of the suite's, so the check is skipped with the fix.
 */
export function bindCall(binding: Binding, cfg: Pick<WorkerConfig, 'capabilities'>, target: Operation | string, parts: RequestParts, opts: CallOptions, meantValid = false): BoundCall {
  let bound: BoundOperation | undefined;
  let op: Operation;
  if (typeof target === 'string') {
    bound = binding.resolve(target);
    if (!bound) {
      const why = unplayed(binding, target);
      throw new CheckSkipped(why.reason, why.cause);
    }
    op = bound.vendor;
  } else {
    op = target;
    bound = binding.referenceOf(op);
  }
  const excluded = cfg.capabilities?.excludeOperations;
  if (excluded && (excluded.includes(op.operationId) || (typeof target === 'string' && excluded.includes(target)))) {
    throw new CheckSkipped(`operation ${op.operationId} is not implemented (capabilities file)`, 'capabilities');
  }
  // An error answer's code and message are read where the binding says the vendor keeps them, whatever the operation.
  const errors = binding.boundErrors ? (res: HttpResponse): HttpResponse => (res.status >= 400 ? { ...res, json: binding.errorToReference(res.json) } : res) : asIs;
  // A vendor's document that kept the reference's names may still wrap the body or mark members readOnly.
  const fits = typeof target === 'string' && !opts.seedForm && parts.body !== undefined && !opts.probe && opts.rawBody === undefined;
  if (bound?.identity && !binding.isIdentity && fits) return { op, parts: fitted(binding, bound, parts, meantValid), opts, view: errors };
  if (!bound || bound.identity) return { op, parts, opts, view: errors };
  const b = bound;
  const refQuery = { ...parts.query, ...opts.query };
  let sent: { parts: RequestParts; opts: CallOptions };
  try {
    // Queries are written in the reference's terms everywhere (paging: cursor, limit); bodies and path parameters
    // only by reference id (a generic check's parts come from validRequest, already in the vendor's terms).
    const q = opts.query ? { ...opts, query: binding.queryToVendor(b, opts.query) } : opts;
    sent = typeof target === 'string' && !opts.seedForm ? { parts: binding.toVendor(b, parts), opts: q } : { parts: parts.query ? { ...parts, query: binding.queryToVendor(b, parts.query) } : parts, opts: q };
    if (fits) sent.parts = fitted(binding, b, sent.parts, meantValid);
  } catch (e) {
    if (e instanceof BindingGap) throw new CheckSkipped(e.message, 'binding');
    throw e;
  }
  return { op, ...sent, view: (res) => errors({ ...res, json: binding.toReference(b, res.json, refQuery) }) };
}

/**
 * A reference body in the vendor's terms as the vendor's schema takes it: readOnly members left out, wrapped where
 * the schema wraps it (src/values/request-validity.ts). A prerequisite (`meantValid`) whose body still breaks the
 * schema is not sent: the check that needs it is skipped with the fix. A check's own request may break it on
 * purpose (a date in another form), so it goes as built.
 */
function fitted(binding: Binding, b: BoundOperation, parts: RequestParts, meantValid: boolean): RequestParts {
  const fit = fitBody(binding.vendor, b.vendor, parts.body, b.entry.envelope);
  if (fit.ok) return fit.body === parts.body ? parts : { ...parts, body: fit.body };
  if (meantValid) {
    throw new CheckSkipped(
      `the ${b.refId} body the suite builds does not fit the request schema of ${b.vendor.operationId} (${problemText(fit.problems)}): bind its field names (fields) in the binding file, or give the operation a request example`,
      'binding',
    );
  }
  return parts;
}
