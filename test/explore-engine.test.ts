/**
 * The exploration engine (src/explore) offline, over the reference profile's createCustomer: a fake target that
 * crashes as the sandbox's input-crash faults do (sandbox/input-crashes.ts, the same predicate) and accepts
 * everything else. Only requests valid for the document are sent; the budget holds; the same seed explores the same
 * inputs; a failure shrinks to its minimal value.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, type SpecDocument } from '../src/catalogue/openapi.js';
import { REFERENCE_SPEC_PATH } from '../src/catalogue/index.js';
import type { HttpResponse } from '../src/http/client.js';
import type { RequestParts } from '../src/http/request-parts.js';
import { loadGenerator } from '../src/values/generate.js';
import { bodyProblems } from '../src/values/request-validity.js';
import { explore, type ExploreIO } from '../src/explore/explore.js';
import { inputSlots } from '../src/explore/input-space.js';
import { planVariants } from '../src/explore/variants.js';
import { SHRINK_BUDGET } from '../src/explore/shrink.js';
import { inputCrash } from '../sandbox/input-crashes.js';
import { parseFaults } from '../sandbox/faults.js';
import type { CheckResult } from '../src/results/model.js';
import { exploreFamily, isServerError } from '../src/checks/explore.js';
import { preconditionFailure, type PreconditionSettings } from '../src/harness/preconditions.js';
import { EXPLORATION_OFF, EXPLORATION_TOTAL_SPENT, EXPLORE_5XX_VARIANT, EXPLORE_VARIANT, exploreAllocation, explorationLine } from '../src/results/exploration.js';

let spec: SpecDocument;
beforeAll(async () => {
  spec = await loadSpec(REFERENCE_SPEC_PATH);
  await loadGenerator();
});

const base = (): RequestParts => ({
  pathParams: {},
  body: {
    first_name: 'Ana',
    last_name: 'Lima',
    email: 'ana.run1@fsapi-conformance.test',
    phone: '+14155550100',
    type: 'individual',
    date_of_birth: '1990-05-17',
    address: { address_line1: '1 Main St', city: 'Springfield', state: 'US-IL', postal_code: '62701', country: 'US' },
  },
});

/** A target that answers 500 where the fault's predicate says so, 201 otherwise; it records what it was sent. */
function target(faults: string[]): ExploreIO & { sent: RequestParts[] } {
  const op = spec.byId.get('createCustomer')!;
  const set = parseFaults(faults);
  const sent: RequestParts[] = [];
  return {
    sent,
    problems: (parts) => bodyProblems(spec, op, parts.body).map((p) => p.message),
    async send(parts) {
      sent.push(parts);
      const status = inputCrash(spec, set, op, parts.body, new URLSearchParams()) ? 500 : 201;
      return { status } as HttpResponse;
    },
  };
}

const judge = { crash: { why: (res: HttpResponse) => (res.status >= 500 ? `answered ${res.status}` : undefined) } };

describe('the exploration engine', () => {
  it('base request is valid for the document (the fixture of every case below)', () => {
    expect(bodyProblems(spec, spec.byId.get('createCustomer')!, base().body)).toEqual([]);
  });

  it('sends only requests valid for the document, at most the budget, and says what the budget left', async () => {
    const io = target([]);
    const out = await explore(spec, spec.byId.get('createCustomer')!, base(), 11, 8, io, judge);
    expect(out.sent).toBe(8);
    expect(io.sent).toHaveLength(8);
    for (const p of io.sent) expect(io.problems(p)).toEqual([]);
    expect(out.unexplored).toBeGreaterThan(0);
    expect(out.found.crash.failures).toEqual([]);
    const all = await explore(spec, spec.byId.get('createCustomer')!, base(), 11, 200, target([]), judge);
    expect(all.unexplored).toBe(0);
    expect(all.sent).toBeGreaterThan(8);
  });

  it('explores the same inputs for the same seed, and other inputs for another', () => {
    const op = spec.byId.get('createCustomer')!;
    const valid = (p: RequestParts) => bodyProblems(spec, op, p.body).length === 0;
    const list = (seed: number) => [...planVariants(spec, base(), inputSlots(spec, op, base()), seed, valid).variants].map((v) => JSON.stringify(v.parts.body));
    expect(list(5)).toEqual(list(5));
    expect(list(5)).not.toEqual(list(6));
  });

  it('puts every kind of edge on some member within a dozen requests, each of them valid', () => {
    const op = spec.byId.get('createCustomer')!;
    const valid = (p: RequestParts) => bodyProblems(spec, op, p.body).length === 0;
    const first = [...planVariants(spec, base(), inputSlots(spec, op, base()), 1, valid).variants].slice(0, 12);
    for (const v of first) expect(valid(v.parts)).toBe(true);
    const kinds = first.flatMap((v) => v.changes.map((c) => c.kind));
    for (const k of ['double quote', 'backslash', 'percent sign', 'unicode: emoji', 'unicode: combining mark', 'e-mail: long domain label', 'e-mail: IDN domain']) expect(kinds, k).toContain(k);
    for (const k of ['unicode: accented letter', 'e-mail: plus-addressed', 'date: leap day', 'maxLength 100', 'optional member present']) expect(kinds, k).toContain(k);
  });

  it.each([
    ['crash-non-ascii', /^[^\x00-\x7f]$/u],
    ['crash-emoji', /^😀$/u],
    ['crash-backslash', /^\\$/],
    ['crash-percent', /^%$/],
  ])('catches %s and shrinks it to the one offending character', async (fault, char) => {
    const out = await explore(spec, spec.byId.get('createCustomer')!, base(), 3, 40, target([fault]), judge);
    expect(out.found.crash.failures.length).toBeGreaterThan(0);
    const m = out.found.crash.minimal!;
    expect(m.shrunk.trigger).toMatch(char);
    expect([...String(m.shrunk.value)].filter((c) => c !== 'a').join('')).toBe(m.shrunk.trigger);
    expect(m.shrunk.requests).toBeLessThanOrEqual(SHRINK_BUDGET);
    expect(m.shrunk.changes).toHaveLength(1);
  });

  it('shrinks a length failure to plain letters of that length, and a plus-addressed e-mail to a shorter one still with its plus', async () => {
    const long = await explore(spec, spec.byId.get('createCustomer')!, base(), 3, 40, target(['crash-max-length']), judge);
    expect(long.found.crash.minimal!.shrunk.value).toBe('a'.repeat(100));
    const plus = await explore(spec, spec.byId.get('createCustomer')!, base(), 3, 40, target(['crash-plus-email']), judge);
    const shrunk = String(plus.found.crash.minimal!.shrunk.value);
    expect(shrunk).toMatch(/\+.*@/);
    // The "@" and "." an e-mail needs are kept for validity, not named as what triggers it.
    expect(plus.found.crash.minimal!.shrunk.trigger ?? '+').toBe('+');
    const original = plus.found.crash.minimal!.failure.variant.changes.find((c) => c.slot.path[0] === 'email')!.value;
    expect(shrunk.length).toBeLessThan(String(original).length);
  });
});

describe('judgements over one exploration', () => {
  it('shrinks once for the judgements that found the same first answer, and gives each its own minimal request', async () => {
    const io = target(['crash-non-ascii']);
    const judgements = { ...judge, server: { why: (res: HttpResponse) => (isServerError(res.status) ? `answered ${res.status}` : undefined) } };
    const out = await explore(spec, spec.byId.get('createCustomer')!, base(), 3, 40, io, judgements);
    expect(out.found.server.failures.length).toBe(out.found.crash.failures.length);
    expect(out.found.server.minimal!.shrunk).toBe(out.found.crash.minimal!.shrunk);
    expect(out.shrinkRequests).toBe(out.found.crash.minimal!.shrunk.requests);
  });

  it('a refusal is shrunk to its one change on the valid request, every other member kept as it was', async () => {
    const io = target([]);
    const refuses = { refused: { why: (res: HttpResponse) => (res.status === 422 ? 'refused' : undefined), changeOnly: true } };
    // A target that refuses any last_name holding a non-ASCII letter with a 422, and accepts the rest.
    const send = io.send;
    io.send = async (parts) => (/[^\x00-\x7f]/.test(String((parts.body as { last_name?: unknown }).last_name)) ? ({ status: 422 } as HttpResponse) : send(parts));
    const out = await explore(spec, spec.byId.get('createCustomer')!, base(), 3, 40, io, refuses);
    const m = out.found.refused.minimal!;
    expect(m.shrunk.changes.map((c) => c.slot.path.join('.'))).toEqual(['last_name']);
    expect(m.shrunk.dropped).toEqual([]);
    // The minimal request is the valid request with that one member changed.
    const { last_name: _changed, ...rest } = m.shrunk.parts.body as Record<string, unknown>;
    const { last_name: _was, ...baseRest } = base().body as Record<string, unknown>;
    expect(rest).toEqual(baseRest);
    expect(m.shrunk.trigger).toMatch(/^[^\x00-\x7f]+$/u);
  });

  it('a 503 is back-pressure, not a server error; every other 5xx is one', () => {
    expect([500, 501, 502, 503, 504, 422, 200].map(isServerError)).toEqual([true, true, true, false, true, false, false]);
  });
});

describe('what the run and verify decide before any request', () => {
  const settings = (explore: number): PreconditionSettings => ({
    isReferenceProfile: true,
    environment: 'sandbox',
    allowLiveWrites: false,
    explore,
    has: { second_tenant: true, public_key: true, revoked_key: true, live_key: true, webhooks: true, plainHttp: true },
  });

  it('plans no exploration of an operation whose body can only be {} (freezeCard): nothing to vary, nothing to skip at run time', () => {
    const planned = (id: string) => exploreFamily.forOperation!(spec.byId.get(id)!, { spec, isReferenceProfile: true }).map((d) => d.variant);
    expect(planned('freezeCard')).toEqual([]);
    expect(planned('createCustomer')).toEqual([EXPLORE_VARIANT, EXPLORE_5XX_VARIANT]);
  });

  it('--explore 0 skips each exploration check as not applicable before any request, from the settings a report records', () => {
    for (const def of exploreFamily.forOperation!(spec.byId.get('createCustomer')!, { spec, isReferenceProfile: true })) {
      expect(preconditionFailure(def, settings(0), spec)).toEqual({ reason: EXPLORATION_OFF, cause: 'not-applicable' });
      expect(preconditionFailure(def, settings(24), spec)).toBeUndefined();
    }
    expect(EXPLORATION_OFF).toBe('the exploration phase is off (--explore 0, FSAPI_EXPLORE=0)');
  });

  it('shares the total out when the run is planned: an even share at most the per-operation budget, or one each to the first operations by id', () => {
    const planned = ['listB', 'createA', 'updateC', 'createA'].flatMap((operation) => [
      { variant: EXPLORE_VARIANT, operation },
      { variant: EXPLORE_5XX_VARIANT, operation },
    ]);
    expect(exploreAllocation(24, 1000, planned)).toEqual({ perOperation: 24, leftOut: [] });
    expect(exploreAllocation(24, 30, planned)).toEqual({ perOperation: 10, leftOut: [] });
    expect(exploreAllocation(24, 2, planned)).toEqual({ perOperation: 1, leftOut: ['updateC'] });
    expect(exploreAllocation(24, 0, planned)).toEqual({ perOperation: 24, leftOut: [] });
    expect(exploreAllocation(0, 30, planned)).toEqual({ perOperation: 0, leftOut: [] });
    // What it leaves out is skipped before any request, both checks of the operation, from the settings alone.
    for (const def of exploreFamily.forOperation!(spec.byId.get('updateCustomer')!, { spec, isReferenceProfile: true })) {
      expect(preconditionFailure(def, { ...settings(24), exploreLeftOut: ['updateCustomer'] }, spec)).toEqual({ reason: EXPLORATION_TOTAL_SPENT, cause: 'not-applicable' });
    }
  });

  it("the headline counts the operations the budget of 0 left unexplored, not those skipped for another reason", () => {
    const skipped = (op: string, message: string) => ({ id: `FSAPI-CONTRACT-002 ${op} ${EXPLORE_VARIANT}`, status: 'skipped', skip_cause: 'not-applicable', message }) as unknown as CheckResult;
    const checks = [skipped('createCustomer', EXPLORATION_OFF), skipped('updateCustomer', EXPLORATION_OFF), skipped('odd', 'operation odd: its path holds a query string')];
    expect(explorationLine(checks)).toBe('exploration off (--explore 0): 2 operations not explored');
    expect(explorationLine([checks[2]!])).toBeUndefined();
  });
});
