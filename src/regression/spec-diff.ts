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
import { KIND_TITLES, type SpecChange, type SpecChangeKind, type SpecDiff } from '../results/regression-model.js';

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

export function diffParsed(a: { path: string; doc: Record<string, unknown> }, b: { path: string; doc: Record<string, unknown> }): SpecDiff {
  // When one of its rules throws, the library prints "Classification Rule error ..." and leaves that change
  // unclassified: the change is reported so (SpecChange.unclassified), and the raw line stays off the console.
  const printError = console.error;
  console.error = (...args: unknown[]) => {
    if (!String(args[0]).startsWith('Classification Rule error')) printError(...args);
  };
  let diffs: Diff[];
  try {
    ({ diffs } = apiCompare(a.doc, b.doc));
  } finally {
    console.error = printError;
  }
  const folded = new Map<string, SpecChange>();
  for (const d of diffs) {
    if (d.type === 'annotation') continue; // descriptions, examples, summaries: no client breaks on them
    // A component's change is reported where operations use it (the library follows the $refs); security schemes are
    // used by name, so they are reported where they are.
    if (d.path[0] === 'components' && d.path[1] !== 'securitySchemes') continue;
    const kind = kindOf(d);
    // api-smart-diff calls the removal of an optional response member non-breaking (no client may count on it);
    // a client that reads it breaks all the same, so here it is breaking.
    const breaking = d.type === 'breaking' || kind === 'removed-response-member';
    const pointer = foldedPointer(d);
    const key = `${breaking}|${kind}|${pointer}`;
    const had = folded.get(key);
    if (had) {
      had.count++;
      continue;
    }
    const operation = operationOf(d.path);
    folded.set(key, { breaking, kind, ...(operation ? { operation } : {}), pointer, description: describe(d, kind), count: 1, ...(d.type === 'unclassified' && !breaking ? { unclassified: true } : {}) });
  }
  const order = Object.keys(KIND_TITLES) as SpecChangeKind[];
  const changes = [...folded.values()].sort((x, y) => Number(y.breaking) - Number(x.breaking) || order.indexOf(x.kind) - order.indexOf(y.kind) || (x.pointer < y.pointer ? -1 : 1));
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

function describe(d: Diff, kind: SpecChangeKind): string {
  const text = d.description?.trim();
  if (text && !/^\s*in Response/.test(text)) return text;
  const what = kind === 'other' ? d.path[d.path.length - 1] : KIND_TITLES[kind].replace(/s$/, '');
  return `[${d.action}] ${what}${text ? ` ${text}` : ''}`;
}
