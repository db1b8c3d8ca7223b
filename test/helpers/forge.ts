/**
 * A hostile signer's workbench: the signer holds the key, so a forged package is an honest one unpacked, edited and
 * signed again, with a statement as consistent with the edit as the signer cares to make it. Only verify can catch it.
 */
import { writeFileSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import * as tar from 'tar';
import { gzipSync } from 'node:zlib';
import { signStatement, type Envelope, type Statement } from '../../src/certify/dsse.js';
import { ENVELOPE_FILE, evidenceFile, PACKAGE_DIR, REPORT_FILE, sha256, type CertificationPredicate } from '../../src/certify/layout.js';
import type { RunReport } from '../../src/results/model.js';

export interface Pkg {
  files: Map<string, Buffer>;
  statement: Statement<CertificationPredicate>;
}

/** Every file of a package, in memory (the helper trusts the package: it is the test's own). */
export async function openPkg(path: string): Promise<Pkg> {
  const files = new Map<string, Buffer>();
  await tar.t({
    file: path,
    onReadEntry(entry) {
      const chunks: Buffer[] = [];
      entry.on('data', (c: Buffer) => chunks.push(c));
      entry.on('end', () => files.set(entry.path.slice(PACKAGE_DIR.length + 1), Buffer.concat(chunks)));
    },
  });
  const env = JSON.parse(files.get(ENVELOPE_FILE)!.toString('utf8')) as Envelope;
  files.delete(ENVELOPE_FILE);
  return { files, statement: JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as Statement<CertificationPredicate> };
}

export const reportOf = (pkg: Pkg): RunReport => JSON.parse(pkg.files.get(REPORT_FILE)!.toString('utf8')) as RunReport;

/** Puts an edited report in, with every check's evidence file and the statement's evidence map made to match it. */
export function putReport(pkg: Pkg, report: RunReport): void {
  for (const name of [...pkg.files.keys()]) if (name.startsWith('evidence/')) pkg.files.delete(name);
  pkg.files.set(REPORT_FILE, Buffer.from(JSON.stringify(report, null, 2)));
  report.checks.forEach((c, i) => pkg.files.set(evidenceFile(i), Buffer.from(`${JSON.stringify({ id: c.id, exchanges: c.exchanges }, null, 1)}\n`)));
  pkg.statement.predicate.evidence = Object.fromEntries(report.checks.map((c, i) => [c.id, evidenceFile(i)]));
}

/**
 * Signs a statement over the package's files as they now are, and writes it (the envelope first, as certify does),
 * built in memory: a hostile name is written into the tar, never onto this disk.
 */
export async function signPkg(pkg: Pkg, key: KeyObject, out: string): Promise<string> {
  pkg.statement.subject = [...pkg.files].sort(([a], [b]) => a.localeCompare(b)).map(([name, data]) => ({ name, digest: { sha256: sha256(data) } }));
  const envelope: Envelope = signStatement(pkg.statement, key);
  const entries = [tarEntry(`${PACKAGE_DIR}/${ENVELOPE_FILE}`, Buffer.from(JSON.stringify(envelope)))];
  for (const name of [...pkg.files.keys()].sort()) entries.push(tarEntry(`${PACKAGE_DIR}/${name}`, pkg.files.get(name)!));
  writeFileSync(out, rawTar(entries));
  return out;
}

/** A package without its Allure results: verify needs none of them, and a forger may leave out what verify ignores. */
export function withoutAllure(pkg: Pkg): Pkg {
  for (const name of [...pkg.files.keys()]) if (name.startsWith('reports/allure-results/')) pkg.files.delete(name);
  return pkg;
}

/** A deep copy of a package, to edit without touching the honest one. */
export const copyPkg = (pkg: Pkg): Pkg => ({ files: new Map(pkg.files), statement: structuredClone(pkg.statement) });

/** One raw ustar entry: a header of the given name, type and declared size, then `data` padded to 512 bytes. */
export function tarEntry(name: string, data: Buffer, opts: { type?: '0' | '1' | '2' | '5'; linkname?: string; declaredSize?: number } = {}): Buffer {
  const h = Buffer.alloc(512);
  const put = (s: string, at: number, len: number) => h.write(s.slice(0, len), at, len, 'utf8');
  const octal = (n: number, len: number) => n.toString(8).padStart(len - 1, '0');
  // ustar keeps a long name as a prefix (up to 155 bytes) and a name (up to 100), split at a slash.
  const cut = name.length > 100 ? name.lastIndexOf('/') : -1;
  const [prefix, rest] = cut > 0 && name.length - cut - 1 <= 100 && cut <= 155 ? [name.slice(0, cut), name.slice(cut + 1)] : ['', name];
  put(rest, 0, 100);
  put(prefix, 345, 155);
  put(`${octal(0o644, 8)}\0`, 100, 8);
  put(`${octal(0, 8)}\0`, 108, 8);
  put(`${octal(0, 8)}\0`, 116, 8);
  put(`${octal(opts.declaredSize ?? data.length, 12)}\0`, 124, 12);
  put(`${octal(0, 12)}\0`, 136, 12);
  put('        ', 148, 8);
  put(opts.type ?? '0', 156, 1);
  put(opts.linkname ?? '', 157, 100);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  const pad = Buffer.alloc((512 - (data.length % 512)) % 512);
  return Buffer.concat([h, data, pad]);
}

/** A gzip tar of raw entries, ended as tar ends (two empty blocks). */
export function rawTar(entries: Buffer[]): Buffer {
  return gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)]));
}
