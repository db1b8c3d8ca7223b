/**
 * DSSE (Dead Simple Signing Envelope, github.com/secure-systems-lab/dsse) around an in-toto Statement v1: the
 * format sigstore, in-toto and SLSA tooling read. The signature covers PAE(payloadType, payload), never JSON text.
 */
import { sign, verify, type KeyObject } from 'node:crypto';
import { fingerprintOf } from './keys.js';

export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';

export interface Envelope {
  payloadType: string;
  /** Base64 of the statement's JSON. */
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

export interface Statement<P> {
  _type: typeof STATEMENT_TYPE;
  subject: { name: string; digest: { sha256: string } }[];
  predicateType: string;
  predicate: P;
}

/** DSSE's pre-authentication encoding: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body. */
export function pae(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${payload.length} `), payload]);
}

export function signStatement<P>(statement: Statement<P>, key: KeyObject): Envelope {
  const payload = Buffer.from(JSON.stringify(statement), 'utf8');
  const sig = sign(null, pae(IN_TOTO_PAYLOAD_TYPE, payload), key);
  return { payloadType: IN_TOTO_PAYLOAD_TYPE, payload: payload.toString('base64'), signatures: [{ keyid: fingerprintOf(key), sig: sig.toString('base64') }] };
}

/** The statement when one signature verifies with the key; otherwise why not. */
export function openEnvelope<P>(envelope: Envelope, key: KeyObject): { statement: Statement<P> } | { problem: string } {
  if (envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE) return { problem: `payloadType is ${JSON.stringify(envelope.payloadType)}, not ${IN_TOTO_PAYLOAD_TYPE}` };
  const payload = Buffer.from(envelope.payload ?? '', 'base64');
  const signed = pae(envelope.payloadType, payload);
  const ok = (envelope.signatures ?? []).some((s) => {
    try {
      return verify(null, signed, key, Buffer.from(s.sig, 'base64'));
    } catch {
      return false;
    }
  });
  if (!ok) {
    const ids = (envelope.signatures ?? []).map((s) => s.keyid).join(', ') || 'none';
    return { problem: `the signature does not verify with the public key ${fingerprintOf(key)} (signed by ${ids})` };
  }
  let statement: Statement<P>;
  try {
    statement = JSON.parse(payload.toString('utf8')) as Statement<P>;
  } catch {
    return { problem: 'the signed payload is not JSON' };
  }
  if (statement._type !== STATEMENT_TYPE) return { problem: `the signed payload is not an in-toto Statement v1 (_type ${JSON.stringify(statement._type)})` };
  return { statement };
}
