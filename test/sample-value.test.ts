/** Values for the parameters a vendor's document requires and the suite has nothing of its own for. */
import { describe, expect, it } from 'vitest';
import { sampleParameterValue } from '../src/catalogue/sample-value.js';

describe('sampleParameterValue', () => {
  it('takes the document first: example, default, enum (through a component), then a plain value of the type', () => {
    expect(sampleParameterValue({ name: 'x', example: 'ex', schema: { type: 'string', default: 'd' } })).toBe('ex');
    expect(sampleParameterValue({ name: 'x', example: undefined, schema: { type: 'string', default: 'd', enum: ['a'] } })).toBe('d');
    const spec = { schemaAt: (ref: string) => (ref === '#/components/schemas/EntityType' ? { type: 'string', enum: ['accountHolder', 'legalEntity'] } : undefined) };
    expect(sampleParameterValue({ name: 'entityType', example: undefined, schema: { $ref: '#/components/schemas/EntityType' } }, spec)).toBe('accountHolder');
    expect(sampleParameterValue({ name: 'pageSize', example: undefined, schema: { type: 'integer', minimum: 1, maximum: 10 } })).toBe(1);
    expect(sampleParameterValue({ name: 'flag', example: undefined, schema: { type: 'boolean' } })).toBe(true);
  });

  it('asks a history for the last thirty days: a since/from date thirty days back, an until/to date today', () => {
    const since = sampleParameterValue({ name: 'createdSince', example: undefined, schema: { type: 'string', format: 'date-time' } });
    const until = sampleParameterValue({ name: 'createdUntil', example: undefined, schema: { type: 'string', format: 'date-time' } });
    const days = (Date.parse(String(until)) - Date.parse(String(since))) / 86_400_000;
    expect(Math.round(days)).toBe(30);
    expect(sampleParameterValue({ name: 'end_date', example: undefined, schema: { type: 'string', format: 'date' } })).toBe(new Date().toISOString().slice(0, 10));
  });
});
