/** Standard Webhooks signing, pinned to the specification's own published vector. */
import { describe, expect, it } from 'vitest';
import { sign, verify } from '../src/webhooks/signature.js';

// From the Standard Webhooks reference library's tests (sign function works).
const vector = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const headers = (sig = vector.signature) => ({ 'webhook-id': vector.id, 'webhook-timestamp': String(vector.timestamp), 'webhook-signature': sig });

describe('Standard Webhooks signature', () => {
  it('signs the published vector exactly', () => {
    expect(sign(vector.secret, vector.id, vector.timestamp, vector.body)).toBe(vector.signature);
  });

  it('verifies it, with or without the whsec_ prefix, among rotated signatures', () => {
    expect(verify(vector.secret, headers(), vector.body, { nowSeconds: vector.timestamp })).toEqual({ ok: true });
    expect(verify(vector.secret.slice(6), headers(), vector.body, { nowSeconds: vector.timestamp })).toEqual({ ok: true });
    const rotated = `v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,abc ${vector.signature}`;
    expect(verify(vector.secret, headers(rotated), vector.body, { nowSeconds: vector.timestamp })).toEqual({ ok: true });
  });

  it('rejects a changed body, another secret, a stale timestamp and missing headers', () => {
    const at = { nowSeconds: vector.timestamp };
    expect(verify(vector.secret, headers(), vector.body + ' ', at)).toMatchObject({ ok: false, reason: 'no-matching-signature' });
    expect(verify('whsec_' + Buffer.from('another').toString('base64'), headers(), vector.body, at).ok).toBe(false);
    expect(verify(vector.secret, headers(), vector.body, { nowSeconds: vector.timestamp + 301 })).toMatchObject({ reason: 'timestamp-out-of-tolerance' });
    expect(verify(vector.secret, { 'webhook-id': vector.id }, vector.body, at)).toMatchObject({ reason: 'missing-headers' });
    expect(verify(vector.secret, headers('v1,'), vector.body, at).ok).toBe(false);
  });
});
