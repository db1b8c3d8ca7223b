/**
 * Opening a certification package written by someone who may be hostile: in memory, nothing written to disk, every
 * size bounded before it is inflated. Two passes over the gzip tar: the first looks for the signed envelope only
 * (certify writes it first, so an honest package gives it at once), and nothing else is kept until its signature
 * holds; the second reads the entries the signed statement lists, by those names only, each hashed as it arrives.
 *
 * Refused, with the entry named: a name outside the package's one folder, absolute, with `..`, a backslash or a NUL;
 * anything but a regular file (a symbolic or hard link, a device); a name twice; an entry over ENTRY_CAP bytes or a
 * package over TOTAL_CAP (both judged from the tar header, before a byte of the entry is inflated); more than
 * MAX_ENTRIES entries.
 */
import { createReadStream, existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import * as tar from 'tar';
import { UsageError } from '../errors.js';
import { plural } from '../plural.js';
import { PACKAGE_DIR } from './layout.js';

/** One entry's largest size: conformance.json of a vendor document's full run is a few MiB. */
export const ENTRY_CAP = 64 * 1024 * 1024;
/** The package's largest inflated size. */
export const TOTAL_CAP = 384 * 1024 * 1024;
/** The most entries (a full run makes some 4,500: reports, Allure results, evidence). */
export const MAX_ENTRIES = 50_000;

/** Why a package cannot be opened safely: the first unsafe or oversized entry. verify exits 11 with it. */
export class UnsafePackage extends Error {
  override readonly name = 'UnsafePackage';
}

const MIB = 1024 * 1024;
/**
 * Bytes read from the file at a time. Gzip inflates up to about 1000 times, and the tar parser inflates each chunk
 * it is handed whole before it sees the header inside: 64 KiB of a hostile package's zeros made 64 MiB each, and a
 * 1 GiB entry took 2.3 s to refuse; 4 KiB bounds that to about 4 MiB a chunk (refused in some 60 ms, at no cost an
 * honest package notices).
 */
const READ_CHUNK = 4096;
const mib = (n: number) => `${(n / MIB).toFixed(n < 10 * MIB ? 1 : 0)} MiB`;

/** The name of an entry inside the package folder, or why it is refused. */
export function packagedName(raw: string): { name: string } | { refused: string } {
  const path = raw.replace(/^\.\//, '');
  if (path.includes('\0') || path.includes('\\')) return { refused: 'a NUL or backslash in its name' };
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return { refused: 'an absolute name' };
  const segments = path.split('/');
  if (segments.includes('..') || segments.includes('.')) return { refused: 'a `..` or `.` segment in its name' };
  if (segments[0] !== PACKAGE_DIR) return { refused: `a name outside the package folder ${PACKAGE_DIR}/` };
  const rest = segments.slice(1);
  // A directory entry ends with '/', leaving one empty segment; an empty one elsewhere is not a name certify writes.
  if (rest.slice(0, -1).some((s) => s === '')) return { refused: 'an empty segment in its name' };
  return { name: rest.join('/') };
}

interface Walk {
  /** At each entry's header: keep its bytes, only hash them, skip it, or refuse the package. */
  header(name: string, size: number): 'keep' | 'hash' | 'skip' | { refuse: string };
  /** An entry read: its bytes when kept. */
  data(name: string, bytes: Buffer | undefined, sha256: string, size: number): void;
  /** True when the walk has what it needs: the rest of the package is not read. */
  done(): boolean;
}

/** Streams the package once, applying the rules above to every entry, handing wanted entries to `walk`. */
function walkPackage(path: string, walk: Walk): Promise<void> {
  return new Promise((resolve, reject) => {
    const file = createReadStream(path, { highWaterMark: READ_CHUNK });
    let settled = false;
    let total = 0;
    let entries = 0;
    const seen = new Set<string>();
    const finish = (e?: Error) => {
      if (settled) return;
      settled = true;
      file.destroy();
      if (e) reject(e);
      else resolve();
    };
    const refuse = (msg: string) => {
      finish(new UnsafePackage(msg));
      parser.abort(new UnsafePackage(msg));
    };
    const parser = new tar.Parser({
      strict: true,
      onReadEntry(entry) {
        if (settled) return void entry.resume();
        const named = packagedName(entry.path);
        if ('refused' in named) return refuse(`${JSON.stringify(entry.path)}: refused, ${named.refused}`);
        if (entry.type === 'Directory' && named.name.endsWith('/') || named.name === '') return void entry.resume();
        const name = named.name;
        if (entry.type !== 'File' && entry.type !== 'OldFile') return refuse(`${name}: refused, a ${entry.type} entry (a package holds regular files only)`);
        if (seen.has(name)) return refuse(`${name}: refused, the package holds it twice`);
        seen.add(name);
        if (++entries > MAX_ENTRIES) return refuse(`refused: more than ${MAX_ENTRIES} entries`);
        const size = entry.size ?? 0;
        if (size > ENTRY_CAP) return refuse(`${name}: refused, ${mib(size)} is over the ${mib(ENTRY_CAP)} an entry may hold`);
        total += size;
        if (total > TOTAL_CAP) return refuse(`${name}: refused, the package inflates past ${mib(TOTAL_CAP)}`);
        const wanted = walk.header(name, size);
        if (typeof wanted === 'object') return refuse(wanted.refuse);
        if (wanted === 'skip') return void entry.resume();
        const chunks: Buffer[] | undefined = wanted === 'keep' ? [] : undefined;
        const hash = createHash('sha256');
        let read = 0;
        entry.on('data', (c: Buffer) => {
          chunks?.push(c);
          hash.update(c);
          read += c.length;
        });
        entry.on('end', () => {
          if (settled) return;
          walk.data(name, chunks && Buffer.concat(chunks), hash.digest('hex'), read);
          if (walk.done()) finish();
        });
      },
    });
    parser.on('error', (e: Error) => finish(e instanceof UnsafePackage ? e : new UsageError(`${path} is not a gzip tar package: ${e.message}`)));
    parser.on('abort', (e: Error) => finish(e instanceof UnsafePackage ? e : new UsageError(`${path} is not a gzip tar package: ${e.message}`)));
    parser.on('end', () => finish());
    file.on('error', (e) => finish(new UsageError(`cannot read ${path}: ${e.message}`)));
    file.pipe(parser);
  });
}

/** The envelope's bytes, the first pass: nothing else of the package is kept. */
export async function readEnvelope(path: string, envelopeName: string): Promise<Buffer | undefined> {
  if (!existsSync(path)) throw new UsageError(`${path}: no such file (the .tgz that fsapi-conformance certify wrote)`);
  let envelope: Buffer | undefined;
  await walkPackage(path, {
    header: (name) => (name === envelopeName ? 'keep' : 'skip'),
    data: (_name, bytes) => (envelope = bytes),
    done: () => envelope !== undefined,
  });
  return envelope;
}

export interface PackageFiles {
  /** The bytes of the entries asked for by name. */
  kept: Map<string, Buffer>;
  /** Every entry's SHA-256 and size, by name. */
  digests: Map<string, { sha256: string; size: number }>;
}

/**
 * The second pass: every entry hashed, the ones `keep` names kept in memory. An entry not in `listed` ends it, named
 * (the signed statement lists every file; anything else was added).
 */
export async function readListed(path: string, listed: ReadonlySet<string>, keep: (name: string) => boolean): Promise<PackageFiles> {
  const kept = new Map<string, Buffer>();
  const digests = new Map<string, { sha256: string; size: number }>();
  await walkPackage(path, {
    header: (name) => (listed.has(name) ? (keep(name) ? 'keep' : 'hash') : { refuse: `${name}: not in the signed manifest` }),
    data: (name, bytes, sha256, size) => {
      digests.set(name, { sha256, size });
      if (bytes) kept.set(name, bytes);
    },
    done: () => false,
  });
  return { kept, digests };
}

/** For messages: "4141 files". */
export const files = (n: number): string => plural(n, 'file');
