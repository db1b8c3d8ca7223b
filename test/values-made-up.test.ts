/** The one rule on values made up from the document (src/values/made-up.ts). */
import { describe, expect, it } from 'vitest';
import { madeUpRefusal, notFoundMadeUp } from '../src/values/made-up.js';
import type { MadeUpValue } from '../src/http/request-parts.js';

const id: MadeUpValue = { in: 'path', name: 'card_token', value: 'card_x1y2z3', origin: 'generated' };
const ref: MadeUpValue = { in: 'body', name: 'account_id', value: 'acc_123456', origin: 'example' };

describe('an answer that only says a made-up resource does not exist', () => {
  it('is a 404 or 410 for any made-up path value, or a 422 that names the made-up value or its member', () => {
    expect(notFoundMadeUp({ status: 404, text: '' }, [id])).toEqual([id]);
    expect(notFoundMadeUp({ status: 410, text: '' }, [id])).toEqual([id]);
    expect(notFoundMadeUp({ status: 422, text: '{"message":"account acc_123456 does not exist"}' }, [id, ref])).toEqual([ref]);
    expect(notFoundMadeUp({ status: 422, text: '{"message":"amount must be positive"}' }, [id, ref])).toEqual([]);
    // A vendor that names the member, not the value (its message may spell the id its own way).
    expect(notFoundMadeUp({ status: 422, text: '{"error":{"message":"/account_id: no such account"}}' }, [id, ref])).toEqual([ref]);
    expect(notFoundMadeUp({ status: 422, text: '{"error":{"message":"/account_identity: too long"}}' }, [id, ref])).toEqual([]);
    expect(notFoundMadeUp({ status: 400, text: 'card_x1y2z3' }, [id])).toEqual([]);
    expect(notFoundMadeUp({ status: 404, text: '' }, [])).toEqual([]);
    // A made-up date or enum beside real ids names nothing: the target's 404 is its own.
    const since: MadeUpValue = { in: 'query', name: 'since', value: '2026-10-26', origin: 'generated' };
    expect(notFoundMadeUp({ status: 404, text: '' }, [since])).toEqual([]);
    expect(notFoundMadeUp({ status: 422, text: 'since 2026-10-26 is too early' }, [since])).toEqual([]);
    const account: MadeUpValue = { in: 'query', name: 'accountId', value: '42', origin: 'generated' };
    expect(notFoundMadeUp({ status: 404, text: '' }, [since, account])).toEqual([account]);
  });

  it('skips the check with the cause, except where the answer must come whatever the id', () => {
    expect(madeUpRefusal({ status: 404, text: '' }, [id], undefined)).toMatch(/made-up path card_token=card_x1y2z3 \(made from its schema\)/);
    expect(madeUpRefusal({ status: 404, text: '' }, [id], 'no-tenant')).toBeDefined();
    for (const probe of ['no-key', 'bad-key', 'unknown-id'] as const) expect(madeUpRefusal({ status: 404, text: '' }, [id], probe)).toBeUndefined();
    expect(madeUpRefusal({ status: 200, text: '{}' }, [id], undefined)).toBeUndefined();
  });
});
