/**
 * Values made from a document's schemas by json-schema-faker (formats, patterns, enums, bounds, composition; its
 * own seeded generator), and proven valid for the schema before anything sends them. What OpenAPI adds to JSON
 * Schema is applied first: readOnly members are left out of what a client sends, and a oneOf/anyOf with a
 * discriminator sets the discriminating member of the branch it takes.
 */
import { describeErrors, type SchemaProblem } from '../catalogue/json-schema.js';
import { runsLinear, UnsupportedPattern } from '../catalogue/linear-pattern.js';
import { mapSubschemas } from '../catalogue/as-json-schema.js';
import { bundleRef, type SpecDocument } from '../catalogue/openapi.js';
import { SCHEMA_DEPTH } from '../catalogue/schema-walker.js';
import { isObj, schemaText, type JsonObject } from '../json.js';
import { cutSelfReferences, GenerationBudgetExceeded, namedComponents, valueBudget } from './generation-bounds.js';

type Jsf = typeof import('json-schema-faker');
let jsf: Jsf | undefined;

/**
 * Loads the generator (an ES module: only import() reaches it) where a run may need it: a worker on a vendor's
 * document, validRequest. A run against the reference profile, every request from a driver, never loads it.
 */
export async function loadGenerator(): Promise<void> {
  jsf ??= await import('json-schema-faker');
}

function load(): Jsf {
  if (!jsf) throw new Error('the value generator is not loaded: await loadGenerator() before making values');
  return jsf;
}

const COMPONENT = /^(urn:fsapi:spec#\/\$defs\/|#\/components\/schemas\/)/;

/**
 * The schema with every reference outside the component schemas replaced by what it names
 * (`#/components/parameters/companyId/schema`): the validators and the generator resolve component schemas only.
 */
export function inlineForeignRefs(spec: Pick<SpecDocument, 'schemaAt'>, v: unknown, depth = 0): unknown {
  if (Array.isArray(v)) return v.map((x) => inlineForeignRefs(spec, x, depth));
  if (!isObj(v)) return v;
  const ref = v['$ref'];
  if (typeof ref === 'string' && !COMPONENT.test(ref) && depth < SCHEMA_DEPTH) {
    const { $ref: _named, ...siblings } = v;
    const target = spec.schemaAt(ref);
    return isObj(target) ? { ...(inlineForeignRefs(spec, target, depth + 1) as JsonObject), ...siblings } : siblings;
  }
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) out[k] = k === '$ref' && typeof x === 'string' ? bundleRef(x) : inlineForeignRefs(spec, x, depth);
  return out;
}

/** A reference as the generator resolves it: every component under the schema's own `$defs`. */
const localRef = (ref: string): string => ref.replace(/^urn:fsapi:spec#\/\$defs\//, '#/$defs/').replace(/^#\/components\/schemas\//, '#/$defs/');

/**
 * A schema as a client fills it: references local, readOnly members dropped (and no longer required), and each
 * discriminated branch pinned to its discriminator value.
 */
function forClient(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(forClient);
  if (!isObj(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) out[k] = k === '$ref' && typeof x === 'string' ? localRef(x) : forClient(x);
  // The generator builds strings from a pattern by its own means, a repeat count as large as written: one the
  // validator cannot run (`{100000000}`, a lookahead) makes nothing provable, so it is not given to the generator.
  if (typeof out['pattern'] === 'string' && !runsLinear(out['pattern'])) delete out['pattern'];
  if (isObj(out['properties'])) {
    const props = out['properties'];
    const readOnly = Object.keys(props).filter((k) => isObj(props[k]) && props[k]['readOnly'] === true);
    if (readOnly.length) {
      out['properties'] = Object.fromEntries(Object.entries(props).filter(([k]) => !readOnly.includes(k)));
      if (Array.isArray(out['required'])) out['required'] = out['required'].filter((r) => !readOnly.includes(String(r)));
    }
  }
  const d = out['discriminator'];
  if (isObj(d) && typeof d['propertyName'] === 'string') {
    const prop = d['propertyName'];
    const mapping = isObj(d['mapping']) ? d['mapping'] : {};
    for (const key of ['oneOf', 'anyOf'] as const) {
      if (!Array.isArray(out[key])) continue;
      out[key] = (out[key] as unknown[]).map((branch) => {
        const ref = isObj(branch) && typeof branch['$ref'] === 'string' ? branch['$ref'] : undefined;
        if (!ref) return branch;
        const value = Object.entries(mapping).find(([, target]) => typeof target === 'string' && localRef(target) === ref)?.[0] ?? ref.split('/').at(-1)!;
        return { allOf: [branch, { type: 'object', required: [prop], properties: { [prop]: { const: value } } }] };
      });
    }
  }
  return out;
}

/**
 * The document's component schemas in the generator's form, made once per document, each cycle of components that
 * apply to one value cut (generation-bounds.ts), and the cycles cut.
 */
const definitions = new WeakMap<SpecDocument, { defs: JsonObject; cycles: string[][] }>();
function defsOf(spec: SpecDocument): { defs: JsonObject; cycles: string[][] } {
  let made = definitions.get(spec);
  if (!made) {
    const components = isObj(spec.raw['components']) && isObj(spec.raw['components']['schemas']) ? spec.raw['components']['schemas'] : {};
    const defs = Object.fromEntries(Object.keys(components).map((name) => [name, forClient(inlineForeignRefs(spec, spec.schemaAt(`#/components/schemas/${name}`) ?? {}))]));
    definitions.set(spec, (made = { defs, cycles: cutSelfReferences(defs) }));
  }
  return made;
}

/** Names of the members marked readOnly in the schema or any component (what a client leaves out). */
const readOnlyByDoc = new WeakMap<SpecDocument, Set<string>>();
function readOnlyNames(spec: SpecDocument, schema: unknown): Set<string> {
  let names = readOnlyByDoc.get(spec);
  if (!names) {
    const found = new Set<string>();
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) return v.forEach(walk);
      if (!isObj(v)) return;
      if (isObj(v['properties'])) for (const [k, x] of Object.entries(v['properties'])) if (isObj(x) && x['readOnly'] === true) found.add(k);
      Object.values(v).forEach(walk);
    };
    walk(spec.raw['components']);
    readOnlyByDoc.set(spec, (names = found));
  }
  if (!isObj(schema)) return names;
  const local = new Set(names);
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!isObj(v)) return;
    if (isObj(v['properties'])) for (const [k, x] of Object.entries(v['properties'])) if (isObj(x) && x['readOnly'] === true) local.add(k);
    for (const [k, x] of Object.entries(v)) if (k !== '$defs') walk(x);
  };
  walk(schema);
  return local;
}

export type Generated = { ok: true; value: unknown } | { ok: false; problems: SchemaProblem[] };

/** Tries of the whole schema: its own examples and defaults first, then required members only under other seeds. */
const ATTEMPTS = 5;
/** At most this many branches of a top-level oneOf/anyOf are tried one by one, each with every member filled. */
const BRANCHES = 8;
/**
 * Strings are made at most this long first: a schema's own bound can be huge (Adyen's required `WWW-Authenticate`
 * header allows 20000), and a header that long is refused by the server (Node answers 431 beyond 16 KiB) before
 * the API sees it. A schema whose minLength is above it gets its own bounds in the tries after.
 */
const SHORT_STRINGS = 64;
/**
 * Arrays likewise: the generator picks a length up to the schema's maxItems, and Adyen's `transferLimitIds` allows
 * 2147483647, which it set out to make (the making never ended). The first tries make at most a few items, the
 * later ones at most ARRAY_CAP: a schema that needs more items than that gets no value, and its check says so.
 */
const SHORT_ARRAYS = 3;
const ARRAY_CAP = 100;

/**
 * A plain string of a large maxLength, asked of the generator at the short tries' length outright. The generator
 * draws a length up to the schema's own maxLength, makes that many characters (each picked from a fresh copy of its
 * alphabet) and only then cuts them to its `maxLength` option: each of Stripe's 3,740 `maxLength: 5000` members cost
 * about 0.8 ms, some 1.3 s of a worker's CPU in a 200-operation run. Past LONG_STRINGS such a string came out
 * SHORT_STRINGS long at least 87% of the time (all but always at 5000), so that is the length asked. Strings with
 * an enum, const, format or pattern are made by other means, and left as they are.
 */
const LONG_STRINGS = 256;

function withShortStrings(v: unknown): unknown {
  if (!isObj(v)) return v;
  const out: JsonObject = {};
  // Only where schemas are: a member named "type" stays a member, an example stays as written.
  for (const [k, x] of Object.entries(v)) out[k] = mapSubschemas(k, x, withShortStrings);
  const plain = out['type'] === 'string' && !['enum', 'const', 'format', 'pattern'].some((k) => k in out);
  const min = typeof out['minLength'] === 'number' ? out['minLength'] : 0;
  if (plain && typeof out['maxLength'] === 'number' && out['maxLength'] > LONG_STRINGS && min <= SHORT_STRINGS) {
    out['minLength'] = out['maxLength'] = SHORT_STRINGS;
  }
  return out;
}

/** How deep the generator goes: its usual depth, and the last try's. */
const DEPTH = 8;
const DEEP = 16;
/**
 * Formats the validator knows (ajv-formats) and the generator does not: it makes a random word of them, which no
 * validation passes (Plaid's `webhook: {format: url}` left eight operations without a body; Xero's attachments, an
 * octet-stream of `format: byte`, base64, six).
 */
const FORMATS: Record<string, () => string> = { url: () => 'https://example.com/fsapi', byte: () => Buffer.from('fsapi-conformance').toString('base64') };

/**
 * The schema's top-level oneOf/anyOf branches, each as a schema of its own (with the members beside the oneOf):
 * the generator makes `{}` of a oneOf whose branches differ only by optional members, which matches them all.
 */
function branchesOf(prepared: JsonObject): JsonObject[] {
  const key = Array.isArray(prepared['oneOf']) ? 'oneOf' : Array.isArray(prepared['anyOf']) ? 'anyOf' : undefined;
  if (!key) return [];
  const { [key]: branches, $defs, ...rest } = prepared;
  return (branches as unknown[]).slice(0, BRANCHES).map((b) => ({ allOf: [rest, b], $defs }));
}

/**
 * A value valid for a schema of the document (a parameter's, a request body's), seeded for repeatable runs.
 * `adjust` lets the caller mark what it makes (a run label in e-mail members) before it is validated.
 */
export interface GenerateOptions {
  /** How likely each optional member is made (0: required members only, the default; 1: every one). */
  optionals?: number;
}

export function generateValid(spec: SpecDocument, schema: unknown, seed: number, adjust: (v: unknown) => unknown = (v) => v, opts: GenerateOptions = {}): Generated {
  if (schema === undefined || schema === true) return { ok: true, value: 'fsapi' };
  const making = makingOf(spec, schema, seed, opts);
  if ('problems' in making) return { ok: false, problems: making.problems };
  let problems: SchemaProblem[] = [{ pointer: '', message: 'no value could be generated' }];
  for (let i = 0; i < making.tries.length; i++) {
    let value: unknown;
    try {
      value = adjust(structuredClone(making.made(i)));
    } catch (e) {
      problems = [{ pointer: '', message: `the generator could not make a value: ${(e as Error).message}` }];
      // The tries after make as much or more: one past the budget is the end of the making.
      if (e instanceof GenerationBudgetExceeded) break;
      continue;
    }
    let valid: boolean;
    try {
      valid = making.validate(value);
    } catch (e) {
      // A pattern the linear-time engine cannot run: no value is proven valid, and the pattern is what to fix.
      if (e instanceof UnsupportedPattern) return { ok: false, problems: [{ pointer: '', message: e.message }] };
      // A schema that names itself for one value (a cycle through allOf/oneOf) sends the validator round it until
      // its stack runs out, for every value: nothing made can be proven valid, and the cycle is what to fix.
      const { defs, cycles } = defsOf(spec);
      const named = namedComponents(making.prepared, defs);
      const own = cycles.filter((c) => c.some((n) => named.has(n))).map((c) => c.map((n) => `#/components/schemas/${n}`).join(' -> '));
      return { ok: false, problems: [{ pointer: '', message: `its schema cannot be checked (${(e as Error).message})${own.length ? `: its schemas name themselves for one value through allOf/oneOf/anyOf (${own.slice(0, 2).join('; ')})` : ''}` }] };
    }
    if (valid) return { ok: true, value };
    // A readOnly member is required of the server's answers only: its absence from a request is no problem.
    problems = describeErrors(making.validate.errors).filter((p) => !(p.message === 'is required' && readOnlyNames(spec, making.prepared).has(p.pointer.split('/').at(-1)!)));
    if (problems.length === 0) return { ok: true, value };
  }
  return { ok: false, problems };
}

/** The tries for one schema, seed and options, and what the generator made of each (made on first use, then kept). */
interface Making {
  prepared: unknown;
  validate: ReturnType<SpecDocument['validator']>;
  tries: { schema: unknown; options: Record<string, unknown> }[];
  /** The value made by try `i`; throws what the generator threw. */
  made: (i: number) => unknown;
}

/**
 * The generator is seeded, so a schema, a seed and options always make the same values: each is made once per
 * document. Every check of an operation asks for the same body, and one making walks the document's whole `$defs`:
 * on Plaid's document, making them anew blocked a worker for 11.7 s, long enough for the target to drop the idle
 * connections the worker then sent on. Keyed by content, as the document's validators are.
 */
const makings = new WeakMap<SpecDocument, Map<string, Making | { problems: SchemaProblem[] }>>();

function makingOf(spec: SpecDocument, schema: unknown, seed: number, opts: GenerateOptions): Making | { problems: SchemaProblem[] } {
  const byKey = makings.get(spec) ?? makings.set(spec, new Map()).get(spec)!;
  const text = schemaText(schema);
  const key = `${seed}:${opts.optionals ?? 0}:${text}`;
  let making = byKey.get(key);
  if (!making) {
    const schemaFor = preparedOf(spec, schema, text);
    byKey.set(key, (making = 'problems' in schemaFor ? schemaFor : newMaking(schemaFor, seed, opts)));
  }
  return making;
}

/** A schema as the generator is given it (`short`: for the tries of short strings), and its validator. */
type Prepared = Pick<Making, 'prepared' | 'validate'> & { short: unknown };

/**
 * Each schema prepared once per document, whatever the seed: the exploration makes values of one member's schema
 * under many seeds. Keyed by content, as the makings are.
 */
const preparations = new WeakMap<SpecDocument, Map<string, Prepared | { problems: SchemaProblem[] }>>();

function preparedOf(spec: SpecDocument, schema: unknown, text: string): Prepared | { problems: SchemaProblem[] } {
  const byText = preparations.get(spec) ?? preparations.set(spec, new Map()).get(spec)!;
  let prepared = byText.get(text);
  if (!prepared) byText.set(text, (prepared = prepare(spec, schema)));
  return prepared;
}

function prepare(spec: SpecDocument, schema: unknown): Prepared | { problems: SchemaProblem[] } {
  const own = inlineForeignRefs(spec, schema) as JsonObject;
  let validate: ReturnType<SpecDocument['validator']>;
  try {
    validate = spec.validator(own);
  } catch (e) {
    return { problems: [{ pointer: '', message: `the schema cannot be compiled (${(e as Error).message}), so no value can be proven valid` }] };
  }
  if (!isObj(own)) return { prepared: own, short: own, validate };
  const client = forClient(own) as JsonObject;
  const prepared = { ...client, $defs: reachableDefs(client, defsOf(spec).defs) };
  return { prepared, short: withShortStrings(prepared), validate };
}

/**
 * The components a schema reaches, for its `$defs`: the generator walks every member of `$defs` at each making,
 * whatever the schema names, so with all of Stripe's 561 a one-member value cost 2.3x the CPU. The values made are
 * the same (Stripe's, Plaid's and the reference document's, two seeds each, compared whole).
 */
function reachableDefs(schema: JsonObject, defs: JsonObject): JsonObject {
  const reached: JsonObject = {};
  for (const name of namedComponents(schema, defs)) if (name in defs) reached[name] = defs[name];
  return reached;
}

function newMaking({ prepared, short, validate }: Prepared, seed: number, opts: GenerateOptions): Making {
  const whole = (schema: unknown, extra: Record<string, unknown>) =>
    Array.from({ length: ATTEMPTS }, (_, i) => ({ schema, options: { seed: seed + i, useExamplesValue: i === 0, useDefaultValue: i === 0, optionalsProbability: opts.optionals ?? 0, ...extra } }));
  const tries: Making['tries'] = [
    ...whole(short, { maxLength: SHORT_STRINGS, maxItems: SHORT_ARRAYS }),
    ...(isObj(short) ? branchesOf(short) : []).map((b, i) => ({ schema: b, options: { seed: seed + i, alwaysFakeOptionals: true, maxLength: SHORT_STRINGS, maxItems: SHORT_ARRAYS } })),
    ...whole(prepared, { maxItems: ARRAY_CAP }),
    // Past the generator's usual depth a required member is made null (Plaid's consent: constraints, periodic
    // amounts, an amount, its currency): one try deeper, one item per array so the depth costs little.
    { schema: short, options: { seed, maxDepth: DEEP, maxItems: 1, maxLength: SHORT_STRINGS, optionalsProbability: 0 } },
  ];
  const made: ({ value: unknown } | { error: unknown })[] = [];
  return {
    prepared,
    validate,
    tries,
    made: (i) => {
      if (!made[i]) {
        const t = tries[i]!;
        try {
          made[i] = { value: load().generateSync(t.schema as never, { maxDepth: DEPTH, formats: FORMATS, outputTransform: valueBudget(), ...t.options }) };
        } catch (error) {
          made[i] = { error };
        }
      }
      const m = made[i]!;
      if ('error' in m) throw m.error;
      return m.value;
    },
  };
}
