/** Effects are judged on what the target shows of the request, never on a state that changes by itself. */
import { describe, expect, it } from 'vitest';
import { CheckFailure, CheckSkipped } from '../src/harness/assert.js';
import { expectUnchanged } from '../src/checks/support.js';

const probe = (reads: string[]) => {
  let i = 0;
  return { what: 'the resource', read: async () => reads[Math.min(i++, reads.length - 1)]! };
};

describe('expectUnchanged', () => {
  it('passes when the state reads as before', async () => {
    await expect(expectUnchanged(probe(['a']), 'a', 'a request without a key')).resolves.toBeUndefined();
  });
  it('fails when the state changed and stays changed: the request took effect', async () => {
    await expect(expectUnchanged(probe(['b', 'b']), 'a', 'a request without a key')).rejects.toBeInstanceOf(CheckFailure);
  });
  it('skips when the state reads differently each time (a mock that makes up answers): nothing to judge', async () => {
    const e = await expectUnchanged(probe(['b', 'c']), 'a', 'a request without a key').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CheckSkipped);
    expect((e as CheckSkipped).message).toMatch(/reads differently each time/);
  });
});
