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
  /** The page-size query parameter. */
  limit_param?: string;
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
  /** Reference event type -> vendor event type. */
  events?: Record<string, string>;
  /** Reference operationId -> the vendor operation that plays it. */
  operations?: Record<string, OperationBinding>;
  /** Vendor operation -> the group whose generic checks it gets, when it plays no reference operation. */
  groups?: Record<string, GroupSlug>;
  /** Vendor operations `bind` could not place, and why. */
  unbound?: { operation: string; reason: string }[];
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
