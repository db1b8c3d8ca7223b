import { LEVELS, type Level } from '../../catalogue/levels.js';
import { UsageError } from '../../errors.js';
import type { CommandSpec } from '../command.js';

export interface RequirementCoverage {
  id: string;
  level: Level;
  scope: 'target' | 'client';
  statement: string;
  source: string;
  checks: string[];
  faults: string[];
  tested_by?: string;
  not_tested?: string;
}

/** Each requirement with the checks that verify it and the sandbox faults that prove those checks can fail. */
export async function requirementCoverage(specPath?: string): Promise<RequirementCoverage[]> {
  const [{ citeSource }, { loadCatalogue }, { planChecks }] = await Promise.all([import('../../catalogue/index.js'), import('../../binding/catalogue-in-use.js'), import('../../checks/planner.js')]);
  const catalogue = await loadCatalogue(specPath ? { specPath } : {});
  const planned = await planChecks(catalogue);
  const { FAULTS } = await import('../../../sandbox/faults.js');
  return catalogue.requirements.all.map((r) => {
    const checks = planned.filter((p) => p.def.requirement === r.id).map((p) => p.id);
    const faults = FAULTS.filter((f) => f.breaks.includes(r.id)).map((f) => f.name);
    const entry: RequirementCoverage = { id: r.id, level: r.level, scope: r.scope, statement: r.statement, source: citeSource(r.source), checks, faults };
    if (r.testedBy) entry.tested_by = r.testedBy;
    const why = r.notTested ?? (r.scope === 'client' ? `an obligation on the suite itself, proven by ${r.testedBy}` : checks.length === 0 ? 'no check verifies it yet' : undefined);
    if (why) entry.not_tested = why;
    return entry;
  });
}

export const requirementsCommand: CommandSpec = {
  name: 'requirements',
  summary: 'print the requirement catalogue with each entry’s checks, the faults that prove them, and what is untested',
  usage: 'fsapi-conformance requirements [--level MUST] [--uncovered] [--json] [--spec FILE]',
  options: [
    { name: 'level', type: 'string', value: 'LEVEL', description: 'Only requirements of this level (MUST, CONTRACT, SHOULD, PROFILE, INFO).', default: 'every level' },
    { name: 'uncovered', type: 'boolean', description: 'Only requirements with no check, or no fault proving their checks.' },
    { name: 'json', type: 'boolean', description: 'Print JSON (one array) instead of text.' },
    { name: 'spec', type: 'string', value: 'FILE', env: 'FSAPI_SPEC', default: 'spec/openapi.yaml', description: 'Plan the checks against this OpenAPI document.' },
  ],
  exitCodes: [
    { code: 0, meaning: 'printed' },
    { code: 2, meaning: 'bad option or unreadable spec/catalogue' },
    { code: 3, meaning: 'internal error of the suite' },
  ],
  async run(args) {
    const level = args.values['level'] as string | undefined;
    if (level && !LEVELS.includes(level.toUpperCase() as Level)) {
      throw new UsageError(`unknown level ${level}`, { fix: `use one of ${LEVELS.join(', ')}` });
    }
    let rows = await requirementCoverage((args.values['spec'] as string | undefined) ?? process.env['FSAPI_SPEC']);
    if (level) rows = rows.filter((r) => r.level === level.toUpperCase());
    if (args.values['uncovered']) rows = rows.filter((r) => r.scope === 'target' && (r.checks.length === 0 || (r.level !== 'INFO' && r.faults.length === 0)));
    if (args.values['json']) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    for (const r of rows) {
      process.stdout.write(`${r.id} [${r.level}]${r.scope === 'client' ? ' (client)' : ''} ${r.statement}\n  source: ${r.source}\n`);
      process.stdout.write(`  checks: ${r.checks.length}${r.checks.length ? ` (${r.checks.slice(0, 3).join('; ')}${r.checks.length > 3 ? '; ...' : ''})` : ''}\n`);
      process.stdout.write(`  proven by faults: ${r.faults.length ? r.faults.join(', ') : r.level === 'INFO' ? '(INFO: observations never fail)' : 'none'}\n`);
      if (r.not_tested) process.stdout.write(`  note: ${r.not_tested}\n`);
    }
    const target = rows.filter((r) => r.scope === 'target');
    process.stdout.write(`\n${rows.length} requirements; ${target.filter((r) => r.checks.length).length}/${target.length} target requirements have checks; ${target.filter((r) => r.faults.length).length} are proven by at least one fault\n`);
    return 0;
  },
};
