/**
 * The sandbox's certificate, for loopback, written to a temporary directory clients can trust. A sandbox started
 * apart (`fsapi-conformance sandbox`) gets a fresh one at each start: users point other clients at its CA file.
 * The embedded sandbox, trusted only by the run's own client, may reuse one kept in this user's private cache:
 * making one loads an X.509 library and signs, about a third of a second of CPU on every run.
 */
import { X509Certificate, createHash, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateCacheDir } from '../src/cache-dir.js';

export interface Certificate {
  key: string;
  cert: string;
  dir: string;
  caFile: string;
  remove(): void;
}

interface AltName {
  type: 2 | 7;
  value?: string;
  ip?: string;
}

const VALID_DAYS = 30;
/** A kept certificate this close to its end is replaced, so that no run ends with an expired one. */
const RENEW_BEFORE_MS = 2 * 24 * 3600 * 1000;

function altNamesFor(host: string): AltName[] {
  const altNames: AltName[] = [
    { type: 2, value: 'localhost' },
    { type: 7, ip: '127.0.0.1' },
    { type: 7, ip: '::1' },
  ];
  if (!['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::'].includes(host)) {
    altNames.push(isIP(host) ? { type: 7, ip: host } : { type: 2, value: host });
  }
  return altNames;
}

async function generateCertificate(altNames: AltName[]): Promise<{ key: string; cert: string }> {
  // Loaded here: a run that reuses a kept certificate never loads it.
  const { generate } = await import('selfsigned');
  const notBefore = new Date(Date.now() - 60_000);
  const pems = await generate([{ name: 'commonName', value: 'fsapi-conformance sandbox' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: notBefore,
    notAfterDate: new Date(notBefore.getTime() + VALID_DAYS * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

/**
 * A kept pair, when it is whole and fit for use: the certificate parses, names every address asked for, is valid
 * now and for a while yet, and the key is its own. Anything else (a truncated or edited file) is not used.
 */
function keptPair(file: string, altNames: AltName[]): { key: string; cert: string } | undefined {
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { key?: unknown; cert?: unknown };
    if (typeof kept.key !== 'string' || typeof kept.cert !== 'string') return undefined;
    const x509 = new X509Certificate(kept.cert);
    const now = Date.now();
    if (Date.parse(x509.validFrom) > now || Date.parse(x509.validTo) - now < RENEW_BEFORE_MS) return undefined;
    if (!altNames.every((n) => (n.ip ? x509.checkIP(n.ip) : x509.checkHost(n.value!, { wildcards: false })))) return undefined;
    if (!x509.checkPrivateKey(createPrivateKey(kept.key))) return undefined;
    return { key: kept.key, cert: kept.cert };
  } catch {
    return undefined;
  }
}

/** The embedded sandbox's pair: the one kept in the private cache when fit for use, else a new one, kept for next time. */
async function reusablePair(altNames: AltName[]): Promise<{ key: string; cert: string }> {
  const cache = privateCacheDir('fsapi-conformance-sandbox-cert');
  if (!cache) return generateCertificate(altNames);
  const file = join(cache, `${createHash('sha256').update(JSON.stringify(altNames)).digest('hex').slice(0, 16)}.json`);
  const kept = keptPair(file, altNames);
  if (kept) return kept;
  const made = await generateCertificate(altNames);
  try {
    // Written whole under another name, then renamed over: two runs starting at once never read half a file.
    const part = `${file}.${process.pid}.part`;
    writeFileSync(part, JSON.stringify(made), { mode: 0o600 });
    renameSync(part, file);
  } catch {
    // Not kept: the next run makes its own.
  }
  return made;
}

/** `reuse`: the embedded sandbox's certificate, kept between runs (never for a sandbox others are told to trust). */
export async function createCertificate(host: string, opts: { reuse?: boolean } = {}): Promise<Certificate> {
  const altNames = altNamesFor(host);
  const pems = opts.reuse ? await reusablePair(altNames) : await generateCertificate(altNames);
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-sandbox-'));
  const caFile = join(dir, 'sandbox-ca.pem');
  writeFileSync(caFile, pems.cert, { mode: 0o644 });
  return { key: pems.key, cert: pems.cert, dir, caFile, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
