import type { GroupSlug } from '../catalogue/groups.js';
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import { isStateMember, SEED_FIXED, type BindingFile, type ListShape, type OperationBinding } from './format.js';
import { findOperation, pathParamOf } from './load.js';
import { isObj, type JsonObject } from '../json.js';
import type { RequestParts } from '../http/request-parts.js';


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

/** A string value, or each string of an array, through a map; anything else as it is. */
type ValueMap = Record<string, string>;

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
  private readonly values: Record<string, ValueMap>;
  private readonly events: Record<string, string>;
  private readonly eventsBack: Record<string, string>;
  /** Per reference member name: its value map (states merged under values for status/state members), and back. */
  private readonly valueMaps = new Map<string, { to: ValueMap; back: ValueMap }>();
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
    this.values = file?.values ?? {};
    this.events = file?.events ?? {};
    this.eventsBack = invert(this.events);
    this.tagGroup = new Map(vendor.operations.map((o) => [o.operationId, o.group === 'unbound' ? undefined : o.group]));
    for (const [refId, entry] of Object.entries(file?.operations ?? {})) {
      const ref = reference.byId.get(refId);
      const v = findOperation(vendor, entry.operation);
      if (ref && v) this.add({ refId, ref, vendor: v, entry, identity: false });
    }
    // Implied entries: the vendor kept the reference operationId and method (and the binding did not place it).
    // What the seed fixes is played only at the seed's own path: a vendor's createCustomer elsewhere is not it.
    for (const ref of reference.operations) {
      if (this.bound.has(ref.operationId)) continue;
      const v = vendor.byId.get(ref.operationId);
      if (!v || v.method !== ref.method || this.byVendor.has(v.operationId)) continue;
      const fixed = SEED_FIXED[ref.operationId];
      if (fixed && v.path !== fixed.path) continue;
      const entry: OperationBinding = { operation: v.operationId };
      if (!ref.parameters.every((p) => p.in !== 'path' || pathParamOf(entry, p.name, v))) continue;
      const plain = isIdentity || (v.path === ref.path && !this.translatesNames());
      this.add({ refId: ref.operationId, ref, vendor: v, entry, identity: plain });
    }
  }

  /** The binding renames members or values, so even an operation at the reference's path is translated. */
  private translatesNames(): boolean {
    return [this.fields, this.states, this.values, this.events].some((m) => Object.keys(m).length > 0) || this.file?.errors !== undefined;
  }

  /** How many operation entries are active, implied by operationId, and suggested (commented, not used). */
  counts(): { active: number; implied: number; suggestions: number } {
    const active = Object.keys(this.file?.operations ?? {}).filter((k) => this.bound.get(k)?.entry === this.file?.operations?.[k]).length;
    return { active, implied: this.bound.size - active, suggestions: this.file?.suggestions?.length ?? 0 };
  }

  /** The binding's entries in one line, for `run` and `bind` to print: what a run uses, and what it does not. */
  summary(label: string): string {
    const c = this.counts();
    const names = (this.file?.suggestions ?? []).map((x) => `${x.reference} <- ${x.operation}`);
    return (
      `binding ${label}: ${c.active} operation entr${c.active === 1 ? 'y' : 'ies'} active` +
      (c.implied ? ` (+${c.implied} implied by a matching operationId)` : '') +
      `, ${c.suggestions} suggestion${c.suggestions === 1 ? '' : 's'} (commented out, not used${names.length ? `: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', ...' : ''}` : ''})`
    );
  }

  /** A reference member's (or parameter's) value map both ways: `values` over `states` for status/state members. */
  private valueMap(refName: string | undefined): { to: ValueMap; back: ValueMap } | undefined {
    if (refName === undefined) return undefined;
    let m = this.valueMaps.get(refName);
    if (!m) {
      const to = { ...(isStateMember(refName) ? this.states : {}), ...this.values[refName] };
      m = { to, back: invert(to) };
      this.valueMaps.set(refName, m);
    }
    return m;
  }

  /** A value of a reference member (or parameter) in the vendor's terms: an event type, or that member's value. */
  private valueToVendor(refName: string | undefined, v: string): string {
    return this.events[v] ?? this.valueMap(refName)?.to[v] ?? v;
  }

  private valueToReference(refName: string | undefined, v: string): string {
    return this.eventsBack[v] ?? this.valueMap(refName)?.back[v] ?? v;
  }

  /** An event type in the vendor's terms (a webhook receiver's filter), and a delivered event in the reference's. */
  eventToVendor(type: string): string {
    return this.events[type] ?? type;
  }

  /**
   * A delivered webhook event read as the reference profile reads one: the event as the operation playing
   * getWebhookEvent answers it (its fields, values and event type back), without that answer's envelope.
   */
  eventToReference(event: unknown): unknown {
    const b = this.bound.get('getWebhookEvent');
    return b && !b.identity ? this.resourceToReference(b, event) : event;
  }

  /**
   * An error answer in the reference's terms: where the binding says the vendor keeps an error's code and message
   * (`errors`), they are read as the problem document's `code` and `detail` (the body's own members kept).
   */
  errorToReference(json: unknown): unknown {
    const shape = this.file?.errors;
    if (!shape || !isObj(json)) return json;
    const code = shape.code ? get(json, shape.code) : undefined;
    const message = shape.message ? get(json, shape.message) : undefined;
    if (typeof code !== 'string' && typeof message !== 'string') return json;
    return { ...json, ...(typeof code === 'string' ? { code } : {}), ...(typeof message === 'string' ? { detail: message } : {}) };
  }

  /** The vendor's error shape is bound (an error's code and message are read where the binding says). */
  get boundErrors(): boolean {
    return this.file?.errors !== undefined;
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
        pp[v] = this.valueToVendor(name, value);
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
      const paging = pagingParam(list);
      if (k === 'cursor' && paging) {
        out[paging] = v;
        continue;
      }
      if (k === 'limit' && list?.limit_param) {
        out[list.limit_param] = v;
        continue;
      }
      const name = b.entry.query?.[k] ?? this.fieldName(b, k);
      out[name] = typeof v === 'string' ? this.valueToVendor(k, v) : v;
    }
    return out;
  }

  private fieldName(b: BoundOperation, refName: string): string {
    return b.entry.fields?.[refName] ?? this.fields[refName] ?? refName;
  }

  bodyToVendor(b: BoundOperation, body: unknown): unknown {
    if (b.identity) return body;
    // Every body, the seed's customer create included, in the vendor's names and values: the seed's own form is
    // sent as it is only where a check asks for it (CallOptions.seedForm).
    const map = { ...this.fields, ...b.entry.fields };
    const walk = (v: unknown, key: string | undefined): unknown => {
      if (Array.isArray(v)) return v.map((x) => walk(x, key));
      if (typeof v === 'string') return this.valueToVendor(key, v);
      if (!isObj(v)) return v;
      const o: JsonObject = {};
      for (const [k, x] of Object.entries(v)) o[map[k] ?? k] = walk(x, k);
      return o;
    };
    return walk(body, undefined);
  }

  /**
   * Request parts in the vendor's terms (the document's own examples, say) as the reference profile spells them:
   * the inverse of toVendor, so a driver's effects() can read a request it did not build.
   */
  partsToReference(b: BoundOperation, parts: RequestParts): RequestParts {
    if (b.identity) return parts;
    const out: RequestParts = {};
    if (parts.pathParams) {
      const pp: Record<string, string> = {};
      const refParams = b.ref.parameters.filter((p) => p.in === 'path').map((p) => p.name);
      for (const [name, value] of Object.entries(parts.pathParams)) {
        const ref = refParams.find((r) => pathParamOf(b.entry, r, b.vendor) === name) ?? name;
        pp[ref] = this.valueToReference(ref, value);
      }
      out.pathParams = pp;
    }
    if (parts.query) {
      const list = b.entry.list;
      const queryBack = invert(b.entry.query ?? {});
      const fieldsBack = invert({ ...this.fields, ...b.entry.fields });
      const q: Record<string, string | number | boolean | undefined> = {};
      for (const [k, v] of Object.entries(parts.query)) {
        const name = list && k === pagingParam(list) ? 'cursor' : list?.limit_param === k ? 'limit' : (queryBack[k] ?? fieldsBack[k] ?? k);
        q[name] = typeof v === 'string' ? this.valueToReference(name, v) : v;
      }
      out.query = q;
    }
    if (parts.body !== undefined) out.body = this.resourceToReference(b, parts.body);
    return out;
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
      if (list.offset_param) {
        const offset = Number(query['cursor'] ?? 0) || 0;
        const total = list.total ? Number(get(json, list.total)) : NaN;
        const limit = Number(query['limit'] ?? NaN);
        const nextOffset = offset + items.length;
        hasMore = Number.isFinite(total) ? nextOffset < total && items.length > 0 : Number.isFinite(limit) ? items.length >= limit && items.length > 0 : false;
        if (list.has_more && typeof get(json, list.has_more) === 'boolean') hasMore = get(json, list.has_more) === true;
        next = hasMore ? String(nextOffset) : undefined;
      } else if (list.page_param) {
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
      if (typeof x === 'string') return this.valueToReference(key, x);
      if (!isObj(x)) return x;
      const o: JsonObject = {};
      for (const [k, y] of Object.entries(x)) {
        const name = back[k] ?? k;
        o[name] = walk(y, name);
      }
      return o;
    };
    return walk(v, undefined);
  }
}


/** The query parameter that takes the reference's `cursor`: the cursor, page number or offset. */
const pagingParam = (list: ListShape | undefined): string | undefined => list?.page_param ?? list?.offset_param ?? list?.cursor_param;

function invert(m: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [v, k]));
}
