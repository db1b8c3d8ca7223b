/** A certificate generated at each start, for loopback, written to a temporary directory clients can trust. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface Certificate {
  key: string;
  cert: string;
  dir: string;
  caFile: string;
  remove(): void;
}

export async function createCertificate(host: string): Promise<Certificate> {
  const altNames: { type: 2 | 7; value?: string; ip?: string }[] = [
    { type: 2, value: 'localhost' },
    { type: 7, ip: '127.0.0.1' },
    { type: 7, ip: '::1' },
  ];
  if (!['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::'].includes(host)) {
    altNames.push(isIP(host) ? { type: 7, ip: host } : { type: 2, value: host });
  }
  const notBefore = new Date(Date.now() - 60_000);
  const pems = await generate([{ name: 'commonName', value: 'fsapi-conformance sandbox' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: notBefore,
    notAfterDate: new Date(notBefore.getTime() + 30 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-sandbox-'));
  const caFile = join(dir, 'sandbox-ca.pem');
  writeFileSync(caFile, pems.cert, { mode: 0o644 });
  return { key: pems.private, cert: pems.cert, dir, caFile, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
