/**
 * The binding file: how a vendor's OpenAPI document spells what the seed leaves open (docs/binding.md). Plain data,
 * so the main thread loads and validates it once and hands it to every worker as it is.
 */
import type { GroupSlug } from '../catalogue/groups.js';

/** How a list operation pages and where its items are. Every member is a dotted path or a parameter name. */
export interface ListShape {
  /** Member holding the items; "" when the body is the array itself. */
  items: string;
  /** Boolean member saying another page exists. */
  has_more?: string;
  /** Member holding the next page's cursor (cursor pagination), and the query parameter that takes it. */
  next_cursor?: string;
  cursor_param?: string;
  /** Page-number pagination instead: the 1-based page query parameter, and the member giving the page count. */
  page_param?: string;
  total_pages?: string;
  /** Offset pagination instead: the query parameter taking the (0-based) index of the first item. */
  offset_param?: string;
  /** Member giving the total number of items (what tells an offset list's last page). */
  total?: string;
  /** The page-size query parameter. */
  limit_param?: string;
}

/** Where an error answer keeps its code and message: dotted paths in its body (`error.code`). */
export interface ErrorShape {
  code?: string;
  message?: string;
}

/** A pairing `bind` found too weak to act on: written as a commented entry, never used by a run. */
export interface Suggestion {
  /** The reference operationId it would bind. */
  reference: string;
  /** The vendor operation it names. */
  operation: string;
  confidence?: number;
  reason?: string;
}

export interface OperationBinding {
  /** The vendor's operationId, or "METHOD /path" as written in its document. */
  operation: string;
  /** Reference path parameter name -> vendor name. */
  path_params?: Record<string, string>;
  /** Reference query parameter name -> vendor name. */
  query?: Record<string, string>;
  /** Reference field -> vendor field, over the global `fields` for this operation. */
  fields?: Record<string, string>;
  /** The resource sits under this member of the response body (dotted path). */
  envelope?: string;
  list?: ListShape;
  /** Written by `bind` for review; not used by the run. */
  confidence?: number;
  reason?: string;
}

export interface BindingFile {
  binding: 1;
  spec?: string;
  /** Reference field name -> vendor field name, in request bodies and resources, at any depth. */
  fields?: Record<string, string>;
  /** Reference state value -> vendor value (in `status` and `state` members). */
  states?: Record<string, string>;
  /**
   * Enum values per member (or parameter) name in the reference's spelling: reference value -> vendor value, in
   * request bodies, query and path parameters and responses, at any depth. For status/state members, over `states`.
   */
  values?: Record<string, Record<string, string>>;
  /** Reference event type -> vendor event type. */
  events?: Record<string, string>;
  /** Where the vendor's error answers keep their code and message. */
  errors?: ErrorShape;
  /** Reference operationId -> the vendor operation that plays it. */
  operations?: Record<string, OperationBinding>;
  /** Vendor operation -> the group whose generic checks it gets, when it plays no reference operation. */
  groups?: Record<string, GroupSlug>;
  /** Vendor operations `bind` could not place, and why. */
  unbound?: { operation: string; reason: string }[];
  /** Not a key: the commented suggestions the file holds (by `bind`), counted on load so a run can say so. */
  suggestions?: Suggestion[];
}

/** Operations whose method, path and fields the seed itself fixes: no binding may move them. */
export const SEED_FIXED: Record<string, { method: string; path: string; fixedFields: boolean }> = {
  createCustomer: { method: 'POST', path: '/customers', fixedFields: true },
  listAccounts: { method: 'GET', path: '/accounts', fixedFields: false },
};

/** Seed-fixed customer create fields (seed "Customer" and "Address" tables): never renamed in its request. */
export const SEED_CUSTOMER_FIELDS = [
  'first_name', 'last_name', 'middle_name', 'email', 'phone', 'type', 'gender', 'date_of_birth', 'address',
  'address_line1', 'city', 'country', 'postal_code', 'state',
];

/** A member holding a state (status, state, kyc_status, kycStatus, card_state, ...): `states` applies to its values. */
export const isStateMember = (key: string | undefined): boolean => key !== undefined && /(^|_)(status|state)$|[a-z](Status|State)$/.test(key);
