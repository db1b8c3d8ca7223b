/**
 * Bounds on the value generator's work (json-schema-faker), so that no schema of a document can keep a worker busy
 * without end. Two causes were seen, each bounded here by design:
 * - a schema that names itself for the same value through allOf/oneOf/anyOf (OpenAPI's discriminator pattern
 *   written both ways: the parent's oneOf lists a child whose allOf names the parent, Brex's
 *   CounterPartyIncomingTransfer). The generator follows such a reference without going a level deeper, so its
 *   depth bound never comes: it walked forever, its stack growing until the worker died. Each such cycle is cut in
 *   the generator's copy of the schemas (`cutSelfReferences`);
 * - a schema whose value is merely enormous (arrays in arrays, wide objects many levels down): the generator counts
 *   every value it makes against a budget (`valueBudget`), and past it gives up with where it was.
 */
import { isObj, type JsonObject } from '../json.js';

/** The keywords whose schemas apply to the same value as the schema holding them (the others describe its parts). */
const SAME_VALUE_LISTS = ['allOf', 'oneOf', 'anyOf'] as const;
const SAME_VALUE_ONE = ['not', 'if', 'then', 'else'] as const;
/** What a cut reference keeps of the schema it named: everything but the keywords that apply it to the same value again. */
const COMPOSITION = new Set<string>([...SAME_VALUE_LISTS, ...SAME_VALUE_ONE, 'discriminator', '$ref']);

/** The component a local reference names (`#/$defs/Money` -> Money), if it is one. */
const defName = (ref: unknown): string | undefined => (typeof ref === 'string' && ref.startsWith('#/$defs/') ? ref.slice('#/$defs/'.length) : undefined);

/** Each reference node reached from `schema` without leaving its value (through $ref, allOf, oneOf, anyOf, not, if/then/else). */
function sameValueRefs(schema: unknown, visit: (node: JsonObject) => void): void {
  if (!isObj(schema)) return;
  if (defName(schema['$ref']) !== undefined) visit(schema);
  for (const k of SAME_VALUE_LISTS) if (Array.isArray(schema[k])) for (const s of schema[k]) sameValueRefs(s, visit);
  for (const k of SAME_VALUE_ONE) sameValueRefs(schema[k], visit);
}

/**
 * Cuts every reference that closes a cycle of components applying to one value, in place, in the generator's copy
 * of the document's schemas (`defs`, by name): the reference is replaced by what the named schema says of the value
 * itself (its type, members and bounds) without the compositions that lead back. Every such cycle is then walked
 * once. Returns each cycle cut, as the components it ran through ([A, B, A]), for the messages of the values
 * that cannot be proven valid because of it (a validator follows the same cycle until its stack runs out).
 */
export function cutSelfReferences(defs: JsonObject): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (name: string): void => {
    state.set(name, 'open');
    path.push(name);
    sameValueRefs(defs[name], (node) => {
      const target = defName(node['$ref'])!;
      if (!isObj(defs[target])) return;
      if (state.get(target) === 'open') {
        cycles.push([...path.slice(path.indexOf(target)), target]);
        delete node['$ref'];
        for (const [k, v] of Object.entries(defs[target] as JsonObject)) if (!COMPOSITION.has(k) && !(k in node)) node[k] = v;
      } else if (!state.has(target)) visit(target);
    });
    path.pop();
    state.set(name, 'done');
  };
  for (const name of Object.keys(defs)) if (!state.has(name)) visit(name);
  return cycles;
}

/** The components a schema names, directly or through others (every reference, to the value or to its parts). */
export function namedComponents(schema: unknown, defs: JsonObject): Set<string> {
  const seen = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!isObj(v)) return;
    const name = defName(v['$ref']);
    if (name !== undefined && !seen.has(name)) {
      seen.add(name);
      walk(defs[name]);
    }
    for (const [k, x] of Object.entries(v)) if (k !== '$defs') walk(x);
  };
  walk(schema);
  return seen;
}

/** How many values (each member, item and scalar) one making of a value may make before it gives up. */
export const VALUE_BUDGET = 20_000;

/** The generator went past its budget: where in the value it was then (a JSON pointer). */
export class GenerationBudgetExceeded extends Error {
  override readonly name = 'GenerationBudgetExceeded';
  constructor(
    readonly at: string,
    limit: number,
  ) {
    super(`making a value took more than ${limit} values (it was at ${at || '(the value)'}); the schema is too large for the suite to fill`);
  }
}

/**
 * The generator's `outputTransform`, counting what one making makes and stopping it past the budget. Once past it,
 * every further value throws too, so the generator's own retries (another oneOf branch) end at their first value.
 */
export function valueBudget(limit = VALUE_BUDGET): (value: unknown, schema: unknown, at: string) => unknown {
  let made = 0;
  return (value, _schema, at) => {
    if (++made > limit) throw new GenerationBudgetExceeded(at, limit);
    return value;
  };
}
