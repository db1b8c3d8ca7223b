/** Values made from a document: parameters (example first, then generated) and request bodies, valid for their schemas. */
import { describe, expect, it } from 'vitest';
import { loadSpec, requestMediaOf } from '../src/catalogue/openapi.js';
import { multipartBody, urlEncodedBody } from '../src/http/form-body.js';
import { fromRoot } from '../src/paths.js';
import { generateValid, loadGenerator } from '../src/values/generate.js';
import { documentValue } from '../src/values/parameter-value.js';

const spec = await loadSpec(fromRoot('test', 'fixtures', 'values', 'vendor.yaml'));
await loadGenerator();
const param = (op: string, name: string) => spec.byId.get(op)!.parameters.find((p) => p.name === name)!;

describe('parameter values from the document', () => {
  it('takes the example, default or first enum value first, each only if valid', () => {
    expect(documentValue(spec, { name: 'x', example: 'ex', schema: { type: 'string', default: 'd' } }, 1)).toEqual({ value: 'ex', origin: 'example' });
    expect(documentValue(spec, { name: 'x', example: undefined, schema: { type: 'string', default: 'd', enum: ['a'] } }, 1)).toEqual({ value: 'a', origin: 'example' });
    expect(documentValue(spec, { name: 'x', example: 'not-a-uuid', schema: { type: 'string', format: 'uuid' } }, 1)!.origin).toBe('generated');
    expect(documentValue(spec, param('widgets.get', 'mode'), 1)).toEqual({ value: 'fast', origin: 'example' });
  });

  it('makes uuid, pattern and integer values valid for their schemas', () => {
    for (const [op, name] of [['widgets.get', 'widget_ref'], ['widgets.get', 'X-Request-Tag'], ['statements.get', 'statement_id'], ['entries.list', 'ledgerId']] as const) {
      const p = param(op, name);
      for (const seed of [1, 2, 3]) {
        const v = documentValue(spec, p, seed)!;
        expect(v.origin).toBe('generated');
        expect(spec.validator(p.schema!)(v.value), `${name}=${String(v.value)}`).toBe(true);
      }
    }
    expect(String(documentValue(spec, param('widgets.get', 'widget_ref'), 1)!.value)).toMatch(/^wg_[a-f0-9]{8}$/);
  });

  it('gives an array parameter one value of its items (what ?ids=a carries)', () => {
    const v = documentValue(spec, { name: 'ids', in: 'query', example: undefined, schema: { type: 'array', items: { type: 'string', format: 'uuid' } } }, 2)!;
    expect(spec.validator({ type: 'string', format: 'uuid' })(v.value)).toBe(true);
  });

  it('asks a history for the last thirty days', () => {
    const since = documentValue(spec, { name: 'createdSince', example: undefined, schema: { type: 'string', format: 'date-time' } }, 1)!.value;
    const until = documentValue(spec, { name: 'createdUntil', example: undefined, schema: { type: 'string', format: 'date-time' } }, 1)!.value;
    expect(Math.round((Date.parse(String(until)) - Date.parse(String(since))) / 86_400_000)).toBe(30);
  });
});

describe('request bodies made from the schema', () => {
  it('honours required, pattern, bounds, readOnly and a discriminated oneOf', () => {
    const op = spec.byId.get('payouts.create')!;
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const made = generateValid(spec, requestMediaOf(op)!.schema, seed);
      expect(made.ok).toBe(true);
      const body = (made as { value: Record<string, unknown> }).value;
      expect(spec.validateRequestBody(op, body)).toEqual([]);
      expect(body).not.toHaveProperty('id');
      const rail = body['rail'] as Record<string, unknown>;
      expect(rail['kind'] === 'ach' ? 'routing' in rail : rail['kind'] === 'wire' && 'swift' in rail).toBe(true);
    }
  });

  it("follows a schema's reference to a parameter's schema (as Prism does) when validating and generating", () => {
    const card = spec.byId.get('cards.get')!;
    expect(spec.validateResponse(card, 200, 'application/json', { token: 'card_abc123', state: 'OPEN' })).toEqual({ kind: 'ok' });
    expect(spec.validateResponse(card, 200, 'application/json', { token: 'nope', state: 'OPEN' }).kind).toBe('schema');
    // As a request: the readOnly token (required of answers only) is left out, the rest valid.
    const made = generateValid(spec, { $ref: '#/components/schemas/Card' }, 3) as { ok: true; value: Record<string, unknown> };
    expect(made.ok).toBe(true);
    expect(made.value).not.toHaveProperty('token');
    expect(['OPEN', 'PAUSED']).toContain(made.value['state']);
  });

  it('fills optional members where a oneOf branch is told apart only by them', () => {
    const schema = { oneOf: [{ type: 'object', properties: { removed: { type: 'boolean' } }, additionalProperties: false }, { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false }] };
    const made = generateValid(spec, schema, 1);
    expect(made.ok).toBe(true);
  });

  it('makes the same value for the same schema and seed, each caller its own copy, each adjusted anew', () => {
    const op = spec.byId.get('payouts.create')!;
    const schema = requestMediaOf(op)!.schema;
    const first = generateValid(spec, schema, 7) as { ok: true; value: Record<string, unknown> };
    // What a caller does to its value (a check varying a member) reaches no later caller.
    first.value['amount'] = 'changed by a caller';
    const again = generateValid(spec, schema, 7) as { ok: true; value: Record<string, unknown> };
    expect(again.value['amount']).not.toBe('changed by a caller');
    expect(spec.validateRequestBody(op, again.value)).toEqual([]);
    // An equal schema (another object, the same content) makes the same value; another seed may not.
    expect(generateValid(spec, structuredClone(schema), 7)).toEqual(again);
    let adjusted = 0;
    const marked = generateValid(spec, schema, 7, (v) => ({ ...(v as object), marked: ++adjusted })) as { ok: true; value: Record<string, unknown> };
    generateValid(spec, schema, 7, (v) => ({ ...(v as object), marked: ++adjusted }));
    expect(adjusted).toBe(2);
    expect(marked.value['marked']).toBe(1);
  });

  it("makes a few items of an array whose maxItems is huge (Adyen's 2147483647), and fills required members nine levels down", async () => {
    const huge = generateValid(spec, { type: 'object', required: ['ids'], properties: { ids: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2147483647 } } }, 1);
    expect(huge.ok).toBe(true);
    const ids = (huge as { value: { ids: string[] } }).value.ids;
    expect(ids.length).toBeGreaterThanOrEqual(1);
    expect(ids.length).toBeLessThanOrEqual(3);
    // Plaid's consent: constraints.periodic_amounts[].amount.currency, each level a reference or an allOf.
    const deep = await loadSpec(fromRoot('test', 'fixtures', 'values', 'deep.yaml'));
    const op = deep.byId.get('consents.create')!;
    const made = generateValid(deep, requestMediaOf(op)!.schema, 1);
    expect(made.ok, JSON.stringify(made)).toBe(true);
  });

  it('says why when no valid value exists', () => {
    const made = generateValid(spec, { type: 'string', minLength: 5, maxLength: 2 }, 1);
    expect(made.ok).toBe(false);
  });
});

describe('form bodies encoded as the document says', () => {
  it('url-encodes a deepObject member as a[b]=c and exploded arrays as repeated names', () => {
    const media = requestMediaOf(spec.byId.get('cards.create')!)!;
    expect(media.encoding).toEqual({ metadata: { style: 'deepObject', explode: true } });
    const text = urlEncodedBody({ memo: 'a b', metadata: { team: 'ops', deep: { x: 1 } }, tags: ['a', 'b'] }, media.encoding);
    expect(decodeURIComponent(text.replace(/\+/g, ' '))).toBe('memo=a b&metadata[team]=ops&metadata[deep][x]=1&tags=a&tags=b');
    // Without an encoding object: form, exploded (an object's members become fields of their own).
    expect(urlEncodedBody({ address: { city: 'Paris' } })).toBe('city=Paris');
  });

  it('sends multipart parts per member, objects as JSON and binary members as files', () => {
    const { body, contentType } = multipartBody({ memo: 'm', meta: { a: 1 }, file: 'xyz' }, {}, new Set(['file']));
    const boundary = /boundary=(.+)$/.exec(contentType)![1]!;
    const text = body.toString('utf8');
    expect(text.split(`--${boundary}`).length).toBe(5);
    expect(text).toContain('name="memo"\r\n\r\nm\r\n');
    expect(text).toContain('name="meta"\r\nContent-Type: application/json\r\n\r\n{"a":1}');
    expect(text).toContain('name="file"; filename="file.bin"\r\nContent-Type: application/octet-stream');
  });
});

describe('generated strings are short where the schema allows', () => {
  it('keeps a header within what a server takes, and still honours a long minLength', () => {
    // Adyen's required WWW-Authenticate header allows 20000 characters; 18 KB of it got a 431 from the server.
    for (const seed of [1, 2, 3]) {
      const v = String(documentValue(spec, { name: 'WWW-Authenticate', in: 'header', example: undefined, schema: { type: 'string', minLength: 1, maxLength: 20000 } }, seed)!.value);
      expect(v.length).toBeGreaterThan(0);
      expect(v.length).toBeLessThanOrEqual(64);
    }
    const long = String(documentValue(spec, { name: 'memo', in: 'query', example: undefined, schema: { type: 'string', minLength: 300, maxLength: 400 } }, 1)!.value);
    expect(long.length).toBeGreaterThanOrEqual(300);
  });

  it("asks a plain string of a large maxLength (Stripe's 5000) at the short length outright, and leaves enums, formats and patterns to their own means", () => {
    const made = (schema: Record<string, unknown>, seed: number) => {
      const g = generateValid(spec, schema, seed);
      if (!g.ok) throw new Error(JSON.stringify(g.problems));
      return g.value;
    };
    for (const seed of [1, 2, 3]) {
      expect(String(made({ type: 'string', maxLength: 5000 }, seed))).toHaveLength(64);
      expect(made({ type: 'object', required: ['note'], properties: { note: { type: 'string', maxLength: 5000 } } }, seed)).toEqual({ note: expect.stringMatching(/^.{64}$/s) });
      expect(made({ type: 'string', maxLength: 5000, enum: ['ab', 'cd'] }, seed)).toMatch(/^(ab|cd)$/);
      expect(made({ type: 'string', maxLength: 5000, format: 'email' }, seed)).toMatch(/^[^@\s]+@[^@\s]+$/);
      expect(made({ type: 'string', maxLength: 5000, pattern: '^[a-z]{3}$' }, seed)).toMatch(/^[a-z]{3}$/);
      // Below the large bound the schema's own length is drawn, as the generator does.
      expect(String(made({ type: 'string', maxLength: 10 }, seed)).length).toBeLessThanOrEqual(10);
    }
  });
});

describe('formats the validator knows', () => {
  it('makes a valid "url" (Plaid\'s webhook members), which the generator alone does not', () => {
    for (const seed of [1, 2, 3]) {
      const made = generateValid(spec, { type: 'object', required: ['webhook'], properties: { webhook: { type: 'string', format: 'url' } } }, seed);
      expect(made.ok, JSON.stringify(made)).toBe(true);
    }
  });

  it('makes a valid "byte" (base64: Xero\'s attachments, a whole octet-stream body of that format)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const made = generateValid(spec, { type: 'string', format: 'byte' }, seed);
      expect(made.ok, JSON.stringify(made)).toBe(true);
    }
  });
});

describe('parameter values are never empty', () => {
  it('in a path, a header or a query, whatever the schema allows', () => {
    // A header sent empty is a missing one to most servers: Prism refused a required `x-jws-signature: ` with 400.
    for (const where of ['path', 'header', 'query'] as const) {
      for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) expect(String(documentValue(spec, { name: 'id', in: where, example: undefined, schema: { type: 'string', maxLength: 3 } }, seed)!.value)).not.toBe('');
    }
    // Nor is an empty example or default taken.
    expect(documentValue(spec, { name: 'x-jws-signature', in: 'header', example: '', schema: { type: 'string', default: '' } }, 1)!.value).not.toBe('');
  });
});
