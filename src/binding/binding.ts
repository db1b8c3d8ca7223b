import type { GroupSlug } from '../catalogue/groups.js';
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import type { RequestParts } from '../harness/check.js';
import { SEED_CUSTOMER_FIELDS, SEED_FIXED, type BindingFile, type OperationBinding } from './format.js';
import { findOperation, pathParamOf } from './load.js';
import { isObj, type Json } from '../json.js';


/** A reference operation as the vendor's document plays it. */
export interface BoundOperation {
  refId: string;
  ref: Operation;
  vendor: Operation;
  entry: OperationBinding;
  /** No translation at all: the vendor spells this operation as the reference profile does. */
  identity: boolean;
}

/** Why an operation of the document is or is not bound, for the report's operation accounting. */
export interface OperationAccount {
  operation: string;
  method: string;
  path: string;
  status: 'bound' | 'group-only' | 'unbound';
  bound_to?: string;
  group?: GroupSlug;
  reason?: string;
}

/** Thrown when the binding cannot express a request: the check is skipped with this reason (cause: binding). */
export class BindingGap extends Error {
  override readonly name = 'BindingGap';
}

const get = (o: unknown, path: string): unknown => (path === '' ? o : path.split('.').reduce<unknown>((x, k) => (isObj(x) ? x[k] : undefined), o));

/**
 * Translates between the reference profile, which drivers, worlds and flows speak, and the vendor's document, which
 * the target speaks. Built from a binding file, or implied (a vendor operation with a reference operationId and
 * method plays it); for the reference profile itself it is the identity and translates nothing.
 */
export class Binding {
  private readonly bound = new Map<string, BoundOperation>();
  private readonly byVendor = new Map<string, BoundOperation>();
  private readonly fields: Record<string, string>;
  private readonly states: Record<string, string>;
  private readonly statesBack: Record<string, string>;
  private readonly events: Record<string, string>;
  private readonly eventsBack: Record<string, string>;
  /** Each vendor operation's group by its tags, as loaded (before the binding regroups the document). */
  private readonly tagGroup: Map<string, GroupSlug | undefined>;

  constructor(
    readonly vendor: SpecDocument,
    readonly reference: SpecDocument,
    readonly file: BindingFile | undefined,
    /** The vendor's document is the reference profile: nothing to translate. */
    readonly isIdentity = false,
  ) {
    this.fields = file?.fields ?? {};
    this.states = file?.states ?? {};
    this.statesBack = invert(this.states);
    this.events = file?.events ?? {};
    this.eventsBack = invert(this.events);
    this.tagGroup = new Map(vendor.operations.map((o) => [o.operationId, o.group === 'unbound' ? undefined : o.group]));
    for (const [refId, entry] of Object.entries(file?.operations ?? {})) {
      const ref = reference.byId.get(refId);
      const v = findOperation(vendor, entry.operation);
      if (ref && v) this.add({ refId, ref, vendor: v, entry, identity: false });
    }
    // Implied entries: the vendor kept the reference operationId and method (and the binding did not place it).
    for (const ref of reference.operations) {
      if (this.bound.has(ref.operationId)) continue;
      const v = vendor.byId.get(ref.operationId);
      if (!v || v.method !== ref.method || this.byVendor.has(v.operationId)) continue;
      const entry: OperationBinding = { operation: v.operationId };
      if (!ref.parameters.every((p) => p.in !== 'path' || pathParamOf(entry, p.name, v))) continue;
      const plain = isIdentity || (v.path === ref.path && Object.keys(this.fields).length === 0 && Object.keys(this.states).length === 0);
      this.add({ refId: ref.operationId, ref, vendor: v, entry, identity: plain });
    }
  }

  private add(b: BoundOperation): void {
    this.bound.set(b.refId, b);
    this.byVendor.set(b.vendor.operationId, b);
  }

  /** The vendor operation playing a reference operation, or undefined when the document has none. */
  resolve(refId: string): BoundOperation | undefined {
    return this.bound.get(refId);
  }

  /** The reference operation a vendor operation plays. */
  referenceOf(vendorOp: Operation): BoundOperation | undefined {
    return this.byVendor.get(vendorOp.operationId);
  }

  /** The group whose suite runs the generic checks of a vendor operation, or undefined (unbound). */
  groupOf(vendorOp: Operation): GroupSlug | undefined {
    const b = this.byVendor.get(vendorOp.operationId);
    if (b && b.ref.group !== 'unbound') return b.ref.group;
    const g = this.file?.groups?.[vendorOp.operationId] ?? this.file?.groups?.[`${vendorOp.method} ${vendorOp.path}`];
    return g ?? this.tagGroup.get(vendorOp.operationId);
  }

  /** Every operation of the document: what it plays, or why it plays nothing. */
  accounting(): OperationAccount[] {
    const unboundReasons = new Map((this.file?.unbound ?? []).map((u) => [u.operation, u.reason]));
    return this.vendor.operations.map((o) => {
      const base = { operation: o.operationId, method: o.method, path: o.path };
      const b = this.byVendor.get(o.operationId);
      const g = this.groupOf(o);
      if (b) return { ...base, status: 'bound' as const, bound_to: b.refId, ...(g ? { group: g } : {}) };
      if (g) return { ...base, status: 'group-only' as const, group: g, reason: this.file?.groups?.[o.operationId] ? 'bound to its group by the binding' : 'its tags name the group' };
      const why = unboundReasons.get(o.operationId) ?? unboundReasons.get(`${o.method} ${o.path}`);
      return {
        ...base,
        status: 'unbound' as const,
        reason: why ?? `no binding entry, and its tags (${o.tags.join(', ') || 'none'}) name no group: the seed's rules (Api-Key, Idempotency-Key on POST) are still checked; bind it (fsapi-conformance bind) for more`,
      };
    });
  }

  /** Request parts in the reference's terms, as the vendor operation takes them. */
  toVendor(b: BoundOperation, parts: RequestParts): RequestParts {
    if (b.identity) return parts;
    const out: RequestParts = {};
    if (parts.pathParams) {
      const pp: Record<string, string> = {};
      for (const [name, value] of Object.entries(parts.pathParams)) {
        const known = b.ref.parameters.some((p) => p.in === 'path' && p.name === name);
        const v = known ? pathParamOf(b.entry, name, b.vendor) : undefined;
        if (!v) throw new BindingGap(`the binding names no path parameter of ${b.vendor.operationId} (${b.vendor.method} ${b.vendor.path}) for ${b.refId}'s ${name}: add operations.${b.refId}.path_params.${name}`);
        pp[v] = value;
      }
      out.pathParams = pp;
    }
    if (parts.query) out.query = this.queryToVendor(b, parts.query);
    if (parts.body !== undefined) out.body = this.bodyToVendor(b, parts.body);
    return out;
  }

  /** Query parameters in the reference's terms (including its list paging), as the vendor operation takes them. */
  queryToVendor(b: BoundOperation, query: Record<string, string | number | boolean | undefined>): Record<string, string | number | boolean | undefined> {
    if (b.identity) return query;
    const list = b.entry.list;
    const out: Record<string, string | number | boolean | undefined> = {};
    for (const [k, v] of Object.entries(query)) {
      if (v === undefined) continue;
      if (k === 'cursor' && list) {
        if (list.page_param) out[list.page_param] = v;
        else if (list.cursor_param) out[list.cursor_param] = v;
        continue;
      }
      if (k === 'limit' && list?.limit_param) {
        out[list.limit_param] = v;
        continue;
      }
      const name = b.entry.query?.[k] ?? this.fieldName(b, k);
      out[name] = typeof v === 'string' ? this.stateToVendor(v) : v;
    }
    return out;
  }

  private fieldName(b: BoundOperation, refName: string): string {
    return b.entry.fields?.[refName] ?? this.fields[refName] ?? refName;
  }

  private stateToVendor(v: string): string {
    return this.states[v] ?? this.events[v] ?? v;
  }

  bodyToVendor(b: BoundOperation, body: unknown): unknown {
    if (b.identity) return body;
    const keepSeed = SEED_FIXED[b.refId]?.fixedFields === true;
    const map = { ...this.fields, ...b.entry.fields };
    const walk = (v: unknown, key: string | undefined): unknown => {
      if (Array.isArray(v)) return v.map((x) => walk(x, key));
      if (typeof v === 'string') return this.events[v] ?? (isStateMember(key) ? this.stateToVendor(v) : v);
      if (!isObj(v)) return v;
      const o: Json = {};
      for (const [k, x] of Object.entries(v)) o[keepSeed && SEED_CUSTOMER_FIELDS.includes(k) ? k : (map[k] ?? k)] = walk(x, k);
      return o;
    };
    return walk(body, undefined);
  }

  /**
   * The vendor's response body as the reference profile shapes it: the resource out of its envelope, a list as
   * { data, has_more, next_cursor }, field, state and event names the reference's. `query` is the request's
   * reference query (page-number paging needs the page asked for).
   */
  toReference(b: BoundOperation, json: unknown, query: Record<string, unknown> = {}): unknown {
    if (b.identity || json === undefined) return json;
    const list = b.entry.list;
    if (list) {
      const items = get(json, list.items);
      if (!Array.isArray(items)) return json;
      const data = items.map((x) => this.resourceToReference(b, x));
      let hasMore: boolean;
      let next: string | undefined;
      if (list.page_param) {
        const page = Number(query['cursor'] ?? 1) || 1;
        const total = list.total_pages ? Number(get(json, list.total_pages)) : NaN;
        const limit = Number(query['limit'] ?? NaN);
        hasMore = Number.isFinite(total) ? page < total : Number.isFinite(limit) ? items.length >= limit && items.length > 0 : false;
        if (list.has_more && typeof get(json, list.has_more) === 'boolean') hasMore = get(json, list.has_more) === true;
        next = hasMore ? String(page + 1) : undefined;
      } else {
        const c = list.next_cursor ? get(json, list.next_cursor) : undefined;
        next = typeof c === 'string' && c !== '' ? c : typeof c === 'number' ? String(c) : undefined;
        const hm = list.has_more ? get(json, list.has_more) : undefined;
        hasMore = typeof hm === 'boolean' ? hm : next !== undefined;
      }
      return { data, has_more: hasMore, ...(next !== undefined ? { next_cursor: next } : {}) };
    }
    const resource = b.entry.envelope ? get(json, b.entry.envelope) : json;
    return resource === undefined ? json : this.resourceToReference(b, resource);
  }

  private resourceToReference(b: BoundOperation, v: unknown): unknown {
    const back = invert({ ...this.fields, ...b.entry.fields });
    const walk = (x: unknown, key: string | undefined): unknown => {
      if (Array.isArray(x)) return x.map((y) => walk(y, key));
      if (typeof x === 'string') return this.eventsBack[x] ?? (isStateMember(key) ? (this.statesBack[x] ?? x) : x);
      if (!isObj(x)) return x;
      const o: Json = {};
      for (const [k, y] of Object.entries(x)) {
        const name = back[k] ?? k;
        o[name] = walk(y, name);
      }
      return o;
    };
    return walk(v, undefined);
  }
}

/** A member holding a state: status, state, kyc_status, kycStatus, card_state, ... */
const isStateMember = (key: string | undefined): boolean => key !== undefined && /(^|_)(status|state)$|[a-z](Status|State)$/.test(key);

function invert(m: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [v, k]));
}
