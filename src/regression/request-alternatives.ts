/**
 * Alternatives of a request that the new document no longer accepts: a `oneOf`/`anyOf` of a request body that lost
 * an alternative, or a discriminator value that can no longer be sent. The union effective-schema.ts makes for the
 * diff cannot say this (a union that lost an alternative may still allow every member), so both merged documents
 * (allOf merged, combinators kept) are walked side by side here.
 */
import type { SpecChange } from '../results/regression-model.js';
import { resolvePointer, type Document, type Schema } from './effective-schema.js';

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const escape = (s: string | number) => String(s).replace(/~/g, '~0').replace(/\//g, '~1');
/** Deep enough for the bodies vendors write; a cycle ends earlier, by its $ref. */
const MAX_DEPTH = 8;

/** "/v1/items/{id}" and "/v1/items/{item_id}" are the same path (api-smart-diff maps them so too). */
const pathKey = (p: string) => p.replace(/\{[^}]*\}/g, '*');

export function removedRequestAlternatives(before: Document, after: Document): SpecChange[] {
  const changes: SpecChange[] = [];
  const oldPaths = isObject(before['paths']) ? before['paths'] : {};
  const newPaths = new Map(Object.entries(isObject(after['paths']) ? after['paths'] : {}).map(([p, v]) => [pathKey(p), v]));
  for (const [path, oldItem] of Object.entries(oldPaths)) {
    const newItem = newPaths.get(pathKey(path));
    if (!isObject(oldItem) || !isObject(newItem)) continue;
    for (const method of METHODS) {
      const o = deref(before, (oldItem[method] as Schema | undefined)?.['requestBody']);
      const n = deref(after, (newItem[method] as Schema | undefined)?.['requestBody']);
      const oc = o?.['content'];
      const nc = n?.['content'];
      if (!isObject(oc) || !isObject(nc)) continue;
      for (const [media, oMedia] of Object.entries(oc)) {
        const nMedia = nc[media];
        if (!isObject(oMedia) || !isObject(nMedia)) continue;
        const walk = new Walk(before, after, `${method.toUpperCase()} ${path}`, changes);
        walk.compare(oMedia['schema'], nMedia['schema'], ['paths', path, method, 'requestBody', 'content', media, 'schema'], [], 0, new Set());
      }
    }
  }
  return changes;
}

/** Follows $refs (a chain of them) to the object they name; undefined for anything else. */
function deref(root: Document, node: unknown, seen = new Set<string>()): Schema | undefined {
  if (!isObject(node)) return undefined;
  const ref = node['$ref'];
  if (typeof ref !== 'string') return node;
  if (seen.has(ref)) return undefined;
  seen.add(ref);
  return deref(root, resolvePointer(root, ref), seen);
}

const refName = (s: unknown) => (isObject(s) && typeof s['$ref'] === 'string' ? s['$ref'].split('/').pop() : undefined);

class Walk {
  constructor(
    private readonly before: Document,
    private readonly after: Document,
    private readonly operation: string,
    private readonly changes: SpecChange[],
  ) {}

  compare(oldNode: unknown, newNode: unknown, pointer: (string | number)[], member: string[], depth: number, seen: Set<string>): void {
    if (depth > MAX_DEPTH) return;
    const ref = isObject(oldNode) && typeof oldNode['$ref'] === 'string' ? oldNode['$ref'] : undefined;
    if (ref) {
      if (seen.has(ref)) return;
      seen = new Set(seen).add(ref);
    }
    const o = deref(this.before, oldNode);
    const n = deref(this.after, newNode);
    if (!o || !n) return;
    const oldAlts = alternativesOf(o);
    if (oldAlts) this.alternatives(o, n, oldAlts, pointer, member);
    // Members are compared where both sides have them: under a oneOf, member by member of each kept alternative is
    // more than a release review reads, so the walk goes on only through plain objects and arrays.
    const op = o['properties'];
    const np = n['properties'];
    if (isObject(op) && isObject(np)) {
      for (const [name, schema] of Object.entries(op)) if (name in np) this.compare(schema, np[name], [...pointer, 'properties', name], [...member, name], depth + 1, seen);
    }
    if ('items' in o && 'items' in n) this.compare(o['items'], n['items'], [...pointer, 'items'], [...member.slice(0, -1), `${member[member.length - 1] ?? ''}[]`], depth + 1, seen);
  }

  private alternatives(o: Schema, n: Schema, oldAlts: unknown[], pointer: (string | number)[], member: string[]): void {
    const newAlts = alternativesOf(n) ?? [n];
    const where = member.length ? `request body member \`${member.join('.')}\`` : 'the request body';
    const property = isObject(o['discriminator']) && typeof o['discriminator']['propertyName'] === 'string' ? o['discriminator']['propertyName'] : undefined;
    const at = `/${[...pointer, o['oneOf'] ? 'oneOf' : 'anyOf'].map(escape).join('/')}`;
    const newValues = property ? new Set(newAlts.flatMap((b) => discriminatorValues(this.after, n, b, property))) : new Set<string>();
    const reported = new Set<string>();
    oldAlts.forEach((a, i) => {
      // A discriminated alternative is known by its values: each one no new alternative has can no longer be sent.
      const values = property && newValues.size ? discriminatorValues(this.before, o, a, property) : [];
      if (values.length) {
        for (const value of values) {
          if (newValues.has(value) || reported.has(value)) continue;
          reported.add(value);
          this.add(at, `[Removed] alternative: \`${property}\` "${value}" can no longer be sent in ${where} (no alternative of the new document has it)`);
        }
        return;
      }
      const name = refName(a);
      if (name && newAlts.some((b) => refName(b) === name)) return;
      const ea = deref(this.before, a);
      if (!ea || newAlts.some((b) => correspond(ea, deref(this.after, b)))) return;
      const label = name ?? (typeof ea['title'] === 'string' ? ea['title'] : `#${i + 1}`);
      this.add(at, `[Removed] alternative ${label} of ${where}: a request shaped as it is accepted by no alternative of the new document`);
    });
  }

  private add(pointer: string, description: string): void {
    this.changes.push({ breaking: true, kind: 'removed-alternative', operation: this.operation, pointer, description, count: 1 });
  }
}

function alternativesOf(s: Schema): unknown[] | undefined {
  const alts = s['oneOf'] ?? s['anyOf'];
  return Array.isArray(alts) && alts.length ? alts : undefined;
}

/** The values of the discriminator `property` that select alternative `alt`: its mapping keys, its own enum or const, or its component's name. */
function discriminatorValues(root: Document, parent: Schema, alt: unknown, property: string): string[] {
  const ref = isObject(alt) && typeof alt['$ref'] === 'string' ? alt['$ref'] : undefined;
  const mapping = isObject(parent['discriminator']) && isObject(parent['discriminator']['mapping']) ? parent['discriminator']['mapping'] : {};
  if (ref) {
    const keys = Object.entries(mapping).filter(([, to]) => to === ref || (typeof to === 'string' && !to.includes('/') && ref.endsWith(`/${to}`))).map(([k]) => k);
    if (keys.length) return keys;
  }
  const s = deref(root, alt);
  const prop = deref(root, isObject(s?.['properties']) ? s['properties'][property] : undefined);
  if (prop) {
    if (Array.isArray(prop['enum'])) return prop['enum'].map(String);
    if ('const' in prop) return [String(prop['const'])];
  }
  return ref ? [ref.split('/').pop()!] : [];
}

function typeSet(s: Schema): Set<string> | undefined {
  const t = s['type'];
  if (Array.isArray(t)) return new Set(t.map(String));
  if (typeof t === 'string') return new Set(s['nullable'] === true ? [t, 'null'] : [t]);
  if (isObject(s['properties'])) return new Set(['object']);
  return undefined;
}

/**
 * Whether new alternative `b` is a later version of old alternative `a`: of a type `a` had, and, for an object,
 * holding the members `a` required (or, when it required none, one of its members). What changed inside it (a member
 * newly required, an enum narrowed) is the union's diff to report; here only an alternative with no successor counts.
 */
function correspond(a: Schema, b: Schema | undefined): boolean {
  if (!b) return false;
  const at = typeSet(a);
  const bt = typeSet(b);
  if (at && bt && ![...at].some((t) => bt.has(t) || (t === 'integer' && bt.has('number')))) return false;
  const ap = Object.keys(isObject(a['properties']) ? a['properties'] : {});
  if (!ap.length) return true;
  const bp = new Set(Object.keys(isObject(b['properties']) ? b['properties'] : {}));
  const required = Array.isArray(a['required']) ? a['required'].map(String) : [];
  return required.length ? required.every((r) => bp.has(r)) : ap.some((p) => bp.has(p));
}
