/**
 * Units of the flow helpers (src/world/flow-support.ts). The flows themselves are proven against the sandbox by the
 * fault matrix (test/selfcheck.test.ts): the clean run passes every flow, each flow fault fails exactly its flow
 * requirements.
 */
import { describe, expect, it } from 'vitest';
import { firstDifference, LONG_NUMBER, sameJson, show, times, units } from '../src/world/flow-support.js';

describe('flow helpers', () => {
  it('does decimal money exactly', () => {
    expect(units('100.00')).toBe(10_000_000_000n);
    expect(units('0.9200')).toBe(92_000_000n);
    expect(units(12.5)).toBe(1_250_000_000n);
    expect(show(units('72.3304'))).toBe('72.3304');
    expect(show(units('-5.1'))).toBe('-5.10');
    expect(show(times(units('78.62'), units('0.92')))).toBe('72.3304');
    expect(() => units('12,50')).toThrow(/not a decimal amount/);
  });

  it('finds a card-length digit run, and not a shorter or longer one', () => {
    expect(LONG_NUMBER.test('{"metadata":{"pan":"4242424242424242"}}')).toBe(true);
    expect(LONG_NUMBER.test('{"last4":"4242","account_number":"4012345678","at":"2026-03-01T11:10:00Z"}')).toBe(false);
    expect(LONG_NUMBER.test('12345678901234567890')).toBe(false);
  });

  it('compares JSON regardless of member order and names the first difference', () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(firstDifference({ id: 'e', created_at: 'x' }, { created_at: 'y', id: 'e' })).toBe('created_at: "x" vs "y"');
  });
});
