/**
 * A document's patterns run in linear time (issue 34): a pattern a backtracking engine spins on is judged at once,
 * and one the linear-time engine cannot run skips what needs it, naming the construct, the schema path and the
 * operation, instead of spinning a worker. Each case below ran for hours (or allocated gigabytes) on ECMAScript's engine.
 */
import { describe, expect, it } from 'vitest';
import { loadSpec, requestMediaOf } from '../src/catalogue/openapi.js';
import { linearPattern, matchesLinear, UnsupportedPattern } from '../src/catalogue/linear-pattern.js';
import { outcomeOf } from '../src/harness/judge.js';
import { invalidValue } from '../src/checks/mutations.js';
import { fromRoot } from '../src/paths.js';
import { TrafficObserver } from '../src/harness/observer.js';
import { evaluatorsFor, judgeTraffic } from '../src/checks/traffic.js';
import type { HttpResponse } from '../src/http/client.js';
import { generateValid, loadGenerator } from '../src/values/generate.js';

await loadGenerator();
const spec = await loadSpec(fromRoot('test', 'fixtures', 'values', 'hostile-patterns.yaml'));
const op = (id: string) => spec.byId.get(id)!;
/** 2^40 ways to split for a backtracking engine: its match would not end within any test's time. */
const HOSTILE = `${'a'.repeat(40)}!`;

describe("a document's patterns", () => {
  it('judge a value a backtracking engine spins on, at once', () => {
    expect(spec.validateResponse(op('createThing'), 201, 'application/json', { code: HOSTILE })).toMatchObject({ kind: 'schema', problems: [{ pointer: '/code' }] });
    expect(spec.validateResponse(op('createThing'), 201, 'application/json', { code: 'aaaa', country: 'FR' })).toEqual({ kind: 'ok' });
    expect(spec.validateRequestBody(op('createThing'), { code: HOSTILE })).toMatchObject([{ pointer: '/code' }]);
  });

  it('are read as ECMAScript writes them (\\u escapes), not as RE2 would', () => {
    expect(spec.validateResponse(op('createThing'), 201, 'application/json', { code: 'a', country: 'fr' })).toMatchObject({ kind: 'schema', problems: [{ pointer: '/country' }] });
    expect(matchesLinear('^(?<year>\\d{4})$', '2026')).toBe(true);
    expect(matchesLinear('[^]', '\n')).toBe(true);
  });

  it("with lookaheads at their start (Mollie's descriptions, the profile's positive amounts) mean what ECMAScript makes of them", () => {
    const cases: [string, string[]][] = [
      ["^(?![:\\-]$)(?!.*(--|::))([a-zA-Z0-9]+[\\s]*[a-zA-Z0-9/\\-?:().,'+_ ]*)?$", ['', ':', '-', 'Order 12', 'a--b', 'a::b', 'a-b:c', 'x(y)', '::']],
      ['^(?=.*[1-9])(0|[1-9][0-9]{0,14})(\\.[0-9]{1,2})?$', ['0', '0.00', '0.01', '10', '10.5', '01', '1.234', '.5', '']],
      ['^(?=(a))\\w+$', ['abc', 'bc']],
    ];
    for (const [pattern, texts] of cases) for (const text of texts) expect(matchesLinear(pattern, text), `${pattern} on ${JSON.stringify(text)}`).toBe(new RegExp(pattern, 'u').test(text));
  });

  it('that the linear engine cannot run throw where a value meets them, naming the construct, the schema path and the operation', () => {
    expect(() => spec.validateResponse(op('createNote'), 201, 'application/json', { memo: 'ok' })).toThrow(UnsupportedPattern);
    let thrown: unknown;
    try {
      spec.validateResponse(op('createNote'), 201, 'application/json', { memo: 'ok' });
    } catch (e) {
      thrown = e;
    }
    expect((thrown as Error).message).toMatch(/^validating createNote's 201 answer: the document's pattern .* at #\/components\/schemas\/Memo\/pattern uses a lookahead/);
    // A value that never reaches the pattern is validated as usual.
    expect(spec.validateResponse(op('createNote'), 201, 'application/json', {})).toEqual({ kind: 'ok' });
    // A check that meets it is skipped with that cause, never failed.
    expect(outcomeOf(thrown, 'MUST', false)).toEqual({ status: 'skipped', message: (thrown as Error).message });
    expect(() => linearPattern('^(a)\\1$').test('aa')).toThrow(/a backreference/);
  });

  it("that the engine cannot run leave an answer's schema unjudged, and only that: its status and media type are judged", () => {
    const observer = new TrafficObserver(evaluatorsFor(spec));
    const body = { memo: 'ok' };
    const res = { status: 201, headers: { 'content-type': 'application/json' }, text: JSON.stringify(body), json: body, contentType: 'application/json', sizeBytes: 13, durationMs: 1, exchange: { request: { method: 'POST', url: 'https://api.example.test/v1/notes', headers: {} } } } as unknown as HttpResponse;
    observer.observe(op('createNote'), res);
    expect(observer.unjudged('createNote', 'FSAPI-CONTRACT-001')).toMatch(/^validating createNote's 201 answer: .*#\/components\/schemas\/Memo\/pattern uses a lookahead/);
    expect(observer.applicable('createNote', 'FSAPI-CONTRACT-001')).toBe(0);
    for (const judged of ['FSAPI-CONTRACT-002', 'FSAPI-CONTRACT-003']) {
      expect(observer.unjudged('createNote', judged)).toBeUndefined();
      expect(observer.applicable('createNote', judged)).toBe(1);
    }
    // verify's judgement over the recorded traffic reads it the same way.
    expect(judgeTraffic(spec, op('createNote'), 'FSAPI-CONTRACT-002', [{ res }])).toEqual({ applicable: 1, findings: [] });
    expect(judgeTraffic(spec, op('createNote'), 'FSAPI-CONTRACT-001', [{ res }])).toEqual({ applicable: 0, findings: [] });
  });

  it('end the making of a value that needs one the engine cannot run, with its cause, and never build a string of a huge repeat', () => {
    const memo = generateValid(spec, requestMediaOf(op('createNote'))!.schema, 1);
    expect(memo).toMatchObject({ ok: false, problems: [{ message: expect.stringMatching(/#\/components\/schemas\/Memo\/pattern uses a lookahead/) }] });
    const code = generateValid(spec, requestMediaOf(op('createCode'))!.schema, 1);
    expect(code).toMatchObject({ ok: false, problems: [{ message: expect.stringMatching(/paths\/~1codes\/post\/.*\/pattern uses a repeat count over 1,000/) }] });
  });

  it('get a near miss for an invalid body only where the engine proves it one', () => {
    expect(invalidValue({ type: 'string', pattern: '^(a+)+$' })).toMatchObject({ constraint: expect.stringContaining('pattern') });
    expect(invalidValue({ type: 'string', pattern: '^a(?!x)(a+)+$' })?.constraint ?? '').not.toContain('pattern');
  });
});
