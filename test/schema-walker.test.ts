/** The catalogue's one schema walker: what bind's inference, the value sources, the mutations and the sandbox read. */
import { describe, expect, it } from 'vitest';
import { deref, eachProperty, mergedSchema, propertiesOf, SCHEMA_DEPTH } from '../src/catalogue/schema-walker.js';
import type { JsonObject } from '../src/json.js';

const components: Record<string, JsonObject> = {
  Base: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, kind: { type: 'string' } } },
  Card: { allOf: [{ $ref: '#/components/schemas/Base' }, { properties: { kind: { const: 'card' } }, required: ['last4'] }], properties: { last4: { type: 'string' } } },
  Payment: { oneOf: [{ $ref: '#/components/schemas/Card' }, { properties: { iban: { type: 'string' } } }], anyOf: [{ properties: { memo: { type: 'string' } } }] },
  // A tree: a node whose children are nodes.
  Node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } },
  Loop: { $ref: '#/components/schemas/Loop' },
  Alias: { $ref: '#/components/schemas/Base' },
};
const spec = { schemaAt: (ref: string) => components[ref.replace('#/components/schemas/', '')] };
const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

describe('the schema walker', () => {
  it('follows references in a row, and a reference to itself ends with nothing', () => {
    expect(deref(spec, ref('Alias'))).toBe(components['Base']);
    expect(deref(spec, ref('Loop'))).toBeUndefined();
    expect(deref(spec, ref('Missing'))).toBeUndefined();
  });

  it('unites allOf parts and every oneOf/anyOf branch; a later part refines, the own declaration stands', () => {
    const props = propertiesOf(spec, ref('Payment'));
    expect([...props.keys()].sort()).toEqual(['iban', 'id', 'kind', 'last4', 'memo']);
    expect(props.get('kind')).toEqual({ const: 'card' });
    expect(propertiesOf(spec, { allOf: [{ properties: { a: { type: 'string' } } }], properties: { a: { type: 'integer' } } }).get('a')).toEqual({ type: 'integer' });
  });

  it('stops at SCHEMA_DEPTH levels of composition', () => {
    let deep: JsonObject = { properties: { bottom: { type: 'string' } } };
    for (let i = 0; i <= SCHEMA_DEPTH; i++) deep = { allOf: [deep] };
    expect(propertiesOf(spec, deep).has('bottom')).toBe(false);
    expect(propertiesOf(spec, (deep['allOf'] as JsonObject[])[0]).has('bottom')).toBe(true);
  });

  it('visits each declaration at any depth, through items, and walks a recursive schema once', () => {
    const seen: string[] = [];
    eachProperty(spec, ref('Node'), (name) => seen.push(name));
    expect(seen).toEqual(['name', 'children']);
    const names = new Set<string>();
    eachProperty(spec, { properties: { outer: { properties: { inner: ref('Card') } } } }, (name) => names.add(name));
    expect([...names].sort()).toEqual(['id', 'inner', 'kind', 'last4', 'outer']);
  });

  it('merges allOf for the mutations: required names united, siblings of a $ref refine it, oneOf left alone', () => {
    const card = mergedSchema(spec, { ...ref('Card'), description: 'a card' })!;
    expect((card['required'] as string[]).sort()).toEqual(['id', 'last4']);
    expect(Object.keys(card['properties'] as JsonObject).sort()).toEqual(['id', 'kind', 'last4']);
    expect(card['description']).toBe('a card');
    expect(mergedSchema(spec, ref('Payment'))!['oneOf']).toBeDefined();
  });
});
