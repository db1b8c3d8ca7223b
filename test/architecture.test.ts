/**
 * The house has one-way imports: its folders stand in a declared order, bottom up, and a module imports only from
 * its own folder or one below it; no chain of imports comes back to where it started. Imports are read with the
 * TypeScript compiler's parser (type-only ones included: a type import ties two layers as much as any other), so a
 * new upward import or a new circle fails here, naming the file, the line and the import. Shipped code imports only
 * what the package ships: no file outside its roots or left out by package.json "files" (test/, tools/, bench/), no
 * package that is not a dependency. TypeScript 7's API runs the compiler (tsgo) as a child process; its program
 * lists each file's imports (static, re-exports, dynamic).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { builtinModules } from 'node:module';
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
  'src/vitest-suite',
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
  /** The imported file, relative to the project root; for a package's import, its specifier ('undici', 'node:fs'). */
  to: string;
  line: number;
  text: string;
  bare?: true;
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

/** Every import of the project's files under `roots`, as the compiler's program lists them. */
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
        .map((i) => ({
          from: file,
          line: i.line + 1,
          text: lines[i.line]!.trim(),
          ...(i.spec.startsWith('.') ? { to: relative(root, resolve(root, dirname(file), i.spec)).replace(/\.js$/, '.ts') } : { to: i.spec, bare: true as const }),
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
  for (const i of imports.filter((x) => !x.bare)) (edges.get(i.from) ?? edges.set(i.from, []).get(i.from)!).push(i.to);
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

interface PackageJson {
  files: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/**
 * Whether the package ships `path` (a project file as compiled: src/x.ts is dist/src/x.js) by package.json "files":
 * a listed file or folder ("dist/src/") not excluded by a "!" entry. Only plain paths are read, as this package
 * lists them; a glob there is refused rather than guessed at.
 */
function ships(pkg: PackageJson, path: string): boolean {
  const compiled = `dist/${path.replace(/\.ts$/, '.js')}`;
  const covers = (entry: string, p: string) => (entry.endsWith('/') ? p.startsWith(entry) : p === entry);
  if (pkg.files.some((e) => /[*?{[]/.test(e))) throw new Error('package.json "files" has a glob: teach ships() to read it (npm-packlist)');
  const listed = (p: string) => pkg.files.some((e) => !e.startsWith('!') && covers(e, p)) && !pkg.files.some((e) => e.startsWith('!') && covers(e.slice(1), p));
  return listed(compiled) || listed(path);
}

/** Imports by shipped code of what an installed package would lack: an unshipped file, or a package it does not depend on. */
function unshippedImports(imports: readonly Import[], pkg: PackageJson): string[] {
  const deps = new Set(Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.peerDependencies }));
  const builtin = new Set(builtinModules);
  const packageOf = (spec: string) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
  return imports
    // Shipped code only: a build step the package leaves out may import what it leaves out.
    .filter((i) => ROOTS.includes(i.from.split('/')[0]!) && ships(pkg, i.from))
    .filter((i) => (i.bare ? !i.to.startsWith('node:') && !builtin.has(i.to) && !deps.has(packageOf(i.to)) : !ROOTS.includes(i.to.split('/')[0]!) || !ships(pkg, i.to)))
    .map((i) => `${i.from}:${i.line} imports ${i.to}, which the package ${i.bare ? 'does not depend on' : 'does not ship'}: ${i.text}`);
}

/** The imports of made-up files under src/ of a temporary project: the rules' own reading, tested apart. */
function importsOfMadeUp(sources: Record<string, string>): Import[] {
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-architecture-'));
  try {
    const all = { 'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', noEmit: true }, include: ['src'] }), ...sources };
    for (const [name, text] of Object.entries(all)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    return projectImports(dir, ['src']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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

  it('imports, from shipped code, only what the package ships and the packages it depends on', () => {
    expect(unshippedImports(imports, JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as PackageJson)).toEqual([]);
  });

  it('finds an upward import, a dynamic one and a circle when there is one', () => {
    // The rule's own reading, on made-up files, so that a parser change that sees nothing cannot pass the tests above.
    const sources: Record<string, string> = {
      'src/http/x.ts': "import type { CheckContext } from '../harness/check.js';\nexport type X = CheckContext;\n",
      'src/harness/check.ts': 'export interface CheckContext { n: number }\n',
      'src/catalogue/a.ts': "export { b } from './b.js';\n",
      'src/catalogue/b.ts': "export const b = () => import('./a.js');\n",
    };
    const made = importsOfMadeUp(sources);
    expect(upwardImports(made)).toEqual([
      "src/http/x.ts:1 (src/http) imports src/harness/check.ts (src/harness): import type { CheckContext } from '../harness/check.js';",
    ]);
    expect(circles(made)).toEqual([['src/catalogue/a.ts', 'src/catalogue/b.ts']]);
    expect(made.find((i) => i.from === 'src/catalogue/b.ts')?.text).toBe("export const b = () => import('./a.js');");
  });

  it('finds an import that leaves the shipped roots, one of an unshipped file, and one of a dev-only package', () => {
    const sources: Record<string, string> = {
      'src/cli/a.ts': [
        "import { helper } from '../../test/helpers/run.js';",
        "import { plan } from '../../tools/index-plan.js';",
        "import { build } from '../catalogue/build-validators.js';",
        "import { ok } from '../catalogue/ok.js';",
        "import { request } from 'undici';",
        "import { tsImport } from 'tsx/esm/api';",
        "import { readFileSync } from 'node:fs';",
        'export const all = [helper, plan, build, ok, request, tsImport, readFileSync];',
        '',
      ].join('\n'),
      'src/catalogue/ok.ts': 'export const ok = 1;\n',
    };
    const made = importsOfMadeUp(sources);
    const pkg: PackageJson = { files: ['dist/src/', '!dist/src/catalogue/build-validators.js', 'spec/'], dependencies: { undici: '^7' } };
    expect(unshippedImports(made, pkg)).toEqual([
      "src/cli/a.ts:1 imports test/helpers/run.ts, which the package does not ship: import { helper } from '../../test/helpers/run.js';",
      "src/cli/a.ts:2 imports tools/index-plan.ts, which the package does not ship: import { plan } from '../../tools/index-plan.js';",
      "src/cli/a.ts:3 imports src/catalogue/build-validators.ts, which the package does not ship: import { build } from '../catalogue/build-validators.js';",
      "src/cli/a.ts:6 imports tsx/esm/api, which the package does not depend on: import { tsImport } from 'tsx/esm/api';",
    ]);
    expect(() => ships({ files: ['dist/**'] }, 'src/x.ts')).toThrow(/glob/);
  });

  it('README.md lists the layers bottom up, in this order', () => {
    const readme = readFileSync(fromRoot('README.md'), 'utf8');
    const section = /^## Architecture\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
    const listed = [...section.matchAll(/^\s*(?:\d+\.|-) `([^`]+?)\/?`/gm)].map((m) => m[1]);
    expect(listed).toEqual([...LAYERS]);
  });
});
