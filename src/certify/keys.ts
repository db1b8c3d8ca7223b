/** Ed25519 signing keys for certification packages (node:crypto only: no native dependency). */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { UsageError } from '../errors.js';

export interface KeyPairFiles {
  privatePath: string;
  publicPath: string;
  fingerprint: string;
}

/** Writes PREFIX.key (PKCS#8 PEM, mode 0600) and PREFIX.pub (SPKI PEM); refuses to overwrite a private key. */
export function writeKeyPair(prefix: string): KeyPairFiles {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privatePath = `${prefix}.key`;
  const publicPath = `${prefix}.pub`;
  try {
    writeFileSync(privatePath, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new UsageError(`${privatePath} already exists: choose another --out, or remove it if you mean to replace that key`);
    throw new UsageError(`cannot write ${privatePath}: ${(e as Error).message}`);
  }
  writeFileSync(publicPath, publicKey.export({ type: 'spki', format: 'pem' }));
  return { privatePath, publicPath, fingerprint: fingerprintOf(publicKey) };
}

/** `SHA256:<base64>` of the public key's DER (SubjectPublicKeyInfo), as ssh-keygen -l prints a key's. */
export function fingerprintOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return `SHA256:${createHash('sha256').update(pub.export({ type: 'spki', format: 'der' })).digest('base64').replace(/=+$/, '')}`;
}

function readKeyText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read the ${what} ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message} (make one with: fsapi-conformance keygen --out PREFIX)`);
  }
}

/** A PEM Ed25519 key of the given kind, or one message saying what the file is instead. */
function loadKey(path: string, kind: 'private' | 'public'): KeyObject {
  const text = readKeyText(path, `${kind} key`);
  let key: KeyObject;
  try {
    key = kind === 'private' ? createPrivateKey(text) : createPublicKey(text);
  } catch {
    throw new UsageError(`${path} is not a PEM ${kind} key (expected the PREFIX.${kind === 'private' ? 'key' : 'pub'} that fsapi-conformance keygen writes)`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new UsageError(`${path} is a ${key.asymmetricKeyType ?? 'unknown'} key; certification packages are signed with Ed25519 (fsapi-conformance keygen)`);
  return key;
}

export const loadPrivateKey = (path: string): KeyObject => loadKey(path, 'private');
export const loadPublicKey = (path: string): KeyObject => loadKey(path, 'public');
