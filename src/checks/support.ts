/**
 * What the check families share: how operations are classified from the spec in use, and how a check sees
 * whether a request took effect (through the operation's driver, or by re-reading the resource).
 */
import type { Binding } from '../binding/binding.js';
import { requestMediaOf, type Operation, type SpecDocument } from '../catalogue/openapi.js';
import type { DriverScope, OperationDriver } from '../drivers/types.js';
import { readEffects } from '../drivers/shared.js';
import { CheckSkipped, describeRequest, fail, summariseBody } from '../harness/assert.js';
import type { CheckContext } from '../harness/check.js';
import { unaddressablePath } from '../harness/preconditions.js';
import type { HttpResponse } from '../http/client.js';
import { builtByDriver, driverFor, referencePartsOf, scopeOf, validRequest } from './requests.js';
import type { RequestParts } from '../http/request-parts.js';
import { canonicalJson } from '../json.js';

// --- Classification (from the spec in use only, so it holds for a vendor's document too) -----------------------

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const isWrite = (op: Operation): boolean => WRITE_METHODS.has(op.method);

export const pathParamsOf = (op: Operation) => op.parameters.filter((p) => p.in === 'path');

/** A POST that documents 201: each processed request creates one resource. */
export const isCreate = (op: Operation): boolean => op.method === 'POST' && op.responses.some((r) => r.status === '201');

/** A paginated GET (it takes a page size or a cursor). */
export const isList = (op: Operation): boolean =>
  op.method === 'GET' && op.parameters.some((p) => p.in === 'query' && (p.name === 'limit' || p.name === 'cursor'));

/**
 * Whether the suite can page a list as the reference profile does (limit, cursor; data, has_more, next_cursor):
 * by its own parameters, or through a binding that gives the list operation it plays its vendor shape.
 */
export const pagesAsReference = (op: Operation, binding: Binding | undefined): boolean => {
  if (isList(op)) return true;
  const bound = binding?.referenceOf(op);
  return bound !== undefined && isList(bound.ref) && bound.entry.list !== undefined;
};

/** The name of a list's page-size parameter in the document in use (the binding's, else `limit`). */
export const limitParamOf = (op: Operation, binding: Binding | undefined): string => binding?.referenceOf(op)?.entry.list?.limit_param ?? 'limit';

/**
 * Why the reference's paging cannot be asked of a list: its page-size parameter (the binding's, else `limit`) is not
 * one the operation declares. A vendor's list that pages otherwise is not failed for ignoring a parameter its
 * document never promised; declared names that look like a page size are offered as the binding to write.
 */
export function undeclaredPageSize(op: Operation, binding: Binding | undefined): string | undefined {
  const name = limitParamOf(op, binding);
  const query = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  if (query.includes(name)) return undefined;
  const like = query.filter((q) => /^(page_?size|per_?page|size|max_?results|max|count|top|first|take)$/i.test(q));
  const hint = like.length ? `; if it pages by ${like.map((q) => `"${q}"`).join(' or ')}, bind the list with that as list.limit_param (docs/binding.md)` : '';
  return `${op.method} ${op.path} declares no "${name}" query parameter: the reference's paging cannot be asked of it${hint}`;
}

/** The documented page-size maximum of a list (its page-size parameter's schema), if any. */
export function maxPageSize(op: Operation, binding: Binding | undefined): number | undefined {
  const name = limitParamOf(op, binding);
  const s = op.parameters.find((p) => p.in === 'query' && p.name === name)?.schema;
  return typeof s === 'object' && typeof s['maximum'] === 'number' ? s['maximum'] : undefined;
}

/** A GET of one object (or one customer's sub-resource) named by path parameters. */
export const isGetById = (op: Operation): boolean => op.method === 'GET' && !isList(op) && pathParamsOf(op).length > 0;

/** The JSON request body the operation documents (application/json, or another JSON type such as vnd.api+json), if any. */
export const jsonBodyOf = (op: Operation) => {
  const media = requestMediaOf(op);
  return media && (media.mediaType === 'application/json' || /^application\/[\w.+-]+\+json$/.test(media.mediaType)) ? media : undefined;
};

/** The GET on the same path (re-reads what a PATCH or DELETE changed). */
export const readerOf = (spec: SpecDocument, op: Operation): Operation | undefined =>
  spec.operations.find((o) => o.method === 'GET' && o.path === op.path && o !== op);

/** The create on the same path as a list (fills the list when a check needs more objects in it). */
export const creatorOf = (spec: SpecDocument, list: Operation): Operation | undefined =>
  spec.operations.find((o) => isCreate(o) && o.path === list.path);

/** The operations of a group in document order. */
/** A group's operations a request can address (a path key holding a query string names no route: src/harness/preconditions.ts). */
export const opsOfGroup = (spec: SpecDocument, group: string): Operation[] => spec.operations.filter((o) => o.group === group && !unaddressablePath(o.path));

/**
 * Whether the status is one the operation documents as a success (exactly, or by a 2XX range); for an operation
 * that documents no 2xx at all (a download that answers with a redirect, as Twilio's do), a documented 3xx.
 */
export function documented2xx(op: Operation, status: number): boolean {
  const matches = (r: { status: string }) => r.status === String(status) || r.status === `${String(status)[0]}XX`;
  if (status >= 200 && status < 300) return op.responses.some(matches);
  return status >= 300 && status < 400 && !op.responses.some((r) => r.status.startsWith('2')) && op.responses.some(matches);
}

export const documentedSuccesses = (op: Operation): string => {
  const ok = op.responses.filter((r) => r.status.startsWith('2'));
  return (ok.length ? ok : op.responses.filter((r) => r.status.startsWith('3'))).map((r) => r.status).join(' or ') || 'none';
};

// --- Effects ------------------------------------------------------------------------------------------------------

/** A request in a scope, and how to see what it did there. */
export interface Scoped {
  op: Operation;
  parts: RequestParts;
  scope: DriverScope;
  driver: OperationDriver | undefined;
  /**
   * How many times requests like `parts` took effect in the scope; undefined when it cannot be known (see `why`).
   * With `caseName`, the read is recorded as that case for a judge that counts again (recordedEffects).
   */
  count: ((parts?: RequestParts, caseName?: string) => Promise<number>) | undefined;
  why: string;
}

/** A valid request (in a fresh scope of its own when asked) with its effect counter when the driver has one. */
export async function scoped(ctx: CheckContext, op: Operation, opts: { fresh?: boolean; as?: 'primary' | 'second' } = {}): Promise<Scoped> {
  const as = opts.as ?? 'primary';
  const scope = scopeOf(ctx, as);
  const parts = await validRequest(ctx, op, { fresh: opts.fresh ?? false, as });
  // A driver sees the effects of the requests it built, not of values found elsewhere (requests.ts).
  const driver = builtByDriver(parts) ? driverFor(ctx, op) : undefined;
  const effects = driver?.effects;
  const why = !ctx.config.isReferenceProfile
    ? `the spec in use is a vendor's own, and no driver knows how to see the effects of ${op.operationId}`
    : !driver
      ? `no driver for ${op.operationId} yet (src/drivers)`
      : `the driver of ${op.operationId} has no effects()`;
  return {
    op,
    parts,
    scope,
    driver,
    // The driver counts in its own (the reference's) terms.
    count: effects ? (p = parts, caseName) => observed(ctx, () => readEffects(scope, effects.call(driver, referencePartsOf(p)), caseName)) : undefined,
    why,
  };
}

/**
 * Reads an effect count. When the read that shows effects fails (the target cannot list or re-read what it
 * just made: another requirement's failure), the check cannot judge effects and is skipped, saying why.
 */
async function observed(ctx: CheckContext, read: () => Promise<number>): Promise<number> {
  try {
    return await read();
  } catch (e) {
    if ((e as Error).name === 'EffectsUnobservable') ctx.skip(`the effects cannot be observed: ${(e as Error).message}`, 'binding');
    throw e;
  }
}

/** Skips when a success left no visible effect: the count cannot see what the target made (the reads are wrong), so it cannot judge duplicates. */
export function requireVisible(ctx: Pick<CheckContext, 'skip'>, effects: number, successes: number): void {
  if (successes > 0 && effects === 0) {
    ctx.skip(`${successes === 1 ? 'a success' : `${successes} successes`} left no effect the driver can see (the created or changed object does not read back); duplicates cannot be judged`, 'binding');
  }
}

/**
 * How many times `sent` requests took effect in their scope, from the counts before and after. A change the
 * requests alone cannot make (fewer effects than before, more than requests) is the target's data moving under
 * the count (a target that randomises or ages its data): not the target's behaviour to report, so the check skips.
 */
export function effectsOf(ctx: Pick<CheckContext, 'skip'>, before: number, after: number, sent: number): number {
  const n = after - before;
  if (n < 0 || n > sent) {
    ctx.skip(`effects not observable: the effect count of the scope went from ${before} to ${after} around ${sent === 1 ? 'one request' : `${sent} requests`}, a change ${n < 0 ? 'no request here undoes' : 'more than the requests could make'}; the scope's data changed beyond the suite's requests`);
  }
  return n;
}

/**
 * A comparable picture of the state a write would change: the effect count from the driver, or for a PATCH or
 * DELETE without one, the resource as re-read on its own path. Undefined (with the reason) when neither exists.
 */
export interface StateProbe {
  read(): Promise<string>;
  what: string;
}

export function stateProbe(ctx: CheckContext, s: Scoped): StateProbe | string {
  if (s.count) {
    const count = s.count;
    return { read: async () => String(await count()), what: `effects of ${s.op.operationId} in its scope` };
  }
  const reader = s.op.method === 'PATCH' || s.op.method === 'DELETE' ? readerOf(ctx.spec, s.op) : undefined;
  // A re-read shows this request's doing only on a resource the check made for itself (a driver's fresh scope):
  // one whose id the target listed, or the document gave, is the suite's other checks' to change at the same time.
  if (reader && !builtByDriver(s.parts)) {
    return `${s.op.operationId} names a resource the check did not make for itself (its id came from the target's answers or the document), so a change seen on re-reading it may be another check's`;
  }
  if (reader) {
    return {
      what: `${reader.operationId} of the same resource`,
      read: async () => {
        const res = await ctx.call(reader, { pathParams: s.parts.pathParams ?? {} });
        return `${res.status} ${canonicalJson(res.json ?? res.text)}`;
      },
    };
  }
  return s.why;
}

/** Names of the facts (CheckResult.facts) a run records around a write: the driver's effect counts, or why none. */
export const EFFECTS_BEFORE = 'effects_before';
export const EFFECTS_AFTER = 'effects_after';
export const EFFECTS_UNSEEN = 'effects_unseen';

/** Skips the rest of a check, saying what was judged and why the effect part cannot be. */
export function skipEffects(ctx: Pick<CheckContext, 'skip'>, judged: string, why: string): never {
  ctx.skip(`${judged}; whether the request took effect is not verified: ${why}`, 'binding');
}

/** Expects the probe to read the same before and after; describes the change otherwise. */
export async function expectUnchanged(probe: StateProbe, before: string, what: string): Promise<void> {
  const after = await probe.read();
  if (after === before) return;
  // A control read with no request in between: a state that changes by itself (a mock that makes up every answer,
  // a clock in the body) shows nothing of what the request did, and is no ground to say it took effect.
  const control = await probe.read();
  if (control !== after) {
    throw new CheckSkipped(`${probe.what} reads differently each time, with no request in between (${shorten(after)} then ${shorten(control)}): whether ${what} took effect cannot be seen from it`, 'prerequisite');
  }
  fail(`${what} took effect: ${probe.what} went from ${shorten(before)} to ${shorten(after)}`);
}

function shorten(s: string): string {
  return s.length > 160 ? `${s.slice(0, 160)}...` : s;
}

/** Skips the check when a request it builds on did not succeed (that is another check's finding). */
export function requireSuccess(ctx: Pick<CheckContext, 'skip'>, res: HttpResponse, judgedBy = 'FSAPI-CONTRACT-004'): void {
  if (res.status < 200 || res.status >= 300) {
    ctx.skip(`the valid request it builds on was answered ${res.status}${summariseBody(res)} (${describeRequest(res)}; ${judgedBy} judges that)`, 'prerequisite');
  }
}

/** Headers that identify a request to the target as the configured (or second) business, for raw probes. */
export function credentialHeaders(ctx: CheckContext, as: 'primary' | 'second' = 'primary'): Record<string, string> {
  const c = ctx.config.credentials;
  const p = as === 'second' ? c.second : { apiKey: c.apiKey, tenantId: c.tenantId };
  if (!p) ctx.skip('no second business configured (FSAPI_SECOND_API_KEY, FSAPI_SECOND_TENANT_ID)', 'credential');
  return { accept: 'application/json', 'Api-Key': p.apiKey, 'x-tenant-id': p.tenantId };
}

/** The first GET of the spec that needs no path parameter and no required query parameter (listAccounts preferred). */
export function simpleRead(spec: SpecDocument, group?: string): Operation | undefined {
  const plain = (o: Operation) => o.method === 'GET' && pathParamsOf(o).length === 0 && !o.parameters.some((p) => p.in === 'query' && p.required);
  const pool = group ? spec.operations.filter((o) => o.group === group) : spec.operations;
  const preferred = group ? undefined : spec.byId.get('listAccounts');
  return preferred && plain(preferred) ? preferred : pool.find(plain);
}

/** An operation whose every request body is an object with no properties: no second valid body exists. */
export function onlyEmptyBody(op: Operation): boolean {
  const media = op.requestBody?.content ?? [];
  return media.length > 0 && media.every((m) => typeof m.schema === 'object' && m.schema !== null && (m.schema as { maxProperties?: unknown }).maxProperties === 0);
}
