/**
 * Loading any vendor's OpenAPI 3.0 or 3.1 document: 3.0 schemas read as 3.1, every kind of $ref resolved (circular
 * schemas too), what does not change the meaning used with a warning, a dangling $ref refused by name and place.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { from30, loadSpec } from '../src/catalogue/openapi.js';
import { UsageError } from '../src/errors.js';
import { describeErrors, type ValidateFunction } from '../src/catalogue/json-schema.js';
import { fromRoot } from '../src/paths.js';
import { privateCacheDir } from '../src/cache-dir.js';

const V30 = fromRoot('test', 'fixtures', 'openapi', 'v30.yaml');
const V31 = fromRoot('test', 'fixtures', 'openapi', 'v31.yaml');
const EMPTY_REQUIRED = fromRoot('test', 'fixtures', 'openapi', 'empty-required.yaml');
const NAMES_LIKE_REFS = fromRoot('test', 'fixtures', 'openapi', 'names-like-refs.yaml');
const dir = mkdtempSync(join(tmpdir(), 'fsapi-openapi-'));
/** A fixture (the 3.0 one unless named) with one text replacement, as a new file. */
function variant(name: string, from: string, to: string, base = V30): string {
  if (from === '' && to === '') return variant(name, '\n', '\n', base);
  const text = readFileSync(base, 'utf8');
  expect(text).toContain(from);
  const p = join(dir, name);
  // A comment of its own: new content each run, so its first load is made, not found in the cache.
  writeFileSync(p, `${text.replace(from, to)}# ${randomBytes(8).toString('hex')}\n`);
  return p;
}
async function refusal(p: Promise<unknown>): Promise<UsageError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(UsageError);
  return e as UsageError;
}

describe('an OpenAPI 3.0 document', () => {
  it('loads, its component $refs (parameters, responses, request bodies, headers, examples) resolved', async () => {
    const spec = await loadSpec(V30);
    expect(spec.warnings).toEqual([]);
    const get = spec.byId.get('getThing')!;
    expect(get.parameters).toMatchObject([{ name: 'id', in: 'path', required: true }]);
    expect(get.responses).toMatchObject([{ status: '200', description: 'a thing', content: [{ mediaType: 'application/json' }] }]);
    const create = spec.byId.get('createThing')!;
    expect(create.requestBody).toMatchObject({ required: true, content: [{ mediaType: 'application/json' }] });
    expect(create.responses[0]!.headers).toMatchObject([{ name: 'x-rate', required: true, schema: { type: 'integer' } }]);
    expect(create.responses[0]!.content[0]!.examples).toEqual([{ id: 'a', amount: 2 }]);
  });

  it('keeps its boolean exclusive bounds: the bound itself is refused, a value inside accepted', async () => {
    const spec = await loadSpec(V30);
    const op = spec.byId.get('createThing')!;
    expect(spec.validateRequestBody(op, { id: 'a', amount: 0.5 })).toEqual([]);
    expect(spec.validateRequestBody(op, { id: 'a', amount: 0 })[0]).toMatchObject({ pointer: '/amount' });
    expect(spec.validateRequestBody(op, { id: 'a', amount: 10 })[0]).toMatchObject({ pointer: '/amount' });
  });

  it('reads nullable as a null alternative: on a type, an enum and an allOf', async () => {
    const spec = await loadSpec(V30);
    const op = spec.byId.get('createThing')!;
    expect(spec.validateRequestBody(op, { id: 'a', note: null, kind: null, parent: null })).toEqual([]);
    expect(spec.validateRequestBody(op, { id: 'a', kind: 'c' })[0]).toMatchObject({ pointer: '/kind' });
    expect(spec.validateRequestBody(op, { id: 'a', note: 3 })[0]).toMatchObject({ pointer: '/note' });
  });

  it('validates through a schema that contains itself', async () => {
    const spec = await loadSpec(V30);
    const op = spec.byId.get('createThing')!;
    expect(spec.validateRequestBody(op, { id: 'a', children: [{ id: 'b', children: [{ id: 'c' }] }] })).toEqual([]);
    expect(spec.validateRequestBody(op, { id: 'a', children: [{ id: 'b', children: [{ amount: 1 }] }] })[0]).toMatchObject({ pointer: '/children/0/children/0/id' });
  });

  it('gives a component schema in 3.1 form by its $ref, in either form', async () => {
    const spec = await loadSpec(V30);
    const thing = spec.schemaAt('#/components/schemas/Thing') as { properties: Record<string, unknown> };
    expect(thing.properties['amount']).toEqual({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 10 });
    expect(thing.properties['id']).toEqual({ type: 'string', examples: ['abc'] });
    // A property that happens to be called "nullable" is a property, not the keyword.
    expect(thing.properties['nullable']).toEqual({ type: 'boolean' });
    expect(spec.schemaAt('urn:fsapi:spec#/$defs/Thing')).toBe(thing);
    expect(spec.schemaAt('#/components/schemas/Nope')).toBeUndefined();
  });

  it('is used with a warning when it only carries a key OpenAPI does not define', async () => {
    const p = variant('unknown-key.yaml', '      operationId: getThing\n', '      operationId: getThing\n      _x-internal: true\n');
    for (const round of ['made', 'cached']) {
      const spec = await loadSpec(p);
      expect(spec.byId.has('getThing'), round).toBe(true);
      expect(spec.warnings, round).toEqual([{ pointer: '/paths/~1things~1{id}/get/_x-internal', message: expect.stringMatching(/_x-internal.*not an OpenAPI field/) }]);
    }
  });

  it('is used with a warning when it writes an exclusive bound the 3.1 way, and means what 3.1 means', async () => {
    const p = variant('numeric-bound.yaml', 'minimum: 0, exclusiveMinimum: true, maximum: 10', 'exclusiveMinimum: 0, maximum: 10');
    const spec = await loadSpec(p);
    expect(spec.warnings).toEqual([{ pointer: '/components/schemas/Thing/properties/amount/exclusiveMinimum', message: expect.stringMatching(/OpenAPI 3\.1's form/) }]);
    const op = spec.byId.get('createThing')!;
    expect(spec.validateRequestBody(op, { id: 'a', amount: 0 })[0]).toMatchObject({ pointer: '/amount' });
    expect(spec.validateRequestBody(op, { id: 'a', amount: 0.5 })).toEqual([]);
  });

  it('is used with a warning when a path parameter is not marked required, and is read as required', async () => {
    for (const [name, to] of [
      ['path-unmarked.yaml', 'in: path, schema'],
      ['path-not-required.yaml', 'in: path, required: false, schema'],
    ] as const) {
      const spec = await loadSpec(variant(name, 'in: path, required: true, schema', to));
      expect(spec.warnings, name).toEqual([{ pointer: expect.stringMatching(/^\/components\/parameters\/Id/), message: expect.stringMatching(/path parameter is always required/) }]);
      expect(spec.byId.get('getThing')!.parameters, name).toMatchObject([{ name: 'id', in: 'path', required: true }]);
    }
  });

  it('is used with a warning when a schema is typed the 3.1 way, and means what 3.1 means', async () => {
    const spec = await loadSpec(variant('type-list.yaml', 'note: { type: string, nullable: true }', "note: { type: [string, 'null'] }"));
    expect(spec.warnings).toEqual([{ pointer: '/components/schemas/Thing/properties/note/type', message: expect.stringMatching(/OpenAPI 3\.1's form/) }]);
    const op = spec.byId.get('createThing')!;
    expect(spec.validateRequestBody(op, { id: 'a', note: null })).toEqual([]);
    expect(spec.validateRequestBody(op, { id: 'a', note: 3 })[0]).toMatchObject({ pointer: '/note' });
  });

  it('is used with a warning when a media type has both example and examples, and keeps both', async () => {
    const spec = await loadSpec(variant('example-and-examples.yaml', '              examples:\n', '              example: { id: b }\n              examples:\n'));
    expect(spec.warnings).toEqual([{ pointer: '/paths/~1things/post/responses/201/content/application~1json', message: expect.stringMatching(/both "example" and "examples"/) }]);
    expect(spec.byId.get('createThing')!.responses[0]!.content[0]!.examples).toEqual([{ id: 'b' }, { id: 'a', amount: 2 }]);
  });

  it('is refused when a $ref points at nothing, naming the $ref, its place, its line and the fix', async () => {
    const p = variant('dangling.yaml', "items: { $ref: '#/components/schemas/Thing' }", "items: { $ref: '#/components/schemas/Nope' }");
    const e = await refusal(loadSpec(p));
    expect(e.message).toContain('$ref "#/components/schemas/Nope" at /components/schemas/Thing/properties/children/items points at nothing');
    expect(e.file).toMatch(/dangling\.yaml$/);
    expect(e.where).toBe(String(readFileSync(p, 'utf8').split('\n').findIndex((l) => l.includes('Nope')) + 1));
    expect(e.fix).toMatch(/existing component/);
  });

  it('is refused when a response $ref points at nothing, at the place of the $ref', async () => {
    const p = variant('dangling-response.yaml', "$ref: '#/components/responses/Thing'", "$ref: '#/components/responses/Nope'");
    const e = await refusal(loadSpec(p));
    expect(e.message).toContain('$ref "#/components/responses/Nope" at /paths/~1things~1{id}/get/responses/200 points at nothing');
  });

  it('is refused, with the way to bundle it, when a $ref names another file', async () => {
    const p = variant('external.yaml', "$ref: '#/components/headers/Rate'", "$ref: './headers.yaml#/Rate'");
    const e = await refusal(loadSpec(p));
    expect(e.message).toContain('$ref "./headers.yaml#/Rate" at /paths/~1things/post/responses/201/headers/X-Rate names another file');
    expect(e.fix).toMatch(/bundle/);
  });

  it('is refused when it breaks the OpenAPI schema in a way that matters, at that line', async () => {
    const p = variant('bad-in.yaml', 'in: path, required: true', 'in: body, required: true');
    const e = await refusal(loadSpec(p));
    expect(e.message).toMatch(/^not a valid OpenAPI 3\.0\.3 document: \/components\/parameters\/Id/);
    expect(Number(e.where)).toBeGreaterThan(0);
  });
});

describe('an OpenAPI 3.1 document', () => {
  it('loads a path item given by $ref, with numeric exclusive bounds and a schema that contains itself', async () => {
    const spec = await loadSpec(V31);
    expect(spec.warnings).toEqual([]);
    const op = spec.byId.get('getThing')!;
    expect(op).toMatchObject({ method: 'GET', path: '/things/{id}' });
    expect(spec.validateResponse(op, 200, 'application/json', { amount: 1, next: { amount: 2 } })).toEqual({ kind: 'ok' });
    expect(spec.validateResponse(op, 200, 'application/json', { next: { amount: 0 } })).toMatchObject({ kind: 'schema', problems: [{ pointer: '/next/amount' }] });
  });

  it('is used with a warning when it carries a key OpenAPI does not define (3.1 closes objects otherwise)', async () => {
    const spec = await loadSpec(variant('unknown-key-31.yaml', 'info:', '_x-annotation: 1\ninfo:', V31));
    expect(spec.byId.has('getThing')).toBe(true);
    expect(spec.warnings).toEqual([{ pointer: '/_x-annotation', message: expect.stringMatching(/not an OpenAPI field/) }]);
  });
});

describe('a 3.1 document that still writes 3.0\'s habits (as Codat\'s and Dwolla\'s)', () => {
  it('reads "nullable" as 3.0 does, with a warning, even without a type: the schema compiles and allows null', async () => {
    const spec = await loadSpec(variant('nullable-31.yaml', 'next: { $ref:', 'note: { nullable: true, description: free text }\n        next: { $ref:', V31));
    expect(spec.warnings).toEqual([{ pointer: '/components/schemas/Thing/properties/note', message: expect.stringMatching(/"nullable" is OpenAPI 3\.0's keyword.*null allowed/) }]);
    const op = spec.byId.get('getThing')!;
    expect(spec.validateResponse(op, 200, 'application/json', { amount: 1, note: null })).toEqual({ kind: 'ok' });
  });

  it('compiles a pattern that is a valid regular expression only without the Unicode flag, and applies it', async () => {
    const spec = await loadSpec(variant('pattern-31.yaml', 'next: { $ref:', 'code: { type: string, pattern: "^[a-z\\\\~]+$" }\n        next: { $ref:', V31));
    const op = spec.byId.get('getThing')!;
    expect(spec.validateResponse(op, 200, 'application/json', { amount: 1, code: 'ab~c' })).toEqual({ kind: 'ok' });
    expect(spec.validateResponse(op, 200, 'application/json', { amount: 1, code: 'AB' })).toMatchObject({ kind: 'schema', problems: [{ pointer: '/code' }] });
  });
});

describe('a 3.0 document with an empty required list (as Unit\'s)', () => {
  it('is used with a warning at its line, and the list requires nothing', async () => {
    const spec = await loadSpec(variant('empty-required.yaml', '', '', EMPTY_REQUIRED));
    expect(spec.warnings).toEqual([{ pointer: '/components/schemas/Fee/required', message: expect.stringMatching(/empty list.*requires nothing/) }]);
    const op = spec.byId.get('createFee')!;
    expect(spec.validateRequestBody(op, {})).toEqual([]);
    expect(spec.validateRequestBody(op, { amount: 'x' })[0]).toMatchObject({ pointer: '/amount' });
  });
});

describe('a list of identical items where OpenAPI wants them unique (as Octobat\'s tags)', () => {
  it('is used with a warning at its place, each item kept once', async () => {
    const spec = await loadSpec(variant('duplicate-tags.yaml', '\npaths:', '\ntags:\n  - name: fees\n  - name: fees\n  - name: other\npaths:'));
    expect(spec.warnings).toEqual([{ pointer: '/tags', message: expect.stringMatching(/identical.*kept once/) }]);
  });
});

describe('keys spelled like reference keywords where they are names or data (as Yapily\'s)', () => {
  const load = () => loadSpec(variant('names-like-refs.yaml', '', '', NAMES_LIKE_REFS));

  it('loads, with no warning: a property called "$ref" or "$id" is a property, validated as one', async () => {
    const spec = await load();
    expect(spec.warnings).toEqual([]);
    const op = spec.byId.get('putSchema')!;
    expect(spec.validateRequestBody(op, { $ref: '#/a', $id: '#/components/schemas/Schema', properties: { a: { $ref: '#/b' } } })).toEqual([]);
    expect(spec.validateRequestBody(op, { $ref: 1 })[0]).toMatchObject({ pointer: '/$ref' });
    expect(spec.validateRequestBody(op, { properties: { a: { $ref: 2 } } })[0]).toMatchObject({ pointer: '/properties/a/$ref' });
    const schema = spec.schemaAt('#/components/schemas/Schema') as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(['type', '$ref', '$id', 'properties']);
  });

  it('keeps examples, defaults, enums and extensions as written, and resolves the real $refs next to them', async () => {
    const spec = await load();
    const op = spec.byId.get('putSchema')!;
    expect(op.requestBody!.content.map((m) => m.examples)).toEqual([[{ $ref: '#/components/schemas/Schema', type: 'object' }], [{ $ref: '#/components/schemas/Nope', $id: 'inline' }]]);
    expect(op.parameters).toMatchObject([{ name: 'id', in: 'path', example: { $ref: '#/nowhere' } }]);
    const schema = spec.schemaAt('#/components/schemas/Schema') as { properties: Record<string, Record<string, unknown>> };
    expect(schema.properties['$ref']!['default']).toEqual({ $ref: '#/nowhere' });
    expect(schema.properties['$id']!['enum']).toEqual(['#/components/schemas/Schema', { $ref: '#/nowhere' }]);
    expect((spec.raw['paths'] as Record<string, Record<string, Record<string, unknown>>>)['/schemas/{id}']!['put']!['x-code-sample']).toEqual({ $ref: './samples/put.sh' });
    // The validators' form of a schema keeps its data as written too, while its references name the bundle.
    expect(op.parameters[0]!.schema).toEqual({ type: 'string', examples: [{ $ref: '#/components/schemas/Schema' }] });
    expect(op.requestBody!.content[0]!.schema).toEqual({ $ref: 'urn:fsapi:spec#/$defs/Schema' });
  });

  it('still refuses a real $ref that points at nothing, at its line', async () => {
    const p = variant('names-like-refs-dangling.yaml', "additionalProperties: { $ref: '#/components/schemas/Schema' }", "additionalProperties: { $ref: '#/components/schemas/Nope' }", NAMES_LIKE_REFS);
    const e = await refusal(loadSpec(p));
    expect(e.message).toContain('$ref "#/components/schemas/Nope" at /components/schemas/Schema/properties/properties/additionalProperties points at nothing');
    expect(e.where).toBe(String(readFileSync(p, 'utf8').split('\n').findIndex((l) => l.includes("additionalProperties: { $ref: '#/components/schemas/Nope'")) + 1));
  });
});

describe('components that many schemas reference', () => {
  const SHARED = fromRoot('test', 'fixtures', 'openapi', 'shared-components.yaml');
  const ok = (fn: ValidateFunction, value: unknown): string[] => (fn(value) ? [] : describeErrors(fn.errors).map((p) => `${p.pointer} ${p.message}`));
  const order = { id: 'o1', price: { amount: 5, currency: 'EUR' }, lines: [{ qty: 1, order: { id: 'o0', price: { amount: 1, currency: 'USD' } } }] };

  it('are each compiled once, as a root of their own, and validate as the document says', async () => {
    const spec = await loadSpec(variant('shared-components.yaml', '', '', SHARED));
    const bare = spec.validator({ $ref: 'urn:fsapi:spec#/$defs/Order' });
    // The component's own root: a reference from any schema finds this one compiled validator.
    expect((bare.schema as Record<string, unknown>)['$id']).toBe('urn:fsapi:component:Order');
    expect((spec.validator({ $ref: 'urn:fsapi:spec#/$defs/Money' }).schema as Record<string, unknown>)['$id']).toBe('urn:fsapi:component:Money');
    expect(ok(bare, order)).toEqual([]);
    expect(ok(bare, { ...order, lines: [{ qty: 0, order: { id: '', price: { amount: 1, currency: 'usd' } } }] })).toEqual([
      '/lines/0/qty must be >= 1',
      '/lines/0/order/id must NOT have fewer than 1 characters',
      '/lines/0/order/price/currency must match pattern "^[A-Z]{3}$"',
    ]);
    const list = spec.byId.get('listOrders')!;
    expect(spec.validateResponse(list, 200, 'application/json', { data: [order, { ...order, parent: order }], total: 10 })).toEqual({ kind: 'ok' });
    expect(spec.validateResponse(list, 200, 'application/json', { data: [{ id: 'x' }], total: 'ten' })).toEqual({
      kind: 'schema',
      problems: [
        { pointer: '/data/0/price', message: 'is required' },
        { pointer: '/total', message: 'must be integer' },
      ],
    });
    expect(spec.validateRequestBody(spec.byId.get('createOrder')!, { id: 'o2' })).toEqual([{ pointer: '/price', message: 'is required' }]);
  });

  it('load as before when a document\'s own $id is the one a component\'s root would take', async () => {
    const p = variant('shared-components-taken-id.yaml', '    Scoped:\n      $id: \'https://example.com/scoped\'', "    Scoped:\n      $id: 'urn:fsapi:component:Money'", SHARED);
    const spec = await loadSpec(p);
    // Money stays a fragment of the bundle, and validates as before.
    const money = spec.validator({ $ref: 'urn:fsapi:spec#/$defs/Money' });
    expect((money.schema as Record<string, unknown>)['$id']).toBeUndefined();
    expect(ok(money, { amount: 1, currency: 'eur' })).toEqual(['/currency must match pattern "^[A-Z]{3}$"']);
    expect(ok(spec.validator({ $ref: 'urn:fsapi:spec#/$defs/Order' }), order)).toEqual([]);
  });

  it('share one validator between schemas that differ only in annotations, and still validate members named like them', async () => {
    const spec = await loadSpec(variant('shared-components-annotated.yaml', '', '', SHARED));
    const a = spec.validator({ type: 'string', maxLength: 3, description: 'one member', 'x-stripeBypassValidation': true });
    expect(spec.validator({ type: 'string', maxLength: 3, title: 'another', examples: ['abc'], default: 'a' })).toBe(a);
    expect(ok(a, 'abcd')).toEqual(['/ must NOT have more than 3 characters']);
    // Members called "description" and "title", an enum of extension-like strings and a list of required names are
    // the schema's own: kept.
    const named = spec.validator({
      type: 'object',
      required: ['title'],
      properties: { description: { type: 'integer', description: 'a count' }, title: { enum: ['x-a', 'x-b'] } },
      additionalProperties: { $ref: 'urn:fsapi:spec#/$defs/Money', description: 'money' },
    });
    expect(ok(named, { title: 'x-a', description: 2, other: { amount: 1, currency: 'EUR' } })).toEqual([]);
    expect(ok(named, { description: 'two', other: { amount: 1 } })).toEqual([
      '/title is required',
      '/other/currency is required',
      '/description must be integer',
    ]);
    expect(ok(named, { title: 'y' })).toEqual(['/title must be one of ["x-a","x-b"]']);
  });

  it('keep the bundle\'s resolution where the component is a resource or a scope of its own', async () => {
    const spec = await loadSpec(variant('shared-components-scoped.yaml', '', '', SHARED));
    expect((spec.validator({ $ref: 'urn:fsapi:spec#/$defs/Anchored' }).schema as Record<string, unknown>)['$id']).toBeUndefined();
    expect((spec.validator({ $ref: 'urn:fsapi:spec#/$defs/Scoped' }).schema as Record<string, unknown>)['$id']).toBe('https://example.com/scoped');
    const note = spec.byId.get('getNote')!;
    expect(spec.validateResponse(note, 200, 'application/json', { text: 'a', reply: { text: 'b', price: { amount: 1, currency: 'EUR' } } })).toEqual({ kind: 'ok' });
    expect(spec.validateResponse(note, 200, 'application/json', { text: 'a', reply: { price: { amount: 1, currency: 'eur' } } })).toEqual({
      kind: 'schema',
      problems: [
        { pointer: '/reply/text', message: 'is required' },
        { pointer: '/reply/price/currency', message: 'must match pattern "^[A-Z]{3}$"' },
      ],
    });
    expect(spec.validateResponse(note, 202, 'application/json', { odd: true, count: 0 })).toEqual({ kind: 'ok' });
    expect(spec.validateResponse(note, 202, 'application/json', { odd: 1, count: -1 })).toEqual({
      kind: 'schema',
      problems: [
        { pointer: '/odd', message: 'must be boolean' },
        { pointer: '/count', message: 'must be >= 0' },
      ],
    });
  });
});

describe('an OpenAPI 3.1 document with the same $id twice', () => {
  it('is refused at the second one, by its line', async () => {
    const p = variant('duplicate-id.yaml', '    Thing:\n', "    Dup: { $id: 'https://example.com/a', type: string }\n    Dup2: { $id: 'https://example.com/a', type: string }\n    Thing:\n", V31);
    const e = await refusal(loadSpec(p));
    expect(e.message).toMatch(/^not a valid OpenAPI 3\.1\.\d document: \/components\/schemas\/Dup2 \$id : 'https:\/\/example.com\/a' defined more than once/);
    expect(e.where).toBe(String(readFileSync(p, 'utf8').split('\n').findIndex((l) => l.includes('Dup2')) + 1));
  });
});

describe('an OpenAPI 3.1 document with a component schema that is not JSON Schema', () => {
  it('is refused on every load, never remembered as checked', async () => {
    const p = variant('bad-schema-31.yaml', '    Thing:\n', '    Bad: { type: 12 }\n    Thing:\n', V31);
    for (const round of ['first', 'again']) {
      const e = await refusal(loadSpec(p));
      expect(e.message, round).toMatch(/^the component schemas cannot be compiled: .*type/);
      expect(e.fix, round).toMatch(/valid JSON Schema/);
    }
  });
});

describe('the cache of prepared documents', () => {
  it('makes an entry of another shape again instead of using it', async () => {
    const p = variant('cached-shape.yaml', 'title: Things (3.0)', 'title: Things (cached)');
    const cache = privateCacheDir('fsapi-conformance-cache');
    if (!cache) return expect.unreachable('no private cache directory to test with');
    const sha = createHash('sha256').update(readFileSync(p)).digest('hex');
    writeFileSync(join(cache, `${sha}.openapi-prepared-2.json`), JSON.stringify({ doc: 'not a document' }));
    const spec = await loadSpec(p);
    expect(spec.title).toBe('Things (cached)');
    expect(spec.byId.has('getThing')).toBe(true);
  });
});

describe('the text of a document', () => {
  it('reads an unquoted date as the string it is (YAML 1.2), in YAML and in JSON alike', async () => {
    const yaml = await loadSpec(variant('date.yaml', 'id: { type: string, example: abc }', 'id: { type: string, example: 2024-01-02 }'));
    expect(yaml.schemaAt('#/components/schemas/Thing')).toMatchObject({ properties: { id: { examples: ['2024-01-02'] } } });
    const p = join(dir, 'date.json');
    writeFileSync(p, JSON.stringify({ ...(yaml.file.data as object), info: { title: 'as JSON', version: randomBytes(4).toString('hex') } }));
    const json = await loadSpec(p);
    expect(json.schemaAt('#/components/schemas/Thing')).toEqual(yaml.schemaAt('#/components/schemas/Thing'));
  });

  it('reads !!binary as its base64 text', async () => {
    const spec = await loadSpec(variant('binary.yaml', 'id: { type: string, example: abc }', 'id:\n          type: string\n          example: !!binary |-\n            YmFz\n            ZTY0'));
    expect(spec.warnings).toEqual([]);
    expect(spec.schemaAt('#/components/schemas/Thing')).toMatchObject({ properties: { id: { examples: ['YmFzZTY0'] } } });
  });

  it('is refused at its line when a YAML mapping repeats a key', async () => {
    const p = variant('repeated-key.yaml', '      operationId: getThing\n', '      operationId: getThing\n      operationId: getOther\n');
    const e = await refusal(loadSpec(p));
    expect(e.message).toMatch(/not valid YAML or JSON: .*unique/i);
    expect(e.where).toBe(`${readFileSync(p, 'utf8').split('\n').indexOf('      operationId: getOther') + 1}:7`);
  });
});

describe('a document without operations', () => {
  it('is refused, saying there is nothing to test', async () => {
    const p = join(dir, 'no-ops.yaml');
    writeFileSync(p, "openapi: 3.1.0\ninfo: { title: t, version: '1' }\ncomponents: { schemas: { A: { type: string } } }\n");
    const e = await refusal(loadSpec(p));
    expect(e.message).toMatch(/declares no operations/);
    expect(e.fix).toMatch(/paths/);
  });
});

describe('from30', () => {
  it('drops a false exclusive bound and keeps nullable-free schemas as they are', () => {
    expect(from30({ type: 'integer', minimum: 1, exclusiveMinimum: false })).toEqual({ type: 'integer', minimum: 1 });
    expect(from30({ type: 'string', maxLength: 3 })).toEqual({ type: 'string', maxLength: 3 });
    expect(from30({ $ref: '#/components/schemas/A', nullable: true })).toEqual({ anyOf: [{ $ref: '#/components/schemas/A' }, { type: 'null' }] });
  });
});
