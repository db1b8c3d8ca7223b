/**
 * The embedded sandbox's certificate is kept between runs (sandbox/tls.ts), but only while it is fit for use: a kept
 * file that is edited, truncated, expiring or paired with another key is replaced, never trusted. A sandbox others
 * are told to trust (reuse off) always gets a fresh one.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCertificate } from '../sandbox/tls.js';

const realTmp = process.env['TMPDIR'];
let tmp = '';
beforeEach(() => {
  // os.tmpdir() reads TMPDIR at each call: the cache goes to a folder of this test's own.
  tmp = mkdtempSync(join(tmpdir(), 'fsapi-cert-test-'));
  process.env['TMPDIR'] = tmp;
});
afterEach(() => {
  if (realTmp === undefined) delete process.env['TMPDIR'];
  else process.env['TMPDIR'] = realTmp;
});

const keptFile = (root = tmp) => {
  const dir = readdirSync(root).find((d) => d.startsWith('fsapi-conformance-sandbox-cert'))!;
  const [file] = readdirSync(join(root, dir)).filter((f) => f.endsWith('.json'));
  return join(root, dir, file!);
};

/** A pair for the loopback names that ends tomorrow: too close to its end to start a run with. */
async function expiringPair(): Promise<string> {
  const { generate } = await import('selfsigned');
  const notBefore = new Date(Date.now() - 60_000);
  const pems = await generate([{ name: 'commonName', value: 'x' }], {
    keyType: 'ec',
    curve: 'P-256',
    notBeforeDate: notBefore,
    notAfterDate: new Date(Date.now() + 24 * 3600 * 1000),
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] }],
  });
  return JSON.stringify({ key: pems.private, cert: pems.cert });
}

describe('the embedded sandbox certificate kept between runs', () => {
  it('is reused while fit, kept readable by this user alone, and names the loopback addresses', async () => {
    const a = await createCertificate('127.0.0.1', { reuse: true });
    const b = await createCertificate('127.0.0.1', { reuse: true });
    expect(b.cert).toBe(a.cert);
    expect(b.caFile).not.toBe(a.caFile);
    expect(readFileSync(b.caFile, 'utf8')).toBe(a.cert);
    expect(statSync(keptFile()).mode & 0o077).toBe(0);
    const x = new X509Certificate(a.cert);
    expect(x.checkIP('127.0.0.1')).toBe('127.0.0.1');
    a.remove();
    b.remove();
  });

  it('a sandbox others trust gets a fresh one each start, and keeps nothing', async () => {
    const a = await createCertificate('127.0.0.1');
    const b = await createCertificate('127.0.0.1');
    expect(b.cert).not.toBe(a.cert);
    expect(readdirSync(tmp).some((d) => d.startsWith('fsapi-conformance-sandbox-cert'))).toBe(false);
  });

  it('another host gets a certificate of its own', async () => {
    const a = await createCertificate('127.0.0.1', { reuse: true });
    const b = await createCertificate('sandbox.test', { reuse: true });
    expect(b.cert).not.toBe(a.cert);
    expect(new X509Certificate(b.cert).checkHost('sandbox.test')).toBe('sandbox.test');
  });

  it.each([
    ['truncated', (s: string) => s.slice(0, s.length / 2)],
    ['not JSON', () => 'hello'],
    ['the certificate edited', (s: string) => JSON.stringify({ ...JSON.parse(s), cert: (JSON.parse(s) as { cert: string }).cert.replace(/[A-Z]/, 'x') })],
    ['paired with another key', (s: string, other: string) => JSON.stringify({ ...JSON.parse(s), key: (JSON.parse(other) as { key: string }).key })],
    ['ending tomorrow', (_s: string, _other: string, expiring: string) => expiring],
  ])('a kept file %s is replaced, not trusted', async (_what, spoil) => {
    const a = await createCertificate('127.0.0.1', { reuse: true });
    const file = keptFile();
    const first = readFileSync(file, 'utf8');
    // A second pair, for the key swap: made in another cache folder.
    const elsewhere = mkdtempSync(join(tmpdir(), 'fsapi-cert-other-'));
    process.env['TMPDIR'] = elsewhere;
    await createCertificate('127.0.0.1', { reuse: true });
    const other = readFileSync(keptFile(elsewhere), 'utf8');
    process.env['TMPDIR'] = tmp;
    expect(other).not.toBe(first);
    const spoiled = spoil(first, other, await expiringPair());
    writeFileSync(file, spoiled);
    const b = await createCertificate('127.0.0.1', { reuse: true });
    expect(b.cert).not.toBe(a.cert);
    expect(b.cert).not.toBe((JSON.parse(other) as { cert: string }).cert);
    expect(spoiled).not.toContain(b.cert);
    const x = new X509Certificate(b.cert);
    expect(Date.parse(x.validTo) - Date.now()).toBeGreaterThan(20 * 24 * 3600 * 1000);
    // The replacement is kept in its place.
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ key: b.key, cert: b.cert });
  });
});
