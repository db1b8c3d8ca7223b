import { describe, expect, it } from 'vitest';
import { specDiffHeadline } from '../src/reports/regression-render.js';
import { diffParsed, type SpecChangeKind } from '../src/regression/spec-diff.js';

/** A small document; `change` edits a copy, so each test names exactly the change it makes. */
function doc(openapi: string, change: (d: Record<string, any>) => void = () => {}): Record<string, unknown> {
  const d: Record<string, any> = {
    openapi,
    info: { title: 'Pay', version: '1' },
    components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'Api-Key' } } },
    security: [{ key: [] }],
    paths: {
      '/transfers': {
        post: {
          operationId: 'createTransfer',
          parameters: [{ name: 'x-tenant-id', in: 'header', required: true, schema: { type: 'string' } }],
          requestBody: {
            content: { 'application/json': { schema: { type: 'object', required: ['amount'], properties: { amount: { type: 'integer' }, currency: { type: 'string', enum: ['EUR', 'USD', 'GBP'] }, note: { type: 'string' } } } } },
          },
          responses: {
            '201': { description: 'made', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' }, status: { type: 'string' } } } } } },
            '409': { description: 'conflict' },
          },
        },
        get: { operationId: 'listTransfers', responses: { '200': { description: 'ok' } } },
      },
    },
  };
  change(d);
  return d;
}

const kinds = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  diffParsed({ path: 'old', doc: a }, { path: 'new', doc: b }).changes.map((c) => `${c.breaking ? 'breaking' : 'non-breaking'} ${c.kind} ${c.operation ?? ''}`.trim());

describe.each(['3.0.3', '3.1.0'])('spec-diff on OpenAPI %s', (v) => {
  const cases: [string, (d: Record<string, any>) => void, SpecChangeKind, string][] = [
    ['a removed operation', (d) => delete d.paths['/transfers'].get, 'removed-operation', 'GET /transfers'],
    ['a removed response', (d) => delete d.paths['/transfers'].post.responses['409'], 'removed-response', 'POST /transfers'],
    ['a new required parameter', (d) => d.paths['/transfers'].post.parameters.push({ name: 'region', in: 'query', required: true, schema: { type: 'string' } }), 'required-parameter', 'POST /transfers'],
    ['a new required member', (d) => d.paths['/transfers'].post.requestBody.content['application/json'].schema.required.push('currency'), 'required-member', 'POST /transfers'],
    ['a narrowed enum', (d) => d.paths['/transfers'].post.requestBody.content['application/json'].schema.properties.currency.enum.pop(), 'enum', 'POST /transfers'],
    ['a type change', (d) => (d.paths['/transfers'].post.requestBody.content['application/json'].schema.properties.amount.type = 'string'), 'type', 'POST /transfers'],
    ['a removed response member', (d) => delete d.paths['/transfers'].post.responses['201'].content['application/json'].schema.properties.status, 'removed-response-member', 'POST /transfers'],
    ['changed security', (d) => (d.components.securitySchemes.key.name = 'Authorization'), 'security', ''],
  ];
  it.each(cases)('%s is breaking, of its kind, at its operation', (_, change, kind, op) => {
    expect(kinds(doc(v), doc(v, change))).toContain(`breaking ${kind} ${op}`.trim());
  });

  it('an added operation and an added optional member are not breaking; identical documents have no change', () => {
    const added = kinds(doc(v), doc(v, (d) => (d.paths['/accounts'] = { get: { responses: { '200': { description: 'ok' } } } })));
    expect(added).toEqual(['non-breaking added-operation GET /accounts']);
    expect(kinds(doc(v), doc(v))).toEqual([]);
  });

  it('the values of one enum fold into one change that counts them', () => {
    const d = diffParsed({ path: 'a', doc: doc(v) }, { path: 'b', doc: doc(v, (x) => (x.paths['/transfers'].post.requestBody.content['application/json'].schema.properties.currency.enum = ['EUR'])) });
    const enums = d.changes.filter((c) => c.kind === 'enum');
    expect(enums).toHaveLength(1);
    expect(enums[0]!.count).toBe(2);
  });
});

/** The parts of the small document the cases below change. */
const body = (d: Record<string, any>) => d.paths['/transfers'].post.requestBody.content['application/json'];
const created = (d: Record<string, any>) => d.paths['/transfers'].post.responses['201'].content['application/json'];
const diff = (a: Record<string, unknown>, b: Record<string, unknown>) => diffParsed({ path: 'old', doc: a }, { path: 'new', doc: b });
const breakingOf = (a: Record<string, unknown>, b: Record<string, unknown>) => diff(a, b).changes.filter((c) => c.breaking);

/** Cases met on published vendor documents (issue 31): a change of writing is no change; a change of meaning is. */
describe.each(['3.0.3', '3.1.0'])('spec-diff follows the schema, not the text (OpenAPI %s)', (v) => {
  it('a flat response object restructured into allOf [$ref base, {...}] removes no member', () => {
    const after = doc(v, (d) => {
      d.components.schemas = { Base: { type: 'object', properties: { id: { type: 'string' } } } };
      created(d).schema = { allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', properties: { status: { type: 'string' } } }] };
    });
    expect(breakingOf(doc(v), after)).toEqual([]);
    // The same restructure that does drop `status` is still a removed member.
    const dropped = doc(v, (d) => {
      d.components.schemas = { Base: { type: 'object', properties: { id: { type: 'string' } } } };
      created(d).schema = { allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', properties: { note: { type: 'string' } } }] };
    });
    expect(breakingOf(doc(v), dropped).map((c) => `${c.kind} ${c.description}`)).toEqual([expect.stringMatching(/^removed-response-member .*`status`/)]);
  });

  it("a list's items turned into a oneOf of alternatives that all keep a member do not remove it; a member no alternative keeps is removed", () => {
    const list = (items: unknown) => (d: Record<string, any>) => {
      d.paths['/transfers'].get.responses['200'] = { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { data: { type: 'array', items } } } } } };
    };
    const flat = { type: 'object', required: ['id'], properties: { id: { type: 'string' }, status: { type: 'string' } } };
    const kept = { oneOf: [{ type: 'object', required: ['id'], properties: { id: { type: 'string' }, status: { type: 'string' }, iban: { type: 'string' } } }, { type: 'object', required: ['id'], properties: { id: { type: 'string' }, card: { type: 'string' } } }] };
    expect(breakingOf(doc(v, list(flat)), doc(v, list(kept)))).toEqual([]);
    const lost = { oneOf: [{ type: 'object', required: ['id'], properties: { id: { type: 'string' }, iban: { type: 'string' } } }, { type: 'object', required: ['id'], properties: { id: { type: 'string' } } }] };
    const calls = breakingOf(doc(v, list(flat)), doc(v, list(lost)));
    expect(calls.map((c) => `${c.kind} ${c.operation}`)).toEqual(['removed-response-member GET /transfers']);
    expect(calls[0]!.description).toContain('`data[].status`');
  });

  it('a $ref that gains a sibling `deprecated: true` is not a removed type', () => {
    const ref = (extra: Record<string, unknown>) => (d: Record<string, any>) => {
      d.components.schemas = { Status: { type: 'string', enum: ['pending', 'done'] } };
      created(d).schema.properties.status = { $ref: '#/components/schemas/Status', ...extra };
    };
    expect(breakingOf(doc(v, ref({})), doc(v, ref({ deprecated: true })))).toEqual([]);
  });

  const alternatives = (a: Record<string, unknown>, b: Record<string, unknown>) => (d: Record<string, any>) => {
    body(d).schema = { oneOf: [a, b] };
  };
  const iban = (required: string[]) => ({ type: 'object', required, properties: { amount: { type: 'integer' }, currency: { type: 'string' }, iban: { type: 'string' } } });
  const card = (required: string[]) => ({ type: 'object', required, properties: { amount: { type: 'integer' }, currency: { type: 'string' }, card: { type: 'string' } } });

  it('a member that only some alternatives of a request require is no new required member', () => {
    // A body split into alternatives that each require their own member: neither member is required by every one.
    const before = doc(v, (d) => (body(d).schema = { type: 'object', required: ['amount'], properties: { amount: { type: 'integer' }, currency: { type: 'string' }, iban: { type: 'string' }, card: { type: 'string' } } }));
    const after = doc(v, alternatives(iban(['amount', 'iban']), card(['amount', 'card'])));
    expect(breakingOf(before, after).filter((c) => c.kind === 'required-member')).toEqual([]);
    // Alternatives that no longer all require a member: looser, no change that breaks.
    expect(breakingOf(doc(v, alternatives(iban(['amount', 'currency']), card(['amount', 'currency']))), doc(v, alternatives(iban(['amount', 'currency']), card(['amount']))))).toEqual([]);
    // Required by every alternative now: that is a new required member.
    const stricter = breakingOf(doc(v, alternatives(iban(['amount']), card(['amount']))), doc(v, alternatives(iban(['amount', 'currency']), card(['amount', 'currency']))));
    expect(stricter.map((c) => [c.kind, c.description])).toEqual([['required-member', '[Added] required member `currency` in the request body (application/json)']]);
  });

  it('a request body oneOf that loses an alternative is breaking: by its discriminator value, or by its shape', () => {
    const discriminated = (methods: string[]) => (d: Record<string, any>) => {
      d.components.schemas = {
        Card: { type: 'object', required: ['method', 'card'], properties: { method: { type: 'string' }, card: { type: 'string' } } },
        Bank: { type: 'object', required: ['method', 'iban'], properties: { method: { type: 'string' }, iban: { type: 'string' } } },
        Wire: { type: 'object', required: ['method', 'swift'], properties: { method: { type: 'string' }, swift: { type: 'string' } } },
      };
      const names: Record<string, string> = { card: 'Card', bank: 'Bank', wire: 'Wire' };
      body(d).schema = {
        oneOf: methods.map((m) => ({ $ref: `#/components/schemas/${names[m]}` })),
        discriminator: { propertyName: 'method', mapping: Object.fromEntries(methods.map((m) => [m, `#/components/schemas/${names[m]}`])) },
      };
    };
    const gone = breakingOf(doc(v, discriminated(['card', 'bank', 'wire'])), doc(v, discriminated(['card', 'wire'])));
    expect(gone.map((c) => `${c.kind} ${c.operation}`)).toEqual(['removed-alternative POST /transfers']);
    expect(gone[0]!.description).toContain('`method` "bank" can no longer be sent');
    // Without a discriminator: the integer alternative is gone, and no alternative left accepts an integer.
    const shapes = (types: string[]) => (d: Record<string, any>) => {
      body(d).schema.properties.amount = { oneOf: types.map((type) => ({ type })) };
    };
    const shape = breakingOf(doc(v, shapes(['integer', 'string'])), doc(v, shapes(['string'])));
    expect(shape.map((c) => c.kind)).toContain('removed-alternative');
    expect(shape.find((c) => c.kind === 'removed-alternative')!.description).toContain('`amount`');
    // The same alternatives written again, reordered or renamed inline, are no change.
    expect(breakingOf(doc(v, shapes(['integer', 'string'])), doc(v, shapes(['string', 'integer'])))).toEqual([]);
  });

  it('one narrowed enum is one change per place, worded one way, breaking where a client sends it', () => {
    const currency = (values: string[]) => (d: Record<string, any>) => {
      d.components.schemas = { Currency: { type: 'string', enum: values } };
      body(d).schema.properties.currency = { $ref: '#/components/schemas/Currency' };
      created(d).schema.properties.currency = { $ref: '#/components/schemas/Currency' };
    };
    const enums = diff(doc(v, currency(['EUR', 'USD', 'GBP'])), doc(v, currency(['EUR', 'GBP']))).changes.filter((c) => c.kind === 'enum');
    expect(enums.map((c) => [c.breaking, c.description])).toEqual([
      [true, '[Changed] enum of `currency` in the request body (application/json): removed "USD"'],
      [false, '[Changed] enum of `currency` in response 201 (application/json): removed "USD"'],
    ]);
    expect(enums.every((c) => c.count === 1)).toBe(true);
    // A value added is the reverse: breaking in the response (an exhaustive switch), not in the request.
    const added = diff(doc(v, currency(['EUR', 'USD'])), doc(v, currency(['EUR', 'USD', 'CHF']))).changes.filter((c) => c.kind === 'enum');
    expect(added.map((c) => [c.breaking, c.description])).toEqual([
      [true, '[Changed] enum of `currency` in response 201 (application/json): added "CHF"'],
      [false, '[Changed] enum of `currency` in the request body (application/json): added "CHF"'],
    ]);
  });
});

describe.each(['3.0.3', '3.1.0'])('spec-diff judges nullable and open objects by direction (OpenAPI %s)', (v) => {
  const nullable = (where: (d: Record<string, any>) => Record<string, any>, on: boolean) => (d: Record<string, any>) => {
    // The `nullable` keyword (3.0's, which 3.1 documents still carry); 3.1's `type: [..., 'null']` is a type change.
    where(d).schema.properties.currency = { type: 'string', ...(on ? { nullable: true } : {}) };
  };
  it('a response member that can no longer be null breaks nothing; one that now can be null does', () => {
    expect(breakingOf(doc(v, nullable(created, true)), doc(v, nullable(created, false)))).toEqual([]);
    expect(breakingOf(doc(v, nullable(created, false)), doc(v, nullable(created, true)))).not.toEqual([]);
  });
  it('a request member that may now be null breaks nothing; one that no longer may be does', () => {
    expect(breakingOf(doc(v, nullable(body, false)), doc(v, nullable(body, true)))).toEqual([]);
    expect(breakingOf(doc(v, nullable(body, true)), doc(v, nullable(body, false)))).not.toEqual([]);
  });
  it("a response object opened to more members (additionalProperties: false taken off) breaks nothing, as an added member does not", () => {
    const closed = (on: boolean) => (d: Record<string, any>) => {
      if (on) created(d).schema.additionalProperties = false;
    };
    expect(breakingOf(doc(v, closed(true)), doc(v, closed(false)))).toEqual([]);
  });
});

describe('spec-diff headline', () => {
  it('says "1 removed response", not "1 removed responses"', () => {
    const d = diff(doc('3.1.0'), doc('3.1.0', (x) => delete x.paths['/transfers'].post.responses['409']));
    expect(specDiffHeadline(d)).toBe('1 breaking change and 0 non-breaking changes (breaking: 1 removed response)');
  });
});
