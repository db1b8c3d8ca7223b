import { GROUPS, isGroupSlug, type GroupSlug } from '../catalogue/groups.js';
import type { Operation, SpecDocument } from '../catalogue/openapi.js';
import { displayPath, readSourceFile } from '../catalogue/yaml-file.js';
import { UsageError } from '../errors.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { SEED_FIXED, type BindingFile, type ErrorShape, type ListShape, type OperationBinding, type Suggestion } from './format.js';
import { isObj, type JsonObject } from '../json.js';
import { nearest } from '../nearest.js';


const TOP_KEYS = ['binding', 'spec', 'fields', 'states', 'values', 'events', 'errors', 'operations', 'groups', 'unbound'];
const OP_KEYS = ['operation', 'path_params', 'query', 'fields', 'envelope', 'list', 'confidence', 'reason'];
const LIST_KEYS = ['items', 'has_more', 'next_cursor', 'cursor_param', 'page_param', 'total_pages', 'offset_param', 'total', 'limit_param'];
const ERROR_KEYS = ['code', 'message'];
/** The comment line `bind` opens each suggestion with; the commented entry follows it. */
export const SUGGESTION_MARK = 'suggestion';

/** The vendor operation a binding entry names: its operationId, or "METHOD /path" as the document writes it. */
export function findOperation(spec: SpecDocument, name: string): Operation | undefined {
  const byId = spec.byId.get(name);
  if (byId) return byId;
  const m = /^([A-Za-z]+)\s+(\S+)$/.exec(name.trim());
  if (!m) return undefined;
  const method = m[1]!.toUpperCase();
  return spec.operations.find((o) => o.method === method && o.path === m[2]);
}

/**
 * Reads a binding file and checks it against the vendor's document and the reference profile. Every problem is
 * a UsageError naming the entry, its line and the fix.
 */
export function loadBinding(path: string, vendor: SpecDocument, reference: SpecDocument): BindingFile {
  const file = readSourceFile(path, 'binding file');
  const shown = displayPath(path);
  const fail = (msg: string, at: (string | number)[], fix: string): never => {
    throw new UsageError(msg, { file: shown, where: String(file.lineOf(at) ?? at.join('.')), fix });
  };
  const data = file.data;
  if (!isObj(data)) return fail('a binding file is a mapping', [], 'start from `fsapi-conformance bind --spec <document> --out binding.yaml`');
  for (const k of Object.keys(data)) {
    if (!TOP_KEYS.includes(k)) fail(`unknown key "${k}"${hint(k, TOP_KEYS)}`, [k], `allowed keys: ${TOP_KEYS.join(', ')}`);
  }
  if (data['binding'] !== 1) fail('the binding version must be 1', ['binding'], 'write `binding: 1` at the top');
  const names = (key: string, at: (string | number)[]): Record<string, string> | undefined => {
    const v = at.reduce<unknown>((o, k) => (isObj(o) ? o[k as string] : undefined), data);
    if (v === undefined || v === null) return undefined;
    if (!isObj(v) || Object.values(v).some((x) => typeof x !== 'string' || x === '')) {
      return fail(`${key} must map names to non-empty names`, at, `e.g. ${key}: { first_name: firstName }`);
    }
    return v as Record<string, string>;
  };
  const out: BindingFile = { binding: 1 };
  if (typeof data['spec'] === 'string') out.spec = data['spec'];
  const fields = names('fields', ['fields']);
  if (fields) out.fields = fields;
  const states = names('states', ['states']);
  if (states) out.states = states;
  const events = names('events', ['events']);
  if (events) out.events = events;
  const values = data['values'];
  if (values !== undefined && values !== null) {
    if (!isObj(values)) fail('values must map member names to value maps', ['values'], 'e.g. values: { type: { passport: PASSPORT } }');
    out.values = {};
    for (const member of Object.keys(values as JsonObject)) out.values[member] = names(`values.${member}`, ['values', member]) ?? {};
  }
  if (data['errors'] !== undefined && data['errors'] !== null) out.errors = errorShape(data['errors'], fail);

  const ops = data['operations'];
  if (ops !== undefined && ops !== null) {
    if (!isObj(ops)) fail('operations must be a mapping of reference operationIds', ['operations'], 'e.g. operations: { getCustomer: { operation: retrieveClient } }');
    out.operations = {};
    const used = new Map<string, string>();
    for (const [refId, entry] of Object.entries(ops as JsonObject)) {
      const at = ['operations', refId];
      const ref = reference.byId.get(refId);
      if (!ref) fail(`"${refId}" is not an operation of the reference profile${hint(refId, [...reference.byId.keys()])}`, at, 'key each entry by a reference operationId (`fsapi-conformance requirements` or spec/openapi.yaml lists them)');
      const e: JsonObject = typeof entry === 'string' ? { operation: entry } : isObj(entry) ? entry : fail(`operations.${refId} must name a vendor operation`, at, 'write `operation: <vendor operationId or "METHOD /path">`');
      for (const k of Object.keys(e)) if (!OP_KEYS.includes(k)) fail(`unknown key "${k}" in operations.${refId}${hint(k, OP_KEYS)}`, [...at, k], `allowed keys: ${OP_KEYS.join(', ')}`);
      if (typeof e['operation'] !== 'string') fail(`operations.${refId} names no vendor operation`, at, 'write `operation: <vendor operationId or "METHOD /path">`');
      const vop = findOperation(vendor, e['operation'] as string);
      if (!vop) {
        const near = nearest(e['operation'] as string, vendor.operations.map((o) => o.operationId));
        fail(`operations.${refId}: the document has no operation "${String(e['operation'])}"${near ? ` (did you mean ${near}?)` : ''}`, [...at, 'operation'], 'name the vendor operation by its operationId or as "METHOD /path"');
      }
      const other = used.get(vop!.operationId);
      if (other) fail(`operations.${refId} and operations.${other} both name ${vop!.operationId}`, at, 'bind each vendor operation to one reference operation at most');
      used.set(vop!.operationId, refId);
      if (vop!.method !== ref!.method) fail(`operations.${refId} is a ${ref!.method} in the reference profile, but ${vop!.operationId} is a ${vop!.method}`, [...at, 'operation'], 'bind it to a vendor operation with the same method');
      const fixed = SEED_FIXED[refId];
      if (fixed && (vop!.method !== fixed.method || vop!.path !== fixed.path)) {
        fail(`${refId} is ${fixed.method} ${fixed.path} by the seed itself; it cannot be bound to ${vop!.method} ${vop!.path}`, [...at, 'operation'], `remove the entry: a target that does not serve ${fixed.method} /v1${fixed.path} fails the seed's MUST requirements, as it should`);
      }
      const ob: OperationBinding = { operation: e['operation'] as string };
      const pp = names(`operations.${refId}.path_params`, [...at, 'path_params']);
      if (pp) {
        const refParams = ref!.parameters.filter((p) => p.in === 'path').map((p) => p.name);
        const vParams = vop!.parameters.filter((p) => p.in === 'path').map((p) => p.name);
        for (const [r, v] of Object.entries(pp)) {
          if (!refParams.includes(r)) fail(`operations.${refId}.path_params: ${ref!.path} has no path parameter "${r}"`, [...at, 'path_params', r], `its path parameters are: ${refParams.join(', ') || 'none'}`);
          if (!vParams.includes(v)) fail(`operations.${refId}.path_params: ${vop!.path} has no path parameter "${v}"`, [...at, 'path_params', r], `its path parameters are: ${vParams.join(', ') || 'none'}`);
        }
        ob.path_params = pp;
      }
      const q = names(`operations.${refId}.query`, [...at, 'query']);
      if (q) ob.query = q;
      const f = names(`operations.${refId}.fields`, [...at, 'fields']);
      // Renames of the seed's customer fields are taken: the checks then exercise the vendor as its document
      // says, and FSAPI-CUS-001 still sends the seed's own body (src/results/document-conflicts.ts).
      if (f) ob.fields = f;
      if (e['envelope'] !== undefined) {
        if (typeof e['envelope'] !== 'string') fail(`operations.${refId}.envelope must be a member name or dotted path`, [...at, 'envelope'], 'e.g. envelope: data');
        ob.envelope = e['envelope'] as string;
      }
      if (e['list'] !== undefined) ob.list = listShape(e['list'], [...at, 'list'], fail);
      if (typeof e['confidence'] === 'number') ob.confidence = e['confidence'];
      if (typeof e['reason'] === 'string') ob.reason = e['reason'];
      const missing = ref!.parameters.filter((p) => p.in === 'path' && !pathParamOf(ob, p.name, vop!));
      if (missing.length) {
        fail(`operations.${refId}: ${vop!.path} has no path parameter for ${missing.map((p) => p.name).join(', ')}`, at, `add path_params: { ${missing[0]!.name}: <the vendor's name> }`);
      }
      out.operations[refId] = ob;
    }
  }

  const groups = data['groups'];
  if (groups !== undefined && groups !== null) {
    if (!isObj(groups)) fail('groups must map vendor operations to group slugs', ['groups'], 'e.g. groups: { getStatement: accounts }');
    out.groups = {};
    for (const [name, g] of Object.entries(groups as JsonObject)) {
      if (!findOperation(vendor, name)) fail(`groups: the document has no operation "${name}"`, ['groups', name], 'name the vendor operation by its operationId or as "METHOD /path"');
      if (typeof g !== 'string' || !isGroupSlug(g)) fail(`groups.${name}: "${String(g)}" is not a group${hint(String(g), GROUPS.map((x) => x.slug))}`, ['groups', name], `groups are: ${GROUPS.map((x) => x.slug).join(', ')}`);
      out.groups[name] = g as GroupSlug;
    }
  }
  if (Array.isArray(data['unbound'])) {
    out.unbound = (data['unbound'] as unknown[]).filter(isObj).map((u) => ({ operation: String(u['operation']), reason: String(u['reason'] ?? '') }));
  }
  const suggestions = suggestionsIn(readFileSync(path, 'utf8'));
  if (suggestions.length) out.suggestions = suggestions;
  return out;
}

/**
 * The commented suggestions of a binding file: each a `# suggestion ...` line, then the commented entry
 * (`#   <reference operationId>:` and its keys). They are comments, so no run uses them; they are read only to be
 * counted and named.
 */
export function suggestionsIn(text: string): Suggestion[] {
  const lines = text.split(/\r?\n/);
  const out: Suggestion[] = [];
  // Loaded here, not with the module: every thread of a run loads this one (the catalogue's binding), and the `yaml`
  // package costs each ~45 ms of CPU to load; only a binding file's suggestions need it.
  let parse: typeof import('yaml').parse | undefined;
  const mark = new RegExp(`^\\s*#\\s*${SUGGESTION_MARK}\\b`);
  for (let i = 0; i < lines.length; i++) {
    if (!mark.test(lines[i]!)) continue;
    const body: string[] = [];
    for (let j = i + 1; j < lines.length && /^\s*#/.test(lines[j]!) && !mark.test(lines[j]!); j++) body.push(lines[j]!.replace(/^\s*# ?/, ''));
    let entry: unknown;
    parse ??= (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse;
    try {
      entry = parse(body.join('\n'));
    } catch {
      entry = undefined;
    }
    const [reference, e] = isObj(entry) ? (Object.entries(entry)[0] ?? []) : [];
    const op = isObj(e) ? e : undefined;
    // A mark whose entry was uncommented (taken into operations) is no suggestion any more.
    if (!op) continue;
    out.push({
      reference: String(reference),
      operation: typeof op?.['operation'] === 'string' ? op['operation'] : '?',
      ...(typeof op?.['confidence'] === 'number' ? { confidence: op['confidence'] } : {}),
    });
  }
  return out;
}

function errorShape(v: unknown, fail: (msg: string, at: (string | number)[], fix: string) => never): ErrorShape {
  const fix = 'e.g. errors: { code: error.code, message: error.message } (dotted paths in the error body)';
  if (!isObj(v)) return fail('errors must say where an error answer keeps its code and message', ['errors'], fix);
  for (const k of Object.keys(v)) if (!ERROR_KEYS.includes(k)) fail(`unknown key "${k}" in errors${hint(k, ERROR_KEYS)}`, ['errors', k], `allowed keys: ${ERROR_KEYS.join(', ')}`);
  for (const [k, x] of Object.entries(v)) if (typeof x !== 'string' || x === '') fail(`errors.${k} must be a member name or dotted path`, ['errors', k], fix);
  if (v['code'] === undefined && v['message'] === undefined) fail('errors names neither code nor message', ['errors'], fix);
  return v as ErrorShape;
}

/** The vendor's name of a reference path parameter: bound, or the same name when the vendor's path has it. */
export function pathParamOf(ob: OperationBinding, refName: string, vop: Operation): string | undefined {
  const bound = ob.path_params?.[refName];
  if (bound) return bound;
  const vParams = vop.parameters.filter((p) => p.in === 'path');
  if (vParams.some((p) => p.name === refName)) return refName;
  // A path with one parameter takes the one reference parameter it stands for.
  return vParams.length === 1 ? vParams[0]!.name : undefined;
}

function listShape(v: unknown, at: (string | number)[], fail: (msg: string, at: (string | number)[], fix: string) => never): ListShape {
  if (!isObj(v)) return fail(`${at.join('.')} must be a mapping`, at, 'e.g. list: { items: data, has_more: has_more, next_cursor: next_cursor, cursor_param: cursor }');
  for (const k of Object.keys(v)) if (!LIST_KEYS.includes(k)) fail(`unknown key "${k}" in ${at.join('.')}${hint(k, LIST_KEYS)}`, [...at, k], `allowed keys: ${LIST_KEYS.join(', ')}`);
  for (const [k, x] of Object.entries(v)) if (typeof x !== 'string') fail(`${at.join('.')}.${k} must be a name`, [...at, k], 'write the member or parameter name');
  if (v['items'] === undefined) fail(`${at.join('.')} says nothing of where the items are`, at, 'add items: <member holding the array> ("" when the body is the array)');
  const paging = ['cursor_param', 'page_param', 'offset_param'].filter((k) => v[k] !== undefined);
  if (paging.length > 1) fail(`${at.join('.')} has both ${paging[0]} and ${paging[1]}`, [...at, paging[1]!], 'a list pages by cursor, by page number or by offset: keep one');
  return v as unknown as ListShape;
}

function hint(name: string, known: string[]): string {
  const n = nearest(name, known);
  return n ? ` (did you mean ${n}?)` : '';
}
