/**
 * Whether a request the suite calls valid is valid for the document: each path and query value for its parameter's
 * schema (formats included), the body for the operation's request schema as a client fills it (readOnly members
 * left out, `allOf` merged by allof-merge, as the document diff merges it). A refusal of a request the document
 * itself forbids says nothing of the target, so a check that expects acceptance never sends one: it is skipped,
 * naming the fix. A body that fits only once wrapped in the one object member its schema requires
 * (`{"customer": {...}}`) is sent wrapped.
 */
import { merge } from 'allof-merge';
import { requestMediaOf, type Operation, type SpecDocument } from '../catalogue/openapi.js';
import type { SchemaProblem } from '../catalogue/json-schema.js';
import { isObj, schemaText, type JsonObject } from '../json.js';
import type { RequestParts } from '../http/request-parts.js';
import { validForParameter } from './parameter-value.js';
import { UnsupportedPattern } from '../catalogue/linear-pattern.js';

/** How deep references are followed to find readOnly members (circular schemas stop here). */
const DEPTH = 8;
const URN = /^urn:fsapi:spec#\/\$defs\//;
const COMPONENT = '#/components/schemas/';

/** The schema with the loader's bundle references written as the document's own, so allof-merge resolves them. */
function documentRefs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(documentRefs);
  if (!isObj(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) out[k] = k === '$ref' && typeof x === 'string' ? x.replace(URN, COMPONENT) : documentRefs(x);
  return out;
}

const sources = new WeakMap<SpecDocument, JsonObject>();
function sourceOf(spec: SpecDocument): JsonObject {
  let s = sources.get(spec);
  if (!s) sources.set(spec, (s = { components: isObj(spec.raw['components']) ? { schemas: spec.raw['components']['schemas'] ?? {} } : { schemas: {} } }));
  return s;
}

/** A schema with allOf merged and a top-level $ref followed (one level: deeper ones are followed as the walk reaches them). */
function effective(spec: SpecDocument, schema: unknown, depth: number): JsonObject | undefined {
  if (!isObj(schema) || depth > DEPTH) return undefined;
  const source = sourceOf(spec);
  let merged: unknown;
  try {
    merged = merge(documentRefs(schema), { source, mergeRefSibling: true });
  } catch {
    merged = schema;
  }
  if (!isObj(merged)) return undefined;
  const ref = merged['$ref'];
  if (typeof ref !== 'string') return merged;
  const name = decodeURIComponent(ref.replace(URN, COMPONENT).slice(COMPONENT.length)).replace(/~1/g, '/').replace(/~0/g, '~');
  const target = isObj(source['components']) && isObj(source['components']['schemas']) ? source['components']['schemas'][name] : undefined;
  const { $ref: _ref, ...siblings } = merged;
  const resolved = effective(spec, target, depth + 1);
  return resolved ? { ...resolved, ...siblings } : undefined;
}

/** A tree of the readOnly members of a body schema: `true` for a readOnly member, a subtree for an object member. */
export type ReadOnlyTree = { [member: string]: true | ReadOnlyTree };

function readOnlyTree(spec: SpecDocument, schema: unknown, depth: number): ReadOnlyTree {
  const s = effective(spec, schema, depth);
  if (!s) return {};
  const out: ReadOnlyTree = {};
  const add = (tree: ReadOnlyTree) => {
    for (const [k, v] of Object.entries(tree)) {
      const had = out[k];
      if (v === true || had === true) out[k] = true;
      else out[k] = had ? { ...had, ...v } : v;
    }
  };
  // Alternatives: a member readOnly in any of them is one a client leaves out.
  for (const key of ['oneOf', 'anyOf'] as const) if (Array.isArray(s[key])) for (const alt of s[key] as unknown[]) add(readOnlyTree(spec, alt, depth + 1));
  if (isObj(s['items'])) add(readOnlyTree(spec, s['items'], depth + 1));
  for (const [name, raw] of Object.entries(isObj(s['properties']) ? s['properties'] : {})) {
    const p = effective(spec, raw, depth + 1);
    if (!p) continue;
    if (p['readOnly'] === true) add({ [name]: true });
    else {
      const inner = readOnlyTree(spec, p, depth + 1);
      if (Object.keys(inner).length) add({ [name]: inner });
    }
  }
  return out;
}

const trees = new WeakMap<SpecDocument, Map<string, ReadOnlyTree>>();

/** Whether anything in a value marks a member readOnly. */
const marksReadOnly = (v: unknown): boolean => (Array.isArray(v) ? v.some(marksReadOnly) : isObj(v) && (v['readOnly'] === true || Object.values(v).some(marksReadOnly)));

/**
 * Whether the document marks anything readOnly at all, found once: Stripe's marks nothing, and merging each of its
 * request bodies (allof-merge copies a schema whole) to learn so cost 1.2 ms of CPU per operation.
 */
const documentMarks = new WeakMap<SpecDocument, boolean>();
function documentMarksReadOnly(spec: SpecDocument): boolean {
  let marks = documentMarks.get(spec);
  if (marks === undefined) documentMarks.set(spec, (marks = marksReadOnly(spec.raw)));
  return marks;
}

/** The readOnly members of an operation's request body schema, found once per document and schema. */
export function readOnlyMembers(spec: SpecDocument, schema: unknown): ReadOnlyTree {
  const byText = trees.get(spec) ?? trees.set(spec, new Map()).get(spec)!;
  const key = schemaText(schema);
  let tree = byText.get(key);
  // The schema itself is looked at too: one made of another file's schemas carries what that file marks.
  if (!tree) byText.set(key, (tree = documentMarksReadOnly(spec) || marksReadOnly(schema) ? readOnlyTree(spec, schema, 0) : {}));
  return tree;
}

/** The body without its readOnly members (a copy; arrays item by item). */
export function withoutReadOnly(body: unknown, tree: ReadOnlyTree): unknown {
  if (Array.isArray(body)) return body.map((x) => withoutReadOnly(x, tree));
  if (!isObj(body) || Object.keys(tree).length === 0) return body;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(body)) {
    const t = tree[k];
    if (t === true) continue;
    out[k] = t ? withoutReadOnly(v, t) : v;
  }
  return out;
}

/** Whether a pointer names a readOnly member ("/address/id" in the tree). */
function isReadOnlyAt(tree: ReadOnlyTree, pointer: string): boolean {
  let node: true | ReadOnlyTree | undefined = tree;
  for (const seg of pointer.split('/').slice(1).filter((s) => !/^\d+$/.test(s))) {
    if (node === true || node === undefined) return false;
    node = node[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node === true;
}

/** The problems of a body for the operation's schema as a client fills it (a readOnly member is not required of it). */
export function bodyProblems(spec: SpecDocument, op: Operation, body: unknown): SchemaProblem[] {
  const media = requestMediaOf(op);
  if (!media?.schema) return [];
  const tree = readOnlyMembers(spec, media.schema);
  let problems: SchemaProblem[];
  try {
    problems = spec.validateRequestBody(op, body, media.mediaType);
  } catch (e) {
    return [{ pointer: '', message: e instanceof UnsupportedPattern ? e.message : `the schema cannot be compiled (${(e as Error).message})` }];
  }
  return problems.filter((p) => !(p.message === 'is required' && isReadOnlyAt(tree, p.pointer)));
}

/** The body as a client sends it: readOnly members left out; wrapped in the one object member its schema requires when only that fits. */
export type FittedBody = { ok: true; body: unknown; wrapped?: string } | { ok: false; body: unknown; problems: SchemaProblem[] };

export function fitBody(spec: SpecDocument, op: Operation, body: unknown, envelope?: string): FittedBody {
  const media = requestMediaOf(op);
  if (!media?.schema || body === undefined) return { ok: true, body };
  const tree = readOnlyMembers(spec, media.schema);
  const own = withoutReadOnly(body, tree);
  const problems = bodyProblems(spec, op, own);
  if (problems.length === 0) return { ok: true, body: own };
  // A wrapper: the schema requires one object member, and the body fits inside it (the binding's envelope first).
  const s = effective(spec, media.schema, 0);
  const required = s && Array.isArray(s['required']) ? s['required'].map(String) : [];
  const props = s && isObj(s['properties']) ? s['properties'] : {};
  const candidates = [...new Set([...(envelope && !envelope.includes('.') ? [envelope] : []), ...(required.length === 1 ? required : [])])];
  if (isObj(own) && !candidates.some((c) => c in own)) {
    for (const member of candidates) {
      const inner = effective(spec, props[member], 1);
      if (!inner || (inner['type'] !== undefined && inner['type'] !== 'object')) continue;
      const wrapped = withoutReadOnly({ [member]: own }, tree);
      if (bodyProblems(spec, op, wrapped).length === 0) return { ok: true, body: wrapped, wrapped: member };
    }
  }
  return { ok: false, body: own, problems };
}

/** What breaks the document in a request's path and query values: "path customerId=acme_corp breaks its schema". */
export function parameterProblems(spec: SpecDocument, op: Operation, parts: Pick<RequestParts, 'pathParams' | 'query'>): string[] {
  const out: string[] = [];
  for (const p of op.parameters) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    const v = p.in === 'path' ? parts.pathParams?.[p.name] : parts.query?.[p.name];
    if (v === undefined) continue;
    if (!validForParameter(spec, p, String(v))) out.push(`${p.in} ${p.name}=${JSON.stringify(String(v).slice(0, 40))} breaks its schema${describeSchema(p.schema)}`);
  }
  return out;
}

/** "(format uuid)", "(pattern ^cus_)": what a value must keep, in a few words. */
export function describeSchema(schema: unknown): string {
  if (!isObj(schema)) return '';
  const said = ['format', 'pattern', 'enum', 'minLength', 'maxLength', 'type'].filter((k) => schema[k] !== undefined).map((k) => `${k} ${JSON.stringify(schema[k])}`);
  return said.length ? ` (${said.slice(0, 2).join(', ')})` : '';
}

/** A short text of a body's problems, for a skip reason. */
export const problemText = (problems: readonly SchemaProblem[]): string =>
  problems
    .slice(0, 2)
    .map((p) => `${p.pointer || '(body)'} ${p.message}`)
    .join('; ');
