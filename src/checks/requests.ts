import { requestMediaOf, type Operation, type Parameter } from '../catalogue/openapi.js';
import { isObj } from '../json.js';
import { seedFor } from '../harness/seed.js';
import { documentValue } from '../values/parameter-value.js';
import { loadGenerator } from '../values/generate.js';
import { namesResource } from '../values/provenance.js';
import { targetValue } from './target-values.js';
import { BindingGap } from '../binding/binding.js';
import { CheckSkipped } from '../harness/assert.js';
import { DRIVERS } from '../drivers/index.js';
import { generatedBody } from './generated-body.js';
import { bodyProblems, fitBody, parameterProblems, problemText, readOnlyMembers, withoutReadOnly } from '../values/request-validity.js';
import type { DriverScope, OperationDriver } from '../drivers/types.js';
import type { CheckContext } from '../harness/check.js';
import { type RequestParts, withMadeUp, type MadeUpValue } from '../http/request-parts.js';

/**
 * The driver of an operation: the driver of the reference operation it plays, by the binding (on the reference
 * profile every operation plays itself; on a vendor's document, what its binding file or a matching
 * operationId and method says).
 */
export function driverFor(ctx: CheckContext, op: Operation): OperationDriver | undefined {
  const bound = ctx.binding.referenceOf(op);
  return bound ? DRIVERS.get(bound.refId) : undefined;
}

/** Parts a driver built (its effects() and vary() read only those). */
const BY_DRIVER = new WeakSet<RequestParts>();
const byDriver = (parts: RequestParts): RequestParts => (BY_DRIVER.add(parts), parts);
export const builtByDriver = (parts: RequestParts): boolean => BY_DRIVER.has(parts);

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

function madeUpBodyValues(body: unknown, origin: MadeUpValue['origin'], at = ''): MadeUpValue[] {
  if (Array.isArray(body)) return body.flatMap((v) => madeUpBodyValues(v, origin, at));
  if (!isObj(body)) return [];
  return Object.entries(body).flatMap(([k, v]) =>
    (typeof v === 'string' || typeof v === 'number') && namesResource(k) ? [{ in: 'body' as const, name: `${at}${k}`, value: String(v), origin }] : madeUpBodyValues(v, origin, `${at}${k}.`),
  );
}

/**
 * A value for each path parameter and required query parameter of an operation, best source first: what the target
 * itself returned (src/checks/target-values.ts), else the document's example, else one made from the parameter's
 * schema. With `real`, a check that needs the resource to exist skips when the target gave none.
 */
async function parameterValues(ctx: CheckContext, op: Operation, as: 'primary' | 'second', real: boolean, refused: string | undefined): Promise<{ path: Record<string, string>; query: Record<string, string | number | boolean>; madeUp: MadeUpValue[] }> {
  const path: Record<string, string> = {};
  const query: Record<string, string | number | boolean> = {};
  const madeUp: MadeUpValue[] = [];
  const world = scopeOf(ctx, as).world;
  // Path parameters in path order: a nested list takes its parent's value.
  const order = (p: Parameter) => (p.in === 'path' ? op.path.indexOf(`{${p.name}}`) : Number.MAX_SAFE_INTEGER);
  for (const p of op.parameters.filter((x) => x.in === 'path' || (x.in === 'query' && x.required)).sort((a, b) => order(a) - order(b))) {
    const got = await targetValue(ctx, op, p, path, world, as);
    if ('value' in got) {
      if (p.in === 'path') path[p.name] = String(got.value);
      else query[p.name] = got.value;
      continue;
    }
    if (real && p.in === 'path') {
      // The target was asked and gave none (its data), or nothing known produces the value (the suite's reading).
      ctx.skip(
        `needs a real ${p.name} of ${op.operationId}, and the target gave none (${got.why.length ? got.why.join('; ') : 'no operation of the document is known to produce it'}): declare an OpenAPI link from the operation that creates or lists it, or bind the operation (fsapi-conformance bind)`,
        got.why.length ? 'prerequisite' : 'binding',
      );
    }
    const doc = documentValue(ctx.spec, p, seedFor(ctx.config.seed, `${op.operationId}:${p.in}:${p.name}`));
    if (!doc) {
      if (p.in === 'query') continue;
      ctx.skip(refused ?? `no value for path parameter ${p.name} of ${op.operationId}: nothing the target returned, no example and no schema to make one from; give the parameter an example or a schema in the document, or bind the operation (fsapi-conformance bind)`, 'binding');
    }
    if (p.in === 'path') path[p.name] = String(doc.value);
    else query[p.name] = doc.value;
    madeUp.push({ in: p.in === 'path' ? 'path' : 'query', name: p.name, value: String(doc.value), origin: doc.origin });
  }
  return { path, query, madeUp };
}

/**
 * Whether a body is valid for the operation's schema as a client fills it (a schema that cannot be compiled proves
 * nothing valid); `mediaType` names the request media type the body is checked for.
 */
function validBody(ctx: CheckContext, op: Operation, body: unknown, mediaType: string): boolean {
  if (requestMediaOf(op)?.mediaType !== mediaType) {
    try {
      return ctx.spec.validateRequestBody(op, body, mediaType).length === 0;
    } catch {
      return false;
    }
  }
  return bodyProblems(ctx.spec, op, body).length === 0;
}

/** A body without the members its schema marks readOnly (a document's example carries the server's id and dates). */
function clientBody(ctx: CheckContext, op: Operation, body: unknown): unknown {
  return withoutReadOnly(body, readOnlyMembers(ctx.spec, requestMediaOf(op)?.schema));
}

/** Vendor parts made from a driver's, remembered with the driver's reference parts. */
function keepReference(from: RequestParts, to: RequestParts): RequestParts {
  REFERENCE_PARTS.set(to, referencePartsOf(from));
  return to;
}

/**
 * A valid request for an operation: from its driver (real prerequisite resources); else its parameters from the
 * target's own answers or the document (parameterValues) and its body from the document's first valid example or
 * made from its schema, validated before it is sent. Skips the check, naming the fix, when no valid body exists.
 */
export async function validRequest(ctx: CheckContext, op: Operation, opts: { fresh?: boolean; as?: 'primary' | 'second'; real?: boolean } = {}): Promise<RequestParts> {
  const driver = driverFor(ctx, op);
  let refused: string | undefined;
  if (driver) {
    let built: RequestParts | undefined;
    try {
      built = vendorParts(ctx, op, await driver.build(scopeOf(ctx, opts.as), { fresh: opts.fresh ?? false }));
    } catch (e) {
      // On a vendor's document a driver whose prerequisites the binding or the target cannot give (a create that
      // answers no body) leaves the operation to the values any operation gets, below; the reference profile's
      // drivers are its whole story.
      if (ctx.config.isReferenceProfile || !(e instanceof CheckSkipped)) throw e;
      refused = `the driver of ${op.operationId} could not build its request (${e.message})`;
    }
    if (built && ctx.config.isReferenceProfile) return byDriver(built);
    // On a vendor's document the driver's request is used only where it is valid for the vendor's own document:
    // its path and query values for their parameters, its body (readOnly members left out, wrapped where the
    // schema wraps it) for the request schema.
    const params = built ? parameterProblems(ctx.spec, op, built) : [];
    const fitted = built && params.length === 0 ? fitBody(ctx.spec, op, built.body, ctx.binding.referenceOf(op)?.entry.envelope) : undefined;
    if (built && fitted?.ok) return byDriver(fitted.body === built.body ? built : keepReference(built, { ...built, body: fitted.body }));
    if (built && params.length) refused = `the driver's request for ${op.operationId} breaks its document (${params.slice(0, 2).join('; ')}): give the parameter a value source the document allows (an OpenAPI link, a binding of the operation that produces it)`;
    else if (fitted && !fitted.ok) refused = `the driver's body for ${op.operationId} does not fit its request schema (${problemText(fitted.problems)}): bind its field names (fields) in the binding file`;
  }
  // The reference profile's examples name objects that exist nowhere: without a driver they would only get 404s.
  if (ctx.config.isReferenceProfile && (op.requestBody || op.parameters.some((p) => p.in === 'path'))) {
    ctx.skip(`no driver for ${op.operationId} yet (src/drivers): the profile's examples name objects that do not exist`);
  }
  await loadGenerator();
  const values = await parameterValues(ctx, op, opts.as ?? 'primary', opts.real ?? false, refused);
  const parts: RequestParts = { pathParams: values.path, ...(Object.keys(values.query).length ? { query: values.query } : {}) };
  const madeUp = [...values.madeUp];
  // A body only where the operation takes one: never on a GET or DELETE that merely declares an optional one.
  const takesBody = op.requestBody !== undefined && ((op.method !== 'GET' && op.method !== 'DELETE') || op.requestBody.required);
  if (takesBody) {
    const made = bodyFromDocument(ctx, op, { refused });
    parts.body = made.body;
    madeUp.push(...made.madeUp);
  }
  // Values from the target or the document are each valid for their parameter; a request that still breaks the
  // document (a value no source could give in the parameter's form) is not sent as a valid one.
  const broken = parameterProblems(ctx.spec, op, parts);
  if (broken.length) ctx.skip(`no valid value for ${op.operationId}: ${broken.slice(0, 2).join('; ')}; give the parameter a value source the document allows (an OpenAPI link from the operation that creates it, a list the suite can read, an example)`, 'binding');
  const out = withMadeUp(parts, madeUp);
  // The document's examples and made-up values are in the vendor's terms; a driver's vary() reads its own.
  const bound = driver ? ctx.binding.referenceOf(op) : undefined;
  if (bound && !bound.identity) REFERENCE_PARTS.set(out, ctx.binding.partsToReference(bound, out));
  return out;
}

/**
 * A request body from the document: its first example valid for the schema, else one made from the schema and
 * validated. With `alsoSet`, an example counts only if it sets one of those members, and a made body sets each
 * of them that keeps it valid (an update that a read can show). Skips the check, naming the fix, when none is valid.
 */
export function bodyFromDocument(ctx: CheckContext, op: Operation, opts: { refused?: string | undefined; alsoSet?: readonly string[] } = {}): { body: unknown; madeUp: MadeUpValue[] } {
  const media = requestMediaOf(op);
  const also = opts.alsoSet ?? [];
  const sets = (b: unknown) => also.length === 0 || (isObj(b) && also.some((m) => b[m] !== undefined));
  // The example fallback: the document's first example that is valid for its own schema.
  const example = media?.examples.map((e) => clientBody(ctx, op, e)).find((e) => validBody(ctx, op, e, media.mediaType) && sets(e));
  if (example !== undefined) {
    const body = structuredClone(example);
    return { body, madeUp: madeUpBodyValues(body, 'example') };
  }
  // No driver body fits and the document gives no valid example: one made from the schema, valid for it.
  const seed = seedFor(ctx.config.seed, `${op.operationId}:body`);
  const made = generatedBody(ctx.spec, op, ctx.faker, ctx.config.label, seed);
  if (!made.ok) {
    const p = made.problems[0];
    const why = p ? ` (${p.pointer || '(body)'} ${p.message})` : '';
    ctx.skip(opts.refused ? `${opts.refused}; nor is any body made from its schema valid for it${why}` : `no driver, no valid request body example, and no body made from the schema of ${op.operationId} is valid for it${why}: bind it to a reference operation (fsapi-conformance bind), or add a valid example to its request body`, 'binding');
  }
  let body = clientBody(ctx, op, made.value);
  if (also.length && isObj(body)) {
    // Every optional member made too, and the wanted ones taken over one by one while the body stays valid.
    const full = generatedBody(ctx.spec, op, ctx.faker, ctx.config.label, seed, { optionals: 1 });
    for (const m of also) {
      const v = full.ok && isObj(full.value) ? full.value[m] : undefined;
      if (v === undefined || !isObj(body) || readOnlyMembers(ctx.spec, media?.schema)[m] === true) continue;
      const candidate = { ...body, [m]: v };
      if (validBody(ctx, op, candidate, media?.mediaType ?? 'application/json')) body = candidate;
    }
  }
  return { body, madeUp: madeUpBodyValues(body, 'generated') };
}
