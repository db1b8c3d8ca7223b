/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com/): HMAC-SHA256 over `{id}.{timestamp}.{body}`,
 * keyed with the base64-decoded part of a `whsec_` secret, sent as `v1,<base64>`; several space-separated
 * signatures allow secret rotation. Shared by the sandbox (signing) and the suite (verifying), and pinned to the
 * specification's published test vector by test/webhook-signature.test.ts so both cannot drift together.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const DEFAULT_TOLERANCE_SECONDS = 300;

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

export type VerifyResult =
  | { ok: true }
  | { ok: false; reason: 'missing-headers' | 'bad-timestamp' | 'timestamp-out-of-tolerance' | 'no-matching-signature' };

/** Verifies the three webhook-* headers (names in lower case) against the raw body. */
export function verify(
  secret: string,
  headers: Record<string, string | undefined>,
  body: string,
  opts: { nowSeconds?: number; toleranceSeconds?: number } = {},
): VerifyResult {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sigs = headers['webhook-signature'];
  if (!id || !ts || !sigs) return { ok: false, reason: 'missing-headers' };
  if (!/^\d+$/.test(ts)) return { ok: false, reason: 'bad-timestamp' };
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(ts)) > (opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    return { ok: false, reason: 'timestamp-out-of-tolerance' };
  }
  const expected = Buffer.from(sign(secret, id, Number(ts), body).slice(3), 'base64');
  for (const candidate of sigs.split(' ')) {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const got = Buffer.from(value, 'base64');
    if (got.length === expected.length && timingSafeEqual(got, expected)) return { ok: true };
  }
  return { ok: false, reason: 'no-matching-signature' };
}
