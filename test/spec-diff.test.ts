import { describe, expect, it } from 'vitest';
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
