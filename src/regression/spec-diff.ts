/**
 * Document diff: what changed between two OpenAPI documents (3.0 or 3.1), each change classified breaking or not.
 *
 * The comparison and its classification are api-smart-diff's (it reads 3.0 and 3.1, resolves internal $refs and
 * merges allOf; see README "Regression after a release" for why this library and not openapi-diff or Optic). This
 * module only sorts its changes into the kinds a release review asks about, and folds the per-index changes of one
 * enum or one list into one line.
 */
import { readFileSync } from 'node:fs';
import { apiCompare, type Diff } from 'api-smart-diff';
import { parse as parseYaml } from 'yaml';
import { UsageError } from '../errors.js';
import { foldAlternatives, mergedDocument, resolvePointer } from './effective-schema.js';
import { removedRequestAlternatives } from './request-alternatives.js';
import { KIND_SINGULAR, KIND_TITLES, type SpecChange, type SpecChangeKind, type SpecDiff } from '../results/regression-model.js';

export { KIND_TITLES, type SpecChange, type SpecChangeKind, type SpecDiff } from '../results/regression-model.js';

/** Schema keywords that bound values: a change to one narrows or widens what is valid. */
const CONSTRAINTS = new Set(['maxLength', 'minLength', 'pattern', 'maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'maxItems', 'minItems', 'uniqueItems', 'additionalProperties', 'format', 'multipleOf', 'nullable', 'const']);

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

/** Reads an OpenAPI document (YAML or JSON); anything else is a UsageError naming the file. */
export function readDocument(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read the document (${(e as NodeJS.ErrnoException).code ?? 'error'})`, { file: path, fix: 'give the path of an OpenAPI 3.0 or 3.1 document (YAML or JSON)' });
  }
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: -1 });
  } catch (e) {
    throw new UsageError(`is neither YAML nor JSON (${(e as Error).message.split('\n')[0]})`, { file: path, fix: 'give an OpenAPI 3.0 or 3.1 document' });
  }
  const obj = doc as Record<string, unknown> | null;
  if (!obj || typeof obj !== 'object' || typeof obj['openapi'] !== 'string' || !/^3\.[01]\./.test(obj['openapi'])) {
    throw new UsageError('is not an OpenAPI 3.0 or 3.1 document (no "openapi: 3.0.x" or "3.1.x" at its top)', { file: path, fix: 'give an OpenAPI 3.0 or 3.1 document (a Swagger 2.0 one can be converted with swagger2openapi)' });
  }
  return obj;
}

function describeDoc(path: string, doc: Record<string, unknown>): SpecDiff['old'] {
  const info = (doc['info'] ?? {}) as { title?: unknown; version?: unknown };
  return { path, title: String(info.title ?? ''), version: String(info.version ?? ''), openapi: String(doc['openapi']) };
}

const escape = (s: string | number) => String(s).replace(/~/g, '~0').replace(/\//g, '~1');

/** Sorts one of the library's changes into a kind, from where it is and what it did. */
export function kindOf(d: Diff): SpecChangeKind {
  const p = d.path.map(String);
  const last = p[p.length - 1];
  const inResponse = p[3] === 'responses';
  if (p[0] === 'paths' && (p.length === 2 || (p.length === 3 && METHODS.has(p[2]!)))) return d.action === 'remove' ? 'removed-operation' : d.action === 'add' ? 'added-operation' : 'other';
  if (p.includes('security') || p[1] === 'securitySchemes') return 'security';
  if (p[0] === 'paths' && inResponse && p.length === 5) return d.action === 'remove' ? 'removed-response' : d.action === 'add' ? 'added-response' : 'other';
  if (p.includes('enum')) return 'enum';
  if (last === 'type' || p[p.length - 2] === 'type') return 'type';
  if (p[3] === 'parameters' && (last === 'required' || (p.length === 5 && d.action === 'add' && (d.after as { required?: unknown } | undefined)?.required === true))) return 'required-parameter';
  if (p[3] === 'requestBody' && (last === 'required' || p[p.length - 2] === 'required') && d.action !== 'remove') return 'required-member';
  if (inResponse && p[p.length - 2] === 'properties' && d.action === 'remove') return 'removed-response-member';
  if (CONSTRAINTS.has(last!)) return 'constraint';
  return 'other';
}

function operationOf(path: readonly (string | number)[]): string | undefined {
  return path[0] === 'paths' && typeof path[2] === 'string' && METHODS.has(path[2]) ? `${path[2].toUpperCase()} ${path[1]}` : undefined;
}

/** The change's pointer, without the index of an enum value or of a `required` entry: they fold into one change. */
function foldedPointer(d: Diff): string {
  const p = [...d.path];
  const parent = p[p.length - 2];
  if (typeof p[p.length - 1] === 'number' && (parent === 'enum' || parent === 'required')) p.pop();
  return `/${p.map(escape).join('/')}`;
}

/** Compares two documents (paths of YAML or JSON files). */
export function diffDocuments(oldPath: string, newPath: string): SpecDiff {
  const before = readDocument(oldPath);
  const after = readDocument(newPath);
  return diffParsed({ path: oldPath, doc: before }, { path: newPath, doc: after });
}

/** A change as the library gave it, with the effective schemas it was found in (to read an enum's values whole). */
interface Found {
  d: Diff;
  kind: SpecChangeKind;
  breaking: boolean;
}

export function diffParsed(a: { path: string; doc: Record<string, unknown> }, b: { path: string; doc: Record<string, unknown> }): SpecDiff {
  // The library compares the effective schemas (effective-schema.ts): allOf merged, $ref siblings applied,
  // oneOf/anyOf as the union of their alternatives; what that union hides, a request alternative removed, is found
  // on the merged documents.
  const mergedA = mergedDocument(a.doc);
  const mergedB = mergedDocument(b.doc);
  const before = foldAlternatives(mergedA);
  const after = foldAlternatives(mergedB);
  // When one of its rules throws, the library prints "Classification Rule error ..." and leaves that change
  // unclassified: the change is reported so (SpecChange.unclassified), and the raw line stays off the console.
  const printError = console.error;
  console.error = (...args: unknown[]) => {
    if (!String(args[0]).startsWith('Classification Rule error')) printError(...args);
  };
  let diffs: Diff[];
  try {
    ({ diffs } = apiCompare(before, after));
  } finally {
    console.error = printError;
  }
  const groups = new Map<string, Found[]>();
  for (const d of diffs) {
    if (d.type === 'annotation') continue; // descriptions, examples, summaries: no client breaks on them
    // A component's change is reported where operations use it (the library follows the $refs); security schemes are
    // used by name, so they are reported where they are.
    if (d.path[0] === 'components' && d.path[1] !== 'securitySchemes') continue;
    const kind = kindOf(d);
    // api-smart-diff calls the removal of an optional response member non-breaking (no client may count on it);
    // a client that reads it breaks all the same, so here it is breaking.
    const breaking = classify(d, d.type === 'breaking' || kind === 'removed-response-member');
    // An enum's changes are one change, judged on its values as a whole (enumChange); the rest fold by class.
    const key = kind === 'enum' ? `enum|${enumPointer(d.path)}` : `${breaking}|${kind}|${foldedPointer(d)}`;
    const group = groups.get(key);
    if (group) group.push({ d, kind, breaking });
    else groups.set(key, [{ d, kind, breaking }]);
  }
  const changes: SpecChange[] = [];
  for (const [key, group] of groups) {
    const first = group[0]!;
    const operation = operationOf(first.d.path);
    if (first.kind === 'enum') {
      changes.push(enumChange(key.slice('enum|'.length), group, before, after, operation));
      continue;
    }
    const unclassified = first.d.type === 'unclassified' && !first.breaking;
    const description = first.kind === 'required-member' ? requiredMembers(group) ?? describe(first.d, first.kind) : describe(first.d, first.kind);
    changes.push({ breaking: first.breaking, kind: first.kind, ...(operation ? { operation } : {}), pointer: key.slice(key.indexOf('|', key.indexOf('|') + 1) + 1), description, count: group.length, ...(unclassified ? { unclassified: true } : {}) });
  }
  changes.push(...removedRequestAlternatives(mergedA, mergedB));
  const order = Object.keys(KIND_TITLES) as SpecChangeKind[];
  changes.sort((x, y) => Number(y.breaking) - Number(x.breaking) || order.indexOf(x.kind) - order.indexOf(y.kind) || (x.pointer < y.pointer ? -1 : 1));
  const byKind: SpecDiff['by_kind'] = {};
  for (const c of changes) {
    const k = (byKind[c.kind] ??= { breaking: 0, non_breaking: 0 });
    if (c.breaking) k.breaking++;
    else k.non_breaking++;
  }
  return {
    old: describeDoc(a.path, a.doc),
    new: describeDoc(b.path, b.doc),
    breaking: changes.filter((c) => c.breaking).length,
    non_breaking: changes.filter((c) => !c.breaking).length,
    unclassified: changes.filter((c) => c.unclassified).length,
    by_kind: byKind,
    changes,
  };
}

/**
 * Two of the library's calls turned the right way round, measured on vendor pairs (README, For regression after a
 * release): `nullable` is judged as if every schema were a request's in both places (a response member that can no
 * longer be null was called breaking, a request member that now may be null too), and a response's
 * `additionalProperties` taken off or opened up was called breaking, where an added response member is not.
 */
function classify(d: Diff, breaking: boolean): boolean {
  const last = d.path[d.path.length - 1];
  const inResponse = d.path[0] === 'paths' && d.path[3] === 'responses';
  if (last === 'nullable') {
    const widened = d.action === 'remove' ? d.before === false : d.after === true;
    return inResponse ? widened : !widened;
  }
  if (inResponse && last === 'additionalProperties' && (d.action === 'remove' || d.after === true)) return false;
  return breaking;
}

/** The path of an enum: up to its `enum` key (a value's index, or the key's own change, both end there). */
function enumPointer(path: readonly (string | number)[]): string {
  const at = path.lastIndexOf('enum');
  return `/${(at >= 0 ? path.slice(0, at + 1) : path).map(escape).join('/')}`;
}

/** The value at `pointer` in `root`, following the $refs met on the way (the library's paths run through them). */
function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    for (let hops = 0; node && typeof node === 'object' && typeof (node as { $ref?: unknown }).$ref === 'string' && hops < 32; hops++) node = resolvePointer(root, (node as { $ref: string }).$ref);
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

const quoted = (values: unknown[]) => values.map((v) => JSON.stringify(v)).join(', ');

/**
 * One enum's change, worded one way wherever the enum is used: the values removed and added, compared as sets (the
 * library reports them index by index, as replaced, added or removed values, in three wordings). A value removed
 * breaks a request (a client may send it); a value added breaks a response (a client's exhaustive switch); an enum
 * put on a request member narrows it (breaking), taken off a response member widens it (breaking).
 */
function enumChange(pointer: string, group: Found[], before: unknown, after: unknown, operation: string | undefined): SpecChange {
  const path = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const inResponse = path[3] === 'responses';
  const was = valueAt(before, pointer);
  const is = valueAt(after, pointer);
  const oldValues = Array.isArray(was) ? was : undefined;
  const newValues = Array.isArray(is) ? is : undefined;
  const key = (v: unknown) => JSON.stringify(v);
  const removed = oldValues && newValues ? oldValues.filter((v) => !newValues.some((w) => key(w) === key(v))) : [];
  const added = oldValues && newValues ? newValues.filter((v) => !oldValues.some((w) => key(w) === key(v))) : [];
  const what = `enum of ${memberName(path)} in ${placeOf(path)}`;
  let text: string;
  let breaking: boolean;
  if (!oldValues && newValues) {
    text = `[Added] ${what}: only ${quoted(newValues)}`;
    breaking = !inResponse;
  } else if (oldValues && !newValues) {
    text = `[Removed] ${what}: any value now, was ${quoted(oldValues)}`;
    breaking = inResponse;
  } else {
    text = `[Changed] ${what}: ${[removed.length ? `removed ${quoted(removed)}` : '', added.length ? `added ${quoted(added)}` : ''].filter(Boolean).join('; ') || 'values reordered'}`;
    breaking = inResponse ? added.length > 0 : removed.length > 0;
  }
  const unclassified = group.every((f) => f.d.type === 'unclassified');
  return { breaking, kind: 'enum', ...(operation ? { operation } : {}), pointer, description: text, count: removed.length + added.length || group.length, ...(unclassified && !breaking ? { unclassified: true } : {}) };
}

/** "[Added] required members `a`, `b` of `x` in the request body (…)": every member a folded `required` change names, not the first alone. */
function requiredMembers(group: Found[]): string | undefined {
  const names = [...new Set(group.flatMap(({ d }) => (Array.isArray(d.after) ? d.after : [d.after]).filter((n): n is string => typeof n === 'string')))];
  if (!names.length) return undefined;
  const path = group[0]!.d.path;
  const of = memberName(path.slice(0, path.lastIndexOf('required')));
  return `[Added] required member${names.length > 1 ? 's' : ''} ${names.map((n) => `\`${n}\``).join(', ')}${of === 'the value' ? '' : ` of ${of}`} in ${placeOf(path)}`;
}

/** "`data[].status`" from a path inside a schema; "the value" for the schema itself. */
function memberName(path: readonly (string | number)[]): string {
  const at = path.indexOf('schema');
  const parts: string[] = [];
  for (let i = at + 1; at >= 0 && i < path.length; i++) {
    const p = path[i];
    if (p === 'properties' && i + 1 < path.length) parts.push(`.${path[++i]}`);
    else if (p === 'items') parts.push('[]');
    else if (p === 'additionalProperties') parts.push('{*}');
  }
  const name = parts.join('').replace(/^\./, '');
  return name ? `\`${name}\`` : 'the value';
}

/** "the request body (application/json)", "response 200 (application/json)", "parameter 3", "response 200 header `X`". */
function placeOf(path: readonly (string | number)[]): string {
  if (path[3] === 'requestBody') return `the request body (${path[5]})`;
  if (path[3] === 'responses') return path[5] === 'headers' ? `response ${path[4]} header \`${path[6]}\`` : `response ${path[4]} (${path[6]})`;
  if (path[3] === 'parameters' || path[2] === 'parameters') return 'a parameter';
  return path.slice(0, 4).join(' ');
}

function describe(d: Diff, kind: SpecChangeKind): string {
  if (kind === 'removed-response-member') return `[Removed] response member ${memberName(d.path)} from ${placeOf(d.path)}: no alternative of the new response has it`;
  const text = d.description?.trim();
  if (text && !/^\s*in (Response|Request)/.test(text)) return text;
  const what = kind === 'other' ? d.path[d.path.length - 1] : KIND_SINGULAR[kind];
  return `[${d.action}] ${what}${text ? ` ${text}` : ''}`;
}
