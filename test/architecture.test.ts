/**
 * The house has one-way imports: its folders stand in a declared order, bottom up, and a module imports only from
 * its own folder or one below it; no chain of imports comes back to where it started. Imports are read with the
 * TypeScript compiler's parser (type-only ones included: a type import ties two layers as much as any other), so a
 * new upward import or a new circle fails here, naming the file, the line and the import. TypeScript 7's API runs
 * the compiler (tsgo) as a child process; its program lists each file's imports (static, re-exports, dynamic).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { API } from 'typescript/unstable/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../src/paths.js';

/** Bottom up. README.md's "Architecture" section lists the same folders in the same order. */
const LAYERS = [
  'src', // the files at the root of src/: errors, JSON, paths, nearest()
  'fixtures',
  'src/http',
  'src/webhooks',
  'src/catalogue',
  'src/binding',
  'src/results',
  'src/regression',
  'src/config',
  'src/values',
  'src/explore',
  'sandbox',
  'src/harness',
  'src/world',
  'src/drivers',
  'src/checks',
  'src/suite',
  'src/reports',
  'src/certify',
  'src/runner',
  'suites',
  'src/selfcheck',
  'src/cli',
] as const;

const ROOTS = ['src', 'sandbox', 'suites', 'fixtures'];

interface Import {
  from: string;
  to: string;
  line: number;
  text: string;
}

const api = new API({ cwd: fromRoot() });
afterAll(() => api.close());

function sourceFiles(dir: string): string[] {
  return readdirSync(fromRoot(dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : [],
  );
}

/** The layer a project file stands in: its folder under src/, or its top folder. */
function layerOf(file: string): string {
  const parts = file.split('/');
  return parts[0] === 'src' && parts.length > 2 ? `src/${parts[1]}` : parts[0]!;
}

/** Every relative import of the project's files under `roots`, as the compiler's program lists them. */
function projectImports(root: string, roots: readonly string[]): Import[] {
  const snapshot = api.updateSnapshot({ openProject: join(root, 'tsconfig.json') });
  const program = snapshot.getProject(join(root, 'tsconfig.json'))!.program;
  return program
    .getSourceFileNames()
    .map((name) => relative(root, name))
    .filter((file) => roots.includes(file.split('/')[0]!) && !file.endsWith('.d.ts'))
    .flatMap((file) => {
      const sf = program.getSourceFile(join(root, file))!;
      const lines = sf.text.split('\n');
      return sf.imports
        .map((spec) => ({ spec: spec.getText(sf).slice(1, -1), line: sf.getLineAndCharacterOfPosition(spec.getStart(sf)).line }))
        .filter((i) => i.spec.startsWith('.'))
        .map((i) => ({
          from: file,
          to: relative(root, resolve(root, dirname(file), i.spec)).replace(/\.js$/, '.ts'),
          line: i.line + 1,
          text: lines[i.line]!.trim(),
        }));
    });
}

/** Imports that reach a layer above their own, or a project folder with no place in LAYERS. */
function upwardImports(imports: readonly Import[]): string[] {
  const rank = (file: string) => (LAYERS as readonly string[]).indexOf(layerOf(file));
  return imports
    .filter((i) => ROOTS.includes(i.to.split('/')[0]!))
    .filter((i) => rank(i.to) === -1 || rank(i.from) === -1 || rank(i.to) > rank(i.from))
    .map((i) => `${i.from}:${i.line} (${layerOf(i.from)}) imports ${i.to} (${layerOf(i.to)}): ${i.text}`);
}

/** The import circles among files: each strongly connected component of more than one file (Tarjan). */
function circles(imports: readonly Import[]): string[][] {
  const edges = new Map<string, string[]>();
  for (const i of imports) (edges.get(i.from) ?? edges.set(i.from, []).get(i.from)!).push(i.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

const files = ROOTS.flatMap(sourceFiles);
const imports = projectImports(fromRoot(), ROOTS);

describe('one-way imports', () => {
  it('reads the project: every root has files and most files import something', () => {
    for (const root of ROOTS) expect(files.some((f) => f.startsWith(`${root}/`)), root).toBe(true);
    expect(imports.length).toBeGreaterThan(files.length);
  });

  it('places every folder of the house in the declared order', () => {
    const unplaced = [...new Set(files.map(layerOf))].filter((l) => !(LAYERS as readonly string[]).includes(l));
    expect(unplaced, 'a new folder needs its place in LAYERS (test/architecture.test.ts) and in README.md').toEqual([]);
  });

  it('imports only from the same layer or one below', () => {
    expect(upwardImports(imports)).toEqual([]);
  });

  it('has no import circle', () => {
    expect(circles(imports)).toEqual([]);
  });

  it('finds an upward import, a dynamic one and a circle when there is one', () => {
    // The rule's own reading, on made-up files, so that a parser change that sees nothing cannot pass the tests above.
    const dir = mkdtempSync(join(tmpdir(), 'fsapi-architecture-'));
    const sources: Record<string, string> = {
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', noEmit: true }, include: ['src'] }),
      'src/http/x.ts': "import type { CheckContext } from '../harness/check.js';\nexport type X = CheckContext;\n",
      'src/harness/check.ts': 'export interface CheckContext { n: number }\n',
      'src/catalogue/a.ts': "export { b } from './b.js';\n",
      'src/catalogue/b.ts': "export const b = () => import('./a.js');\n",
    };
    for (const [name, text] of Object.entries(sources)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    const made = projectImports(dir, ['src']);
    rmSync(dir, { recursive: true, force: true });
    expect(upwardImports(made)).toEqual([
      "src/http/x.ts:1 (src/http) imports src/harness/check.ts (src/harness): import type { CheckContext } from '../harness/check.js';",
    ]);
    expect(circles(made)).toEqual([['src/catalogue/a.ts', 'src/catalogue/b.ts']]);
    expect(made.find((i) => i.from === 'src/catalogue/b.ts')?.text).toBe("export const b = () => import('./a.js');");
  });

  it('README.md lists the layers bottom up, in this order', () => {
    const readme = readFileSync(fromRoot('README.md'), 'utf8');
    const section = /^## Architecture\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
    const listed = [...section.matchAll(/^\s*(?:\d+\.|-) `([^`]+?)\/?`/gm)].map((m) => m[1]);
    expect(listed).toEqual([...LAYERS]);
  });
});
