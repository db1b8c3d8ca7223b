/**
 * Where the document in use itself contradicts a seed rule: it carries the key as `Authorization: Bearer` (an
 * operation it secures by an http bearer scheme alone), it serves an operation without a key, it declares the
 * Idempotency-Key header of a POST optional,
 * or its POST /customers takes no body in the seed's form (a wrapper, renamed fields).
 * A target that does what its document says then fails that requirement on every such operation: true by the seed's
 * rule, but one fact. The run states it once per requirement, with the document's declaration as the evidence (its
 * JSON pointer) and the operations it applies to, and groups under it the checks that failed (or warned) for doing
 * what the document says. They still fail and count: the verdict does not change, only how the reports read.
 */
import { merge } from 'allof-merge';
import type { CheckResult, DocumentConflict } from './model.js';
import { isObj, type JsonObject } from '../json.js';

export type { DocumentConflict };

/** What a conflict is before the run: the document's side, the checks not yet known. */
export type DeclaredConflict = Omit<DocumentConflict, 'checks' | 'failed' | 'warning'>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** RFC 6901: "~" and "/" escaped in a pointer's segment. */
const segment = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const pointer = (...parts: (string | number)[]) => `/${parts.map((p) => segment(String(p))).join('/')}`;

interface RawOperation {
  id: string;
  method: string;
  path: string;
  op: JsonObject;
  item: JsonObject;
}

/** Every operation of the raw document, named as the catalogue names it (its operationId, else "METHOD /path"). */
function operationsOf(raw: JsonObject): RawOperation[] {
  const out: RawOperation[] = [];
  for (const [path, item] of Object.entries(isObj(raw['paths']) ? raw['paths'] : {})) {
    if (!isObj(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      out.push({ id: typeof op['operationId'] === 'string' ? op['operationId'] : `${method.toUpperCase()} ${path}`, method, path, op, item });
    }
  }
  return out;
}

/** The seed's own scheme: an API key in the Api-Key header. */
const isSeedScheme = (s: JsonObject) => s['type'] === 'apiKey' && s['in'] === 'header' && String(s['name']).toLowerCase() === 'api-key';
const isBearer = (s: JsonObject) => s['type'] === 'http' && String(s['scheme']).toLowerCase() === 'bearer';

/**
 * FSAPI-AUTH-003: the operations that accept the key as `Authorization: Bearer` alone, by their document: one of
 * their security alternatives names only http bearer schemes.
 */
function bearerOnly(raw: JsonObject, ops: readonly RawOperation[]): DeclaredConflict[] {
  const components = isObj(raw['components']) ? raw['components'] : {};
  const schemes = isObj(components['securitySchemes']) ? components['securitySchemes'] : {};
  const bearer = new Set(Object.entries(schemes).filter(([, s]) => isObj(s) && isBearer(s)).map(([name]) => name));
  if (!bearer.size) return [];
  const docSecurity = Array.isArray(raw['security']) ? raw['security'] : [];
  const used = new Set<string>();
  const operations = ops
    .filter(({ op }) => {
      const alternatives = Array.isArray(op['security']) ? op['security'] : docSecurity;
      const alone = alternatives.filter((a): a is JsonObject => isObj(a) && Object.keys(a).length > 0 && Object.keys(a).every((name) => bearer.has(name)));
      for (const a of alone) for (const name of Object.keys(a)) used.add(name);
      return alone.length > 0;
    })
    .map((o) => o.id);
  if (!operations.length) return [];
  const names = [...bearer].filter((n) => used.has(n));
  const withSeed = Object.values(schemes).some((s) => isObj(s) && isSeedScheme(s));
  return [
    {
      requirement: 'FSAPI-AUTH-003',
      declaration: withSeed
        ? `its security accepts the key as Authorization: Bearer alone (${names.join(', ')}: http bearer), besides the Api-Key header`
        : `its security schemes carry the key only as Authorization: Bearer (${names.join(', ')}: http bearer), not in the Api-Key header`,
      pointer: pointer('components', 'securitySchemes', names[0]!),
      places: names.length,
      operations,
    },
  ];
}

/** The key checks a target that serves an operation without a key fails there, by the seed's rule. */
const KEY_REQUIREMENTS = ['FSAPI-AUTH-001', 'FSAPI-AUTH-002', 'FSAPI-AUTH-003', 'FSAPI-AUTH-004', 'FSAPI-AUTH-007'];

/**
 * FSAPI-AUTH-001 to -004 and -007: the operations the document serves without a key: no security requirement
 * (none declared, `security: []`), an empty alternative (`{}`: the key optional), or only schemes that carry
 * nothing (an http scheme `none`, as Coinbase's `unauthenticated`). The seed secures every operation.
 */
function unsecured(raw: JsonObject, ops: readonly RawOperation[]): DeclaredConflict[] {
  const components = isObj(raw['components']) ? raw['components'] : {};
  const schemes = isObj(components['securitySchemes']) ? components['securitySchemes'] : {};
  const carriesNothing = (name: string) => {
    const s = schemes[name];
    return isObj(s) && s['type'] === 'http' && String(s['scheme']).toLowerCase() === 'none';
  };
  const docSecurity = Array.isArray(raw['security']) ? raw['security'] : [];
  let first: string | undefined;
  const operations = ops
    .filter(({ op, method, path }) => {
      const own = Array.isArray(op['security']);
      const alternatives = own ? (op['security'] as unknown[]) : docSecurity;
      const open = alternatives.length === 0 || alternatives.some((a) => isObj(a) && Object.keys(a).every(carriesNothing));
      if (open && first === undefined) first = own ? pointer('paths', path, method, 'security') : Array.isArray(raw['security']) ? '/security' : pointer('paths', path, method);
      return open;
    })
    .map((o) => o.id);
  if (!operations.length) return [];
  const declaration = `it serves ${operations.length} operation${operations.length === 1 ? '' : 's'} without a key (no security requirement, an empty one, or a scheme that carries nothing), where the seed secures every operation with the Api-Key header`;
  return KEY_REQUIREMENTS.map((requirement) => ({ requirement, declaration, pointer: first!, places: 1, operations }));
}

/** Where a parameter object is declared: a component it equals (what a `$ref` named, before it was resolved), else its own place. */
function declaredAt(param: JsonObject, own: string, components: JsonObject): string {
  const shared = isObj(components['parameters']) ? components['parameters'] : {};
  const text = JSON.stringify(param);
  const named = Object.entries(shared).find(([, p]) => JSON.stringify(p) === text);
  return named ? pointer('components', 'parameters', named[0]) : own;
}

/**
 * FSAPI-IDEM-001 and FSAPI-IDEM-101: the POST operations whose document declares the Idempotency-Key header and
 * does not require it.
 */
function optionalIdempotencyKey(raw: JsonObject, ops: readonly RawOperation[]): DeclaredConflict[] {
  const components = isObj(raw['components']) ? raw['components'] : {};
  const places = new Map<string, number>();
  const operations: string[] = [];
  for (const { id, method, path, op, item } of ops) {
    if (method !== 'post') continue;
    const declared = [
      ...(Array.isArray(item['parameters']) ? item['parameters'] : []).map((p, i) => [p, pointer('paths', path, 'parameters', i)] as const),
      ...(Array.isArray(op['parameters']) ? op['parameters'] : []).map((p, i) => [p, pointer('paths', path, method, 'parameters', i)] as const),
    ];
    // The operation's own declaration wins over the path's, as in OpenAPI.
    const key = declared.filter(([p]) => isObj(p) && p['in'] === 'header' && String(p['name']).toLowerCase() === 'idempotency-key').at(-1);
    if (!key || (key[0] as JsonObject)['required'] === true) continue;
    operations.push(id);
    const at = declaredAt(key[0] as JsonObject, key[1], components);
    places.set(at, (places.get(at) ?? 0) + 1);
  }
  if (!operations.length) return [];
  // The declaration most operations share is the evidence shown.
  const [first] = [...places].sort((a, b) => b[1] - a[1])[0]!;
  const declaration = 'it declares the Idempotency-Key header of its POST operations optional (its required is not true)';
  return ['FSAPI-IDEM-001', 'FSAPI-IDEM-101'].map((requirement) => ({ requirement, declaration, pointer: first, places: places.size, operations }));
}

/** The members of the seed's customer create body (seed "Customer": its fields, the address nested). */
const SEED_CUSTOMER_BODY = ['first_name', 'last_name', 'middle_name', 'email', 'phone', 'type', 'gender', 'date_of_birth', 'address'];

/** A schema with a `$ref` to a component followed and allOf merged (allof-merge, as the document diff merges), and where it is declared. */
function effectiveSchema(raw: JsonObject, schema: unknown, at: string): { schema: JsonObject; at: string } | undefined {
  let s = schema;
  let where = at;
  for (let i = 0; i < 8 && isObj(s) && typeof s['$ref'] === 'string'; i++) {
    const ref = s['$ref'];
    if (!ref.startsWith('#/')) return undefined;
    where = ref.slice(1);
    s = ref
      .slice(2)
      .split('/')
      .map((k) => decodeURIComponent(k).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((o, k) => (isObj(o) ? o[k] : undefined), raw);
  }
  if (!isObj(s)) return undefined;
  try {
    const merged = merge(s, { source: raw, mergeRefSibling: true });
    return isObj(merged) ? { schema: merged, at: where } : undefined;
  } catch {
    return { schema: s, at: where };
  }
}

/**
 * FSAPI-CUS-001: the document's `POST /customers` takes no body in the seed's form (flat, the seed's field names):
 * its request schema requires a member the seed's body does not carry (a wrapper, `{"customer": {...}}`, or a
 * renamed field), or forbids the seed's members. The checks send the vendor's form through the binding; the seed's
 * own form is still sent once, and its refusal is this one fact.
 */
function seedCustomerBody(raw: JsonObject, ops: readonly RawOperation[]): DeclaredConflict[] {
  const create = ops.find((o) => o.method === 'post' && /^(\/v1)?\/customers\/?$/.test(o.path));
  if (!create) return [];
  let body: unknown = create.op['requestBody'];
  let at = pointer('paths', create.path, 'post', 'requestBody');
  if (isObj(body) && typeof body['$ref'] === 'string') {
    const found = effectiveSchema(raw, body, at);
    body = found?.schema;
    at = found?.at ?? at;
  }
  const content = isObj(body) && isObj(body['content']) ? body['content'] : {};
  const json = Object.keys(content).find((m) => m === 'application/json') ?? Object.keys(content).find((m) => /json/.test(m));
  if (!json || !isObj(content[json])) return [];
  const schema = effectiveSchema(raw, (content[json] as JsonObject)['schema'], `${at}${pointer('content', json, 'schema')}`);
  if (!schema) return [];
  const required = Array.isArray(schema.schema['required']) ? schema.schema['required'].map(String) : [];
  const props = isObj(schema.schema['properties']) ? schema.schema['properties'] : {};
  const missing = required.filter((m) => !SEED_CUSTOMER_BODY.includes(m));
  const closed = schema.schema['additionalProperties'] === false ? SEED_CUSTOMER_BODY.filter((m) => !(m in props)) : [];
  if (!missing.length && !closed.length) return [];
  const declaration = missing.length
    ? `its POST /customers request body requires ${missing.join(', ')}, which the seed's customer body (flat, in the seed's field names) does not carry`
    : `its POST /customers request body allows no other members than its own, and not the seed's ${closed.join(', ')}`;
  return [{ requirement: 'FSAPI-CUS-001', declaration, pointer: schema.at.startsWith('/') ? schema.at : `/${schema.at}`, places: 1, operations: [create.id] }];
}

/** The seed rules the document contradicts, each with where it says so and the operations it applies to. */
export function declaredConflicts(raw: JsonObject): DeclaredConflict[] {
  const ops = operationsOf(raw);
  return [...bearerOnly(raw, ops), ...unsecured(raw, ops), ...optionalIdempotencyKey(raw, ops), ...seedCustomerBody(raw, ops)];
}

/** Conflicts where doing what the document says is refusing the seed's request (not accepting what the seed refuses). */
const REFUSED_BY_DOCUMENT: ReadonlySet<string> = new Set(['FSAPI-CUS-001']);

const is2xx = (status: number | undefined) => status !== undefined && status >= 200 && status <= 299;

/**
 * The conflict a check failed (or warned) under: its requirement and operation are the conflict's, and the target
 * did what the document says (its answer to the check's own request was a success: the key taken as a bearer, the
 * POST processed without a key). A check that failed otherwise (a 500, a 403) is its own finding, listed as usual.
 */
export function conflictOf(conflicts: readonly DeclaredConflict[], c: CheckResult): DeclaredConflict | undefined {
  if (c.status !== 'failed' && c.status !== 'warning') return undefined;
  if (REFUSED_BY_DOCUMENT.has(c.requirement)) {
    // The seed's own create, refused (a 4xx, not a server error): what the document's schema says it does.
    const found = conflicts.find((x) => x.requirement === c.requirement);
    const create = c.exchanges.find((x) => x.response && x.case === 'create');
    const status = create?.response?.status;
    return found && status !== undefined && status >= 400 && status < 500 ? found : undefined;
  }
  const found = conflicts.find((x) => x.requirement === c.requirement && c.operation !== undefined && x.operations.includes(c.operation));
  if (!found) return undefined;
  const own = c.exchanges.filter((x) => x.response && x.operation === c.operation).at(-1);
  return is2xx(own?.response?.status) ? found : undefined;
}

/** The conflicts with the checks grouped under each (every conflict the document declares, even with none). */
export function groupConflicts(conflicts: readonly DeclaredConflict[], checks: readonly CheckResult[]): DocumentConflict[] {
  const grouped = new Map<DeclaredConflict, CheckResult[]>(conflicts.map((x) => [x, []]));
  for (const c of checks) {
    const x = conflictOf(conflicts, c);
    if (x) grouped.get(x)!.push(c);
  }
  return conflicts.map((x) => {
    const list = grouped.get(x)!;
    return { ...x, checks: list.map((c) => c.id), failed: list.filter((c) => c.status === 'failed').length, warning: list.filter((c) => c.status === 'warning').length };
  });
}

/** The check ids grouped under a report's conflicts, each to its conflict. */
export function groupedChecks(conflicts: readonly DocumentConflict[] | undefined): Map<string, DocumentConflict> {
  const out = new Map<string, DocumentConflict>();
  for (const x of conflicts ?? []) for (const id of x.checks) out.set(id, x);
  return out;
}

/** "122 checks failed for it", "1 check warned for it", "4 checks failed or warned for it (3 failed, 1 warned)". */
function tally(x: DocumentConflict): string {
  const n = x.checks.length;
  if (!n) return 'no check failed for it: the target did not do what its document says';
  const checks = `${n} check${n === 1 ? '' : 's'}`;
  if (!x.warning) return `${checks} failed for it`;
  if (!x.failed) return `${checks} warned for it`;
  return `${checks} failed or warned for it (${x.failed} failed, ${x.warning} warned)`;
}

/**
 * What the document says and what came of it: "the document contradicts it: its security schemes carry the key only
 * as Authorization: Bearer (bearerAuth: http bearer), not in the Api-Key header (#/components/securitySchemes/
 * bearerAuth), on 122 operations; 122 checks failed for it".
 */
export function conflictText(x: DocumentConflict): string {
  const where = `#${x.pointer}${x.places > 1 ? ` and ${x.places - 1} more place${x.places === 2 ? '' : 's'}` : ''}`;
  return `the document contradicts it: ${x.declaration} (${where}), on ${x.operations.length} operation${x.operations.length === 1 ? '' : 's'}; ${tally(x)}`;
}

/** The same on one line after the requirement: "FSAPI-AUTH-003: the document contradicts it: ...". */
export function describeConflict(x: DocumentConflict): string {
  return `${x.requirement}: ${conflictText(x)}`;
}
