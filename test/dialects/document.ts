/**
 * The vendor's OpenAPI 3.1 document of a dialect, derived from the reference profile: its paths, operationIds,
 * tags, parameter names, schemas (member names, state values, envelope, list shape) and examples, so that it
 * describes exactly what the proxy serves. The reference's own x-fsapi-* annotations are dropped: a vendor's
 * document has none.
 */
import { isOffsetList } from './definitions.js';
import { deref, isObject, loadReferenceDocument, problemToVendor, responseToVendor, seedFixedEnums, translateScalar, translateValue, type Dialect, type JsonValue, type JsonObject, type RefOperation } from './dialect.js';

const clone = <T extends JsonValue>(v: T): T => structuredClone(v);

function stripAnnotations(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(stripAnnotations);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('x-fsapi')) out[k] = stripAnnotations(x);
  return out;
}

/** An id pattern with the vendor's prefix: ^cus_[A-Za-z0-9]{8,32}$ -> ^CUST-[A-Za-z0-9]{8,32}$. */
function idPattern(d: Dialect, pattern: string): string {
  const m = /^\^([a-z]+)_(.*)$/.exec(pattern);
  const vendor = m ? d.def.idPrefixes?.[m[1]!] : undefined;
  return vendor ? `^${vendor}${m![2]!}` : pattern;
}

/**
 * Renames `properties` keys and `required` entries, maps enum values of status/state members (`states`), every
 * enum's values (upperCaseValues, pascalCaseEvents) and id patterns, at any depth.
 */
function schemaToVendor(d: Dialect, doc: JsonObject, schema: JsonValue): JsonValue {
  if (Array.isArray(schema)) return schema.map((s) => schemaToVendor(d, doc, s));
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'enum' && Array.isArray(v) && (d.def.upperCaseValues || d.def.pascalCaseEvents)) {
      out[k] = v.map((e) => (typeof e === 'string' ? translateEnumValue(d, e) : e));
      continue;
    }
    // A oneOf branch's discriminating value is an enum of one.
    if (k === 'const' && typeof v === 'string' && (d.def.upperCaseValues || d.def.pascalCaseEvents)) {
      out[k] = translateEnumValue(d, v);
      continue;
    }
    if (k === 'pattern' && typeof v === 'string') {
      out[k] = idPattern(d, v);
      continue;
    }
    if (k === 'properties' && isObject(v)) {
      const props: JsonObject = {};
      for (const [name, s] of Object.entries(v)) {
        const renamed = d.fields.get(name) ?? name;
        props[renamed] = (name === 'status' || name === 'state') && d.states.size > 0 ? stateSchema(d, doc, s) : schemaToVendor(d, doc, s);
      }
      out[k] = props;
    } else if (k === 'required' && Array.isArray(v)) out[k] = v.map((n) => (typeof n === 'string' ? (d.fields.get(n) ?? n) : n));
    else out[k] = schemaToVendor(d, doc, v);
  }
  return out;
}

/** A status member's schema with the vendor's state names (inlined: other members sharing the enum keep theirs). */
function stateSchema(d: Dialect, doc: JsonObject, s: JsonValue): JsonValue {
  const resolved = deref(doc, s);
  if (!isObject(resolved) || !Array.isArray(resolved['enum'])) return schemaToVendor(d, doc, s);
  return { ...resolved, enum: resolved['enum'].map((e) => (typeof e === 'string' ? (d.states.get(e) ?? e) : e)) };
}

/** An enum value as the dialect spells every enum: UPPER_CASE words, PascalCase events (the same as in bodies). */
function translateEnumValue(d: Dialect, v: string): string {
  const event = d.events.get(v);
  if (event !== undefined) return event;
  return d.def.upperCaseValues && /^[a-z][a-z0-9_]*$/.test(v) ? v.toUpperCase() : v;
}

/** The 2xx JSON schema of an operation in the vendor's shape. */
function responseSchema(d: Dialect, doc: JsonObject, op: RefOperation, schema: JsonValue): JsonValue {
  const list = d.def.list;
  if (op.kind === 'list' && list) {
    const listSchema = deref(doc, schema) as JsonObject;
    const own = (listSchema['allOf'] as JsonObject[])[1]!;
    const items = ((own['properties'] as JsonObject)['data'] as JsonObject)['items']!;
    const props: JsonObject = { [list.items]: { type: 'array', items } };
    if (isOffsetList(list)) props[list.total] = { type: 'integer', minimum: 0, description: 'How many items the whole list holds; pass `' + list.offset_param + '` to read from another index.' };
    else props[list.next_cursor] = { type: ['string', 'null'], description: 'Pass as `' + list.cursor_param + '` for the next page; null on the last page.' };
    if (!isOffsetList(list) && list.has_more) props[list.has_more] = { type: 'boolean' };
    return { type: 'object', required: Object.keys(props), properties: props, additionalProperties: false };
  }
  if (op.kind === 'resource' && d.def.envelope) {
    return { type: 'object', required: [d.def.envelope], properties: { [d.def.envelope]: schema }, additionalProperties: false };
  }
  return schema;
}

function examplesToVendor(examples: JsonValue | undefined, f: (v: JsonValue) => JsonValue): JsonValue | undefined {
  if (!isObject(examples)) return examples;
  const out: JsonObject = {};
  for (const [name, ex] of Object.entries(examples)) out[name] = isObject(ex) && 'value' in ex ? { ...ex, value: f(ex['value']!) } : ex;
  return out;
}

function mediaToVendor(media: JsonValue, schema: (s: JsonValue) => JsonValue, value: (v: JsonValue) => JsonValue): JsonValue {
  if (!isObject(media)) return media;
  const out: JsonObject = { ...media };
  if (media['schema'] !== undefined) out['schema'] = schema(media['schema']);
  if (media['examples'] !== undefined) out['examples'] = examplesToVendor(media['examples'], value)!;
  if (media['example'] !== undefined) out['example'] = value(media['example']);
  return out;
}

/** A parameter (inline or $ref) in the vendor's name; kept as a $ref when nothing changes. */
function parameterToVendor(d: Dialect, doc: JsonObject, p: JsonValue, pathParams: Map<string, string>): JsonValue {
  const resolved = deref(doc, p);
  if (!isObject(resolved)) return p;
  const name = String(resolved['name']);
  const list = d.def.list;
  let vendorName = name;
  if (resolved['in'] === 'path') vendorName = pathParams.get(name) ?? name;
  else if (resolved['in'] === 'query') vendorName = list && name === 'cursor' ? (isOffsetList(list) ? list.offset_param : list.cursor_param) : list && name === 'limit' ? list.limit_param : (d.fields.get(name) ?? name);
  const stateful = resolved['in'] === 'query' && name === 'status' && d.states.size > 0;
  const respelled = d.def.upperCaseValues || d.def.pascalCaseEvents || d.def.idPrefixes;
  if (vendorName === name && !stateful && !respelled) return p;
  const out: JsonObject = { ...resolved, name: vendorName };
  if (stateful) out['schema'] = stateSchema(d, doc, resolved['schema']!);
  else if (respelled && resolved['schema'] !== undefined) out['schema'] = schemaToVendor(d, doc, resolved['schema']);
  if (typeof out['example'] === 'string') out['example'] = translateScalar(d, name, out['example'], 'toVendor');
  if (list && isOffsetList(list) && name === 'cursor') {
    out['description'] = 'Index of the first item to return (0-based).';
    out['schema'] = { type: 'integer', minimum: 0, default: 0 };
    delete out['example'];
  } else if (typeof out['description'] === 'string' && list && !isOffsetList(list)) out['description'] = out['description'].replace('`next_cursor`', `\`${list.next_cursor}\``);
  return out;
}

function operationToVendor(d: Dialect, doc: JsonObject, op: RefOperation, raw: JsonObject, pathParams: Map<string, string>): JsonObject {
  const out: JsonObject = { ...raw, operationId: d.vendorOperationId(op.id), tags: [d.def.tags[op.tag] ?? op.tag] };
  if (Array.isArray(raw['parameters'])) out['parameters'] = raw['parameters'].map((p) => parameterToVendor(d, doc, p, pathParams));
  const body = raw['requestBody'];
  if (isObject(body) && isObject(body['content'])) {
    const content: JsonObject = {};
    for (const [type, media] of Object.entries(body['content'])) content[type] = mediaToVendor(media, (s) => schemaToVendor(d, doc, s), (v) => translateValue(d, v, 'toVendor'));
    out['requestBody'] = { ...body, content };
  }
  const responses: JsonObject = {};
  for (const [status, r] of Object.entries(isObject(raw['responses']) ? raw['responses'] : {})) {
    if (!/^2/.test(status) || !isObject(r) || !isObject(r['content'])) {
      responses[status] = r;
      continue;
    }
    const content: JsonObject = {};
    for (const [type, media] of Object.entries(r['content'])) content[type] = mediaToVendor(media, (s) => responseSchema(d, doc, op, s), (v) => responseToVendor(d, op, v));
    responses[status] = { ...r, content };
  }
  out['responses'] = responses;
  return out;
}

/** The dialect's OpenAPI document, as a plain object ready for YAML. */
export function dialectDocument(d: Dialect, reference: JsonObject = loadReferenceDocument()): JsonObject {
  const doc = stripAnnotations(clone(reference)) as JsonObject;
  const info = doc['info'] as JsonObject;
  const paths: JsonObject = {};
  for (const [refPath, item] of Object.entries(doc['paths'] as JsonObject)) {
    const route = d.routes.find((r) => r.refPath === refPath);
    if (!route || !isObject(item)) throw new Error(`dialect ${d.def.name}: no route for ${refPath}`);
    const vendorItem: JsonObject = {};
    for (const [k, v] of Object.entries(item)) {
      const op = d.operationAt(k, refPath);
      if (k === 'parameters' && Array.isArray(v)) vendorItem[k] = v.map((p) => parameterToVendor(d, doc, p, route.params));
      else if (op && isObject(v)) vendorItem[k] = operationToVendor(d, doc, op, v, route.params);
      else vendorItem[k] = v;
    }
    paths[route.vendorPath] = vendorItem;
  }
  const components = doc['components'] as JsonObject;
  const schemas: JsonObject = {};
  const fixedEnums = seedFixedEnums(doc);
  for (const [name, s] of Object.entries(components['schemas'] as JsonObject)) schemas[name] = name === 'Problem' || fixedEnums.has(name) ? s : schemaToVendor(d, doc, s);
  let responses = components['responses'] as JsonObject;
  const errors = d.def.errors;
  if (errors) {
    // The vendor's own error shape replaces the problem document, as application/json.
    schemas['Error'] = errorSchema(errors.code, errors.message);
    responses = Object.fromEntries(Object.entries(responses).map(([name, r]) => [name, errorResponseToVendor(d, r)]));
  }
  const tags = [...new Set(d.operations.map((o) => d.def.tags[o.tag] ?? o.tag))].map((name) => ({ name }));
  return {
    ...doc,
    info: { ...info, title: d.def.title, summary: `${d.def.title} (a dialect of the fsapi reference profile)`, description: `Generated by test/dialects for the suite's self-verification: ${d.def.style}.` },
    tags,
    paths,
    components: { ...components, schemas, responses },
  };
}

/** A JSON schema for `{ <code path>: string, <message path>: string }` (dotted paths). */
function errorSchema(code: string, message: string): JsonObject {
  const root: JsonObject = { type: 'object', properties: {} };
  for (const path of [code, message]) {
    let cur = root;
    const keys = path.split('.');
    keys.forEach((k, i) => {
      const props = cur['properties'] as JsonObject;
      const last = i === keys.length - 1;
      props[k] ??= last ? { type: 'string', minLength: 1 } : { type: 'object', properties: {} };
      cur['required'] = [...new Set([...((cur['required'] as string[] | undefined) ?? []), k])];
      cur = props[k] as JsonObject;
    });
  }
  return root;
}

/** An error response documented as the vendor's error shape (application/json), its examples translated. */
function errorResponseToVendor(d: Dialect, r: JsonValue): JsonValue {
  if (!isObject(r) || !isObject(r['content'])) return r;
  const content: JsonObject = {};
  for (const [type, media] of Object.entries(r['content'])) {
    if (type !== 'application/problem+json' || !isObject(media)) {
      content[type] = media;
      continue;
    }
    content['application/json'] = mediaToVendor({ ...media, schema: { $ref: '#/components/schemas/Error' } }, (s) => s, (v) => problemToVendor(d, v));
  }
  return { ...r, content };
}
