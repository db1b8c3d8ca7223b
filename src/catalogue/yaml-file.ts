import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createRequire } from 'node:module';
import type { Document } from 'yaml';
import { privateCacheDir } from '../cache-dir.js';
import { UsageError } from '../errors.js';

/** A parsed YAML or JSON file that remembers where each value came from, so errors can name a line. */
export interface SourceFile {
  path: string;
  data: unknown;
  /** Line (1-based) of the value at a path of keys and indexes, or of its nearest ancestor found. */
  lineOf(path: ReadonlyArray<string | number>): number | undefined;
}

export function displayPath(p: string): string {
  const r = relative(process.cwd(), p);
  return r.startsWith('..') ? p : r;
}

/** The parsed-file cache of this user (src/cache-dir.ts), looked up once per process; its dir undefined: no cache. */
let cache: { dir: string | undefined } | undefined;
const parsedCacheDir = (): string | undefined => (cache ??= { dir: privateCacheDir('fsapi-conformance-cache') }).dir;

/**
 * No parsed-file cache for the rest of this process: neither read (what it holds was made by another process) nor
 * written. `verify` reads a package someone else made and writes nothing outside its own folder.
 */
export function withoutParsedCache(): void {
  cache = { dir: undefined };
}

/**
 * Like readSourceFile, but keeps the parsed form of a YAML file in a cache keyed by its content hash:
 * parsing the 3000-line reference profile costs ~0.5 s per process, reading its JSON ~5 ms. The data is read
 * when first asked for (a caller with a cached derivation of it never asks); line numbers (only needed for error
 * messages) come from a full parse, done lazily.
 */
export function readSourceFileCached(path: string, what: string): SourceFile & { sha256: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { ...readSourceFile(path, what), sha256: '' };
  }
  const sha256 = createHash('sha256').update(text).digest('hex');
  let full: SourceFile | undefined;
  const parsed = (): SourceFile => (full ??= readSourceFile(path, what));
  let data: { value: unknown } | undefined;
  const load = (): unknown => {
    const dir = parsedCacheDir();
    if (!dir) return parsed().data;
    const cached = join(dir, `${sha256}.json`);
    try {
      return JSON.parse(readFileSync(cached, 'utf8')) as unknown;
    } catch {
      writeAtomic(cached, JSON.stringify(parsed().data));
      return parsed().data;
    }
  };
  return {
    path,
    sha256,
    get data() {
      return (data ??= { value: load() }).value;
    },
    lineOf: (p) => parsed().lineOf(p),
  };
}

/**
 * A value made from a file's content, kept in the same cache by the content's digest and the name of what was
 * made (with a version, to change when the making does): made once per content, not once per process.
 */
export async function cachedDerivation<T>(sha256: string, name: string, make: () => Promise<T>, isT: (v: unknown) => v is T): Promise<T> {
  const dir = sha256 ? parsedCacheDir() : undefined;
  const cached = dir ? join(dir, `${sha256}.${name}.json`) : undefined;
  if (cached) {
    try {
      const value = JSON.parse(readFileSync(cached, 'utf8')) as unknown;
      // Another build's entry of another shape is made again, never used.
      if (isT(value)) return value;
    } catch {
      // Not made yet.
    }
  }
  const value = await make();
  if (cached) writeAtomic(cached, JSON.stringify(value));
  return value;
}

function writeAtomic(file: string, text: string): void {
  try {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    renameSync(tmp, file); // atomic: concurrent processes never read half a file
  } catch {
    // A read-only temp directory only costs speed.
  }
}

export function readSourceFile(path: string, what: string): SourceFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read the ${what} (${code ?? 'read error'})`, {
      file: displayPath(path),
      fix: code === 'ENOENT' ? `check the path; it must name an existing ${what.replace(/ file$/, '')} file` : 'check the file permissions',
    });
  }
  let lines: ReturnType<typeof lineIndex> | undefined;
  const located = () => (lines ??= lineIndex(text, path, what));
  const fast = parseFast(text);
  return {
    path,
    data: fast ? fast.value : located().data,
    // Only an error message needs a line: the slower parse that keeps positions is made then.
    lineOf: (p) => located().lineOf(p),
  };
}

/**
 * The data of a JSON or YAML text by the fastest parser that reads it: JSON.parse (a repeated key: the last, as every
 * JSON tool reads it), else js-yaml with the YAML 1.2 core schema (what the `yaml` package reads by default; a
 * repeated key is an error). undefined when neither reads it (a syntax error, a tag of the document's own): the
 * `yaml` package then reads it, or places the error. Stripe's 4 MB JSON: 0.05 s, where `yaml` took 1.6-3.7 s and
 * 250 MB; YAML 5-12x faster than `yaml` on the vendors' documents tried, the same data.
 */
function parseFast(text: string): { value: unknown } | undefined {
  if (/^\s*[{[]/.test(text)) {
    try {
      return { value: JSON.parse(text) as unknown };
    } catch {
      // JSON with a flaw YAML forgives (a comment, a trailing comma), or YAML in flow style.
    }
  }
  const jsYaml = createRequire(import.meta.url)('js-yaml') as typeof import('js-yaml');
  // YAML 1.2's core schema, and !!binary (in Fireblocks' examples) as its base64 text, which is what a JSON example of
  // binary data is (the `yaml` package made it a byte array, and JSON then an object of numbers).
  yamlSchema ??= jsYaml.CORE_SCHEMA.withTags(jsYaml.defineScalarTag('tag:yaml.org,2002:binary', { resolve: (source) => source.replace(/\s+/g, ''), identify: () => false }));
  try {
    return { value: jsYaml.load(text, { schema: yamlSchema }) };
  } catch {
    return undefined;
  }
}
let yamlSchema: import('js-yaml').Schema | undefined;

/** The text parsed with positions (the `yaml` package): its data, and the line of any path; refused at its line when it does not parse. */
function lineIndex(text: string, path: string, what: string): { data: unknown; lineOf: SourceFile['lineOf'] } {
  // Loaded when first needed (it is CommonJS): only for an error message, or a text the fast parsers refuse.
  const { isMap, isSeq, LineCounter, parseDocument } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const lines = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    const err = doc.errors[0]!;
    const pos = lines.linePos(err.pos[0]);
    throw new UsageError(`the ${what} is not valid YAML or JSON: ${err.message.split('\n')[0]}`, {
      file: displayPath(path),
      where: `${pos.line}:${pos.col}`,
      fix: 'correct the syntax at that line (indentation, quotes, duplicate keys)',
    });
  }
  return {
    data: doc.toJS({ maxAliasCount: -1 }) as unknown,
    lineOf(p) {
      // Walk as far down the path as the document goes, then report that node's line.
      for (let n = p.length; n >= 0; n--) {
        const node = doc.getIn(p.slice(0, n), true) as { range?: [number, number, number] } | undefined;
        if (node && typeof node === 'object' && node.range) return lines.linePos(node.range[0]).line;
        const parent = n > 0 ? doc.getIn(p.slice(0, n - 1), true) : doc.contents;
        if ((isMap(parent) || isSeq(parent)) && parent.range && n === 0) return lines.linePos(parent.range[0]).line;
      }
      return undefined;
    },
  };
}

/** Splits an ajv instancePath ("/paths/~1customers/post") into keys. */
export function pointerToPath(pointer: string): string[] {
  if (!pointer) return [];
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Joins keys into a JSON Pointer ("/paths/~1customers/post"), the inverse of pointerToPath. */
export function pathToPointer(path: ReadonlyArray<string | number>): string {
  return path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}
