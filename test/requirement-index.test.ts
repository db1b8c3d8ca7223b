/**
 * The requirement catalogue is a two-way index (spec/requirements.yaml, `checks:` and `faults:`, written by
 * `npm run index`): every requirement lists the checks planned for it and the faults that break it, every check
 * listed is planned and every fault listed breaks it; and each site names the declaration that defines its check,
 * never a line (a blank line added to a check file changes neither the catalogue nor a test).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAULTS } from '../sandbox/faults.js';
import type { PlannedCheck } from '../src/checks/planner.js';
import { plannedForIndex } from '../tools/index-plan.js';
import { declarationLine, siteName } from '../tools/declaration-site.js';
import { PACKAGE_ROOT } from '../src/paths.js';
import { definitionOf } from '../src/results/definition.js';
import { loadCatalogue, type Catalogue } from '../src/binding/catalogue-in-use.js';

let catalogue: Catalogue;
let planned: PlannedCheck[];
beforeAll(async () => {
  catalogue = await loadCatalogue();
  planned = await plannedForIndex(catalogue);
});

describe('the requirement catalogue as an index', () => {
  it('lists under each requirement every check planned for it, and no check that is not', () => {
    const plannedPairs = new Set(planned.map((p) => `${p.def.requirement} ${p.def.variant}`));
    const listed = new Set(catalogue.requirements.all.flatMap((r) => r.checks.flatMap((s) => s.variants.map((v) => `${r.id} ${v}`))));
    expect([...plannedPairs].filter((x) => !listed.has(x))).toEqual([]);
    expect([...listed].filter((x) => !plannedPairs.has(x))).toEqual([]);
  });

  it('lists under each requirement the faults that break it, and no other', () => {
    for (const r of catalogue.requirements.all) expect(r.faults, r.id).toEqual(FAULTS.filter((f) => f.breaks.includes(r.id)).map((f) => f.name));
    const named = new Set(catalogue.requirements.all.flatMap((r) => r.faults));
    expect(FAULTS.filter((f) => f.breaks.length && !named.has(f.name)).map((f) => f.name)).toEqual([]);
  });

  it('places each check at a top-level declaration of its file, named, never at a line', () => {
    for (const r of catalogue.requirements.all) {
      for (const s of r.checks) {
        const [file, name] = s.at.split('#');
        expect(existsSync(`${PACKAGE_ROOT}/${file}`), s.at).toBe(true);
        expect(declarationLine(readFileSync(`${PACKAGE_ROOT}/${file}`, 'utf8'), name ?? ''), s.at).toBeGreaterThan(0);
      }
    }
  });

  it('names a site by the declaration that holds the line, so lines added above or inside it change nothing', () => {
    const source = ['// a check file', "import x from 'y';", '', 'export function caseCheck(op) {', '  return {', '    async run(ctx) {}', '  };', '}', 'const other = 1;'].join('\n');
    expect(siteName('src/checks/a.ts', source, 6)).toBe('src/checks/a.ts#caseCheck');
    expect(siteName('src/checks/a.ts', `\n// note\n${source.replace('    async run', '\n    async run')}`, 9)).toBe('src/checks/a.ts#caseCheck');
    expect(siteName('src/checks/a.ts', source, 9)).toBe('src/checks/a.ts#other');
    expect(siteName('src/checks/a.ts', source, 2)).toBe('src/checks/a.ts');
    expect(declarationLine(source, 'other')).toBe(9);
    expect(declarationLine(source, 'run')).toBeUndefined();
  });

  it('is what the sources say: `npm run index -- --check` finds nothing to rewrite', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'tools/index-requirements.ts', '--check'], { cwd: PACKAGE_ROOT, encoding: 'utf8' });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  });

  it("gives a result the site listing its variant, or its requirement's only site, or none", () => {
    const sites = [
      { at: 'src/checks/a.ts#oneAndTwo', variants: ['one', 'two'] },
      { at: 'src/checks/b.ts#three', variants: ['three'] },
    ];
    const result = (variant: string, operation?: string) => ({ id: `FSAPI-X-001 ${operation ?? 'accounts'} ${variant}`, requirement: 'FSAPI-X-001', group: 'accounts' as const, ...(operation ? { operation } : {}) });
    expect(definitionOf(result('two', 'getAccount'), sites)).toBe('src/checks/a.ts#oneAndTwo');
    expect(definitionOf(result('three'), sites)).toBe('src/checks/b.ts#three');
    expect(definitionOf(result('missing-vendor_field', 'createThing'), [sites[0]!])).toBe('src/checks/a.ts#oneAndTwo');
    expect(definitionOf(result('missing-vendor_field', 'createThing'), sites)).toBeUndefined();
  });
});
