/**
 * The value generator's work is bounded (issue 34): a schema that names itself for one value, the shape that kept a
 * worker walking forever on Brex's document, is cut and said; an enormous value stops at its budget, and says where.
 */
import { describe, expect, it } from 'vitest';
import { loadSpec, requestMediaOf } from '../src/catalogue/openapi.js';
import { fromRoot } from '../src/paths.js';
import { generateValid, loadGenerator } from '../src/values/generate.js';
import { cutSelfReferences, valueBudget } from '../src/values/generation-bounds.js';

await loadGenerator();

describe('schemas that name themselves for one value', () => {
  it('are cut where the cycle closes, keeping what the named schema says of the value itself', () => {
    const defs = {
      Parent: { type: 'object', properties: { kind: { type: 'string' } }, oneOf: [{ $ref: '#/$defs/Child' }], discriminator: { propertyName: 'kind' } },
      Child: { allOf: [{ $ref: '#/$defs/Parent' }, { required: ['id'], properties: { id: { type: 'string' } } }] },
      Tree: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/Tree' } } } },
    };
    expect(cutSelfReferences(defs)).toEqual([['Parent', 'Child', 'Parent']]);
    expect(defs.Child.allOf[0]).toEqual({ type: 'object', properties: { kind: { type: 'string' } } });
    // A member that holds its own kind (a tree) is a part of the value, not the value: the generator's depth bounds it.
    expect(defs.Tree.properties.children.items).toEqual({ $ref: '#/$defs/Tree' });
  });

  it("end the making of a body (Brex's counterparty shape) with the cycle named, since no validator can check it", async () => {
    const spec = await loadSpec(fromRoot('test', 'fixtures', 'values', 'self-naming.yaml'));
    const made = generateValid(spec, requestMediaOf(spec.byId.get('createTransfer')!)!.schema, 1);
    expect(made.ok).toBe(false);
    expect(!made.ok && made.problems[0]!.message).toMatch(/name themselves for one value .*#\/components\/schemas\/Counterparty -> #\/components\/schemas\/BankCounterparty -> #\/components\/schemas\/Counterparty/);
  });
});

describe('the value budget', () => {
  it('passes values through up to its limit, then names where the making was', () => {
    const count = valueBudget(3);
    expect([1, 2, 3].map((v) => count(v, {}, `/a/${v}`))).toEqual([1, 2, 3]);
    expect(() => count(4, {}, '/a/4')).toThrow(/more than 3 values \(it was at \/a\/4\)/);
    expect(() => count(5, {}, '/a/5')).toThrow(/more than 3 values/);
  });

  it('stops the making of an enormous value and says so, instead of making millions of items', async () => {
    const spec = await loadSpec(fromRoot('test', 'fixtures', 'values', 'self-naming.yaml'));
    // 40^5 items however few the generator is asked for: each array's minItems is its own.
    let schema: unknown = { type: 'string' };
    for (let i = 0; i < 5; i++) schema = { type: 'array', minItems: 40, items: schema };
    const made = generateValid(spec, schema, 1);
    expect(made.ok).toBe(false);
    expect(!made.ok && made.problems[0]!.message).toMatch(/more than \d+ values \(it was at \/\d+/);
  });
});
