/** What every gap observation shares: how a prerequisite problem is told apart, an answer's shape in one line, the seed's own operations, and the type of an observation. */
import type { Operation, SpecDocument } from '../../catalogue/openapi.js';
import type { CheckDef } from '../../harness/check.js';
import type { HttpResponse } from '../../http/client.js';
import { isObj, type JsonObject } from '../../json.js';

/** A prerequisite the world or a driver could not build: an observation notes it (only transport problems error). */
export const isSetupProblem = (e: unknown): boolean => e instanceof Error && (e.name === 'PreconditionFailed' || e.name === 'EffectsUnobservable');

/** "201 application/json" or "400 application/problem+json {type,title,status}". */
export function shape(res: HttpResponse, members = true): string {
  const keys = isObj(res.json) ? Object.keys(res.json) : [];
  return `${res.status} ${res.contentType || '(no Content-Type)'}${members && keys.length ? ` {${keys.join(',')}}` : ''}`;
}

/** The seed's own operations (POST /customers, GET /accounts), found by method and path in the spec in use. */
export function seedOp(spec: SpecDocument, method: string, path: string): Operation | undefined {
  return spec.operations.find((o) => o.method === method && o.path === path);
}

export const SEED_CUSTOMER_FIELDS = ['first_name', 'last_name', 'middle_name', 'email', 'phone', 'type', 'gender', 'date_of_birth', 'address'];
export const SEED_ADDRESS_FIELDS = ['address_line1', 'city', 'country', 'postal_code', 'state'];

export function without(body: unknown, path: string[]): unknown {
  const copy = structuredClone(body) as JsonObject;
  let o: unknown = copy;
  for (const seg of path.slice(0, -1)) o = isObj(o) ? o[seg] : undefined;
  if (isObj(o)) delete o[path[path.length - 1]!];
  return copy;
}

export type Obs = Omit<CheckDef, 'requirement' | 'family' | 'group'> & { requirement: `FSAPI-GAP-${string}` };
