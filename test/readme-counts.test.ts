/**
 * The counts the documentation states (fault switches, requirements, operations, groups, suites) are the code's:
 * each is computed here from the catalogue, the reference profile and the sandbox's registry, never a constant,
 * so adding a requirement or a fault without updating README.md fails this test.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAULTS } from '../sandbox/index.js';
import { CROSS_CUTTING, GROUPS, loadRequirements, loadSpec, REFERENCE_SPEC_PATH, REQUIREMENTS_PATH } from '../src/catalogue/index.js';
import { fromRoot } from '../src/paths.js';

const DOCS = ['README.md', 'docs/sandbox.md'];

/** Every number each phrase states in the documentation, with where. */
function stated(pattern: RegExp): { where: string; n: number }[] {
  return DOCS.flatMap((doc) =>
    readFileSync(fromRoot(doc), 'utf8')
      .split('\n')
      .flatMap((line, i) => [...line.matchAll(pattern)].map((m) => ({ where: `${doc}:${i + 1}: ${m[0]}`, n: Number(m[1]) }))),
  );
}

const COUNTS: [what: string, pattern: RegExp, actual: () => number | Promise<number>][] = [
  ['fault switches', /\b(\d+) (?:\*\*)?fault switches\b/g, () => FAULTS.length],
  ['requirements', /\b(\d+) requirements\b/g, () => loadRequirements(REQUIREMENTS_PATH).all.length],
  ['operations', /\b(\d+) operations\b/g, async () => (await loadSpec(REFERENCE_SPEC_PATH)).operations.length],
  ['endpoint groups', /\b(\d+) groups\b/g, () => GROUPS.length],
  ['suites', /\bsuites \((\d+)\)/g, () => GROUPS.length + CROSS_CUTTING.length],
];

describe('the counts README.md and docs/sandbox.md state', () => {
  it.each(COUNTS)('%s: every statement is the number in the code', async (_what, pattern, actual) => {
    const found = stated(pattern);
    // The phrase is there: rewording it would leave the number unchecked.
    expect(found.length).toBeGreaterThan(0);
    const n = await actual();
    for (const s of found) expect(s.n, s.where).toBe(n);
  });
});

describe('the other figures README.md states', () => {
  const readme = readFileSync(fromRoot('README.md'), 'utf8');

  it('the progress example counts the checks a full run plans', async () => {
    const { planChecks } = await import('../src/checks/planner.js');
    const { loadCatalogue } = await import('../src/binding/catalogue-in-use.js');
    const planned = (await planChecks(await loadCatalogue())).length;
    const shown = [...readme.matchAll(/\d+\/(\d+) checks/g)].map((m) => Number(m[1]));
    expect(shown.length).toBeGreaterThan(0);
    for (const n of shown) expect(n).toBe(planned);
  });

  it("a suite's console line leaves out its checks that wait, which the waiting line counts; summary.md counts them under it", async () => {
    const { planChecks } = await import('../src/checks/planner.js');
    const { loadCatalogue } = await import('../src/binding/catalogue-in-use.js');
    const m = readme.match(/\(customers: (\d+) on the console, (\d+) in summary\.md\)/);
    expect(m, 'the README gives the customers example').not.toBeNull();
    const customers = (await planChecks(await loadCatalogue(), ['customers'])).map((p) => p.def);
    expect(Number(m![2])).toBe(customers.length);
    expect(Number(m![1])).toBe(customers.filter((d) => !d.waits).length);
  });

  it('"running N suites" of a reference run: every suite but unbound', () => {
    const shown = [...readme.matchAll(/running (\d+) suites/g)].map((m) => Number(m[1]));
    expect(shown.length).toBeGreaterThan(0);
    for (const n of shown) expect(n).toBe(GROUPS.length + CROSS_CUTTING.length - 1);
  });

  it('the full self-verification takes the minutes selfcheck --help says', async () => {
    const { selfcheckCommand } = await import('../src/cli/commands/selfcheck.js');
    const help = /about (\d+) minutes/.exec(selfcheckCommand.description ?? '')![1];
    expect(readme).toMatch(new RegExp(`selfcheck --full --write +# each fault alone over every suite \\(about ${help} minutes`));
  });

  it('the smallest workflow is the file in examples/, with the line count stated', () => {
    const file = readFileSync(fromRoot('examples', 'github', 'fsapi-minimal.yml'), 'utf8');
    expect(readme).toContain(`\`\`\`yaml\n${file}\`\`\``);
    const lines = file.split('\n').filter((l) => l.trim()).length;
    expect(readme).toContain(`fsapi-minimal.yml), ${lines} lines)`);
  });
});
