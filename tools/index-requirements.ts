/**
 * The requirement catalogue as a two-way index (as test262's frontmatter is): every entry of spec/requirements.yaml
 * lists its checks (where each is defined, and the variants it makes over the reference profile) and the sandbox
 * faults that prove them. This writes those two keys from the sources; test/requirement-index.test.ts holds them true.
 *
 *   npm run index              # rewrites `checks:` and `faults:` of every entry
 *   npm run index -- --check   # writes nothing; exits 1 naming each entry whose keys the sources no longer match
 *
 * A check's place is the top-level declaration that holds its `run` function (`src/checks/auth.ts#challengeCheck`):
 * V8's inspector gives the function's location, tsx's source maps lead it back to the TypeScript line, and the
 * declaration holding that line names the site (tools/declaration-site.ts). Lines are never stored, so a comment or a
 * blank line added to a check file changes nothing here. This runs from the sources (tsx), never from dist/.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { findSourceMap } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FAULTS } from '../sandbox/faults.js';
import { PACKAGE_ROOT } from '../src/paths.js';
import { plannedForIndex } from './index-plan.js';
import { declarationLine, siteName } from './declaration-site.js';
import { loadCatalogue } from '../src/binding/catalogue-in-use.js';

const CATALOGUE = `${PACKAGE_ROOT}/spec/requirements.yaml`;
const LINE = 110;

interface Site {
  at: string;
  variants: Set<string>;
}

/** Where each function was defined ("src/checks/auth.ts#challengeCheck"), through one inspector session of this process. */
async function locator(): Promise<{ locate(f: (...a: never[]) => unknown): Promise<string>; close(): void }> {
  const session = new Session();
  session.connect();
  const scripts = new Map<string, string>();
  session.on('Debugger.scriptParsed', (m) => scripts.set(m.params.scriptId, m.params.url));
  const post = <T>(method: string, params?: object) => new Promise<T>((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r as T))));
  await post('Debugger.enable');
  const holder = globalThis as { __fsapiIndexed?: unknown };
  return {
    async locate(f) {
      holder.__fsapiIndexed = f;
      const { result } = await post<{ result: { objectId: string } }>('Runtime.evaluate', { expression: 'globalThis.__fsapiIndexed' });
      const { internalProperties } = await post<{ internalProperties?: { name: string; value?: { value?: { scriptId: string; lineNumber: number; columnNumber: number } } }[] }>('Runtime.getProperties', { objectId: result.objectId, ownProperties: true });
      const loc = internalProperties?.find((p) => p.name === '[[FunctionLocation]]')?.value?.value;
      if (!loc) throw new Error(`no location for ${f.name || 'a check'}`);
      const url = scripts.get(loc.scriptId) ?? '';
      const entry = findSourceMap(url)?.findEntry(loc.lineNumber, loc.columnNumber) as { originalSource?: string; originalLine?: number } | undefined;
      const source = entry?.originalSource ?? url;
      const file = source.startsWith('file:') ? fileURLToPath(source) : source;
      return siteName(relative(PACKAGE_ROOT, file), readFileSync(file, 'utf8'), (entry?.originalLine ?? loc.lineNumber) + 1);
    },
    close: () => session.disconnect(),
  };
}

/** What the sources say of every requirement: its checks' sites (ordered by file, then declaration) and the faults that prove them. */
async function index(): Promise<Map<string, { checks: Site[]; faults: string[] }>> {
  const catalogue = await loadCatalogue();
  const planned = await plannedForIndex(catalogue);
  const { locate, close } = await locator();
  const sites = new Map<string, Map<string, Site>>();
  try {
    for (const p of planned) {
      const at = await locate(p.def.run);
      const mine = sites.get(p.def.requirement) ?? sites.set(p.def.requirement, new Map()).get(p.def.requirement)!;
      (mine.get(at) ?? mine.set(at, { at, variants: new Set() }).get(at)!).variants.add(p.def.variant);
    }
  } finally {
    close();
  }
  // By file, then in the file's order of declarations: the order changes only when declarations are reordered.
  const place = (s: Site) => {
    const [file, name] = s.at.split('#');
    return { file: file!, line: name ? (declarationLine(readFileSync(`${PACKAGE_ROOT}/${file}`, 'utf8'), name) ?? 0) : 0 };
  };
  const order = (a: Site, b: Site) => {
    const [pa, pb] = [place(a), place(b)];
    return pa.file.localeCompare(pb.file) || pa.line - pb.line;
  };
  return new Map(
    catalogue.requirements.all.map((r) => [
      r.id,
      { checks: [...(sites.get(r.id)?.values() ?? [])].sort(order), faults: FAULTS.filter((f) => f.breaks.includes(r.id)).map((f) => f.name) },
    ]),
  );
}

const scalar = (s: string) => (/^[A-Za-z0-9][A-Za-z0-9_.\/:-]*$/.test(s) ? s : JSON.stringify(s));

/** A flow list, wrapped at LINE characters with its continuation lines indented by `indent`. */
function flowList(head: string, items: readonly string[], indent: string): string[] {
  if (!items.length) return [`${head}[]`];
  const lines: string[] = [];
  let line = `${head}[`;
  items.forEach((item, i) => {
    const piece = `${scalar(item)}${i < items.length - 1 ? ',' : ']'}`;
    if (line.length + piece.length + 1 > LINE && !line.endsWith('[')) {
      lines.push(line);
      line = `${indent}${piece}`;
    } else line += `${line.endsWith('[') ? '' : ' '}${piece}`;
  });
  lines.push(line);
  return lines;
}

/** The two keys of one entry, as the generated lines of spec/requirements.yaml. */
function render(e: { checks: Site[]; faults: string[] }): string[] {
  const out = e.checks.length ? ['    checks:'] : ['    checks: []'];
  for (const s of e.checks) out.push(`      - at: ${s.at}`, ...flowList('        variants: ', [...s.variants].sort(), '          '));
  out.push(...flowList('    faults: ', e.faults, '      '));
  return out;
}

/**
 * The catalogue with every entry's `checks:` and `faults:` replaced (appended at the end of the entry), and the
 * entries whose keys change.
 */
function rewrite(text: string, entries: Map<string, { checks: Site[]; faults: string[] }>): { text: string; changed: string[] } {
  const lines = text.split('\n');
  const out: string[] = [];
  const changed: string[] = [];
  let current: string | undefined;
  let skipping = false;
  let old: string[] = [];
  const flush = () => {
    if (current) {
      const now = render(entries.get(current)!);
      if (now.join('\n') !== old.join('\n')) changed.push(current);
      out.push(...now);
    }
    current = undefined;
    old = [];
  };
  for (const line of lines) {
    const id = /^ {2}- id: (\S+)/.exec(line)?.[1];
    const endsEntry = id !== undefined || (current !== undefined && (line.trim() === '' || /^ {0,2}#/.test(line) || /^\S/.test(line)));
    if (endsEntry) {
      // Trailing blank or comment lines come after the generated keys of the entry they follow.
      flush();
      skipping = false;
    }
    if (id !== undefined) current = id;
    if (current !== undefined && /^ {4}(checks|faults):/.test(line)) {
      skipping = true;
      old.push(line);
      continue;
    }
    if (skipping && /^ {5,}/.test(line)) {
      old.push(line);
      continue;
    }
    skipping = false;
    out.push(line);
  }
  flush();
  return { text: out.join('\n'), changed };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  const before = readFileSync(CATALOGUE, 'utf8');
  const { text: after, changed } = rewrite(before, await index());
  if (!values.check) {
    writeFileSync(CATALOGUE, after);
    console.log(`${relative(process.cwd(), CATALOGUE)}: ${changed.length ? `checks and faults rewritten for ${changed.length} requirements` : 'already current'}`);
    return;
  }
  if (!changed.length) return void console.log('the requirement catalogue lists every check and fault as the sources define them');
  console.error(`spec/requirements.yaml is not what the sources say for ${changed.slice(0, 10).join(', ')}${changed.length > 10 ? ` and ${changed.length - 10} more` : ''}: run \`npm run index\` and commit the result`);
  process.exitCode = 1;
}

await main();
