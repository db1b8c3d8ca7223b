/** The DSSE envelope is the standard one, so that tooling other than this suite can check a package's signature. */
import { generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openEnvelope, pae, signStatement, STATEMENT_TYPE } from '../src/certify/dsse.js';

describe('DSSE', () => {
  it("pre-authentication encoding is the specification's (its test vector)", () => {
    expect(pae('http://example.com/HelloWorld', Buffer.from('hello world')).toString()).toBe('DSSEv1 29 http://example.com/HelloWorld 11 hello world');
  });

  it('a signature verifies over PAE(payloadType, payload) with plain Ed25519, and not over another payload', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const env = signStatement({ _type: STATEMENT_TYPE, subject: [{ name: 'a', digest: { sha256: '00' } }], predicateType: 'x', predicate: {} }, privateKey);
    const payload = Buffer.from(env.payload, 'base64');
    expect(verify(null, pae(env.payloadType, payload), publicKey, Buffer.from(env.signatures[0]!.sig, 'base64'))).toBe(true);
    expect('statement' in openEnvelope(env, publicKey)).toBe(true);
    const forged = { ...env, payload: Buffer.from(payload.toString().replace('"a"', '"b"')).toString('base64') };
    expect(openEnvelope(forged, publicKey)).toEqual({ problem: expect.stringMatching(/^the signature does not verify with the public key SHA256:/) });
  });
});
