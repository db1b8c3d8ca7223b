import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fromRoot } from '../paths.js';
import { UsageError } from '../errors.js';
import { createAjv, describeErrors } from './json-schema.js';
import { LEVELS, type Level } from './levels.js';
import { displayPath, pointerToPath, readSourceFileCached } from './yaml-file.js';

export { LEVELS, type Level };

export type RequirementSource =
  | { seed: string }
  | { standard: string; clause: string; url?: string }
  | { profile: string };

export interface Requirement {
  id: string;
  level: Level;
  /** target: checked against a server; client: an obligation on this suite, proven by the project's own tests. */
  scope: 'target' | 'client';
  statement: string;
  source: RequirementSource;
  verification: string;
  testedBy: string | undefined;
  notTested: string | undefined;
  /** Where its checks are defined and the variants each makes (generated: npm run index). */
  checks: readonly { at: string; variants: readonly string[] }[];
  /** The sandbox faults that break it (generated: npm run index). */
  faults: readonly string[];
}

export interface RequirementCatalogue {
  path: string;
  sha256: string;
  all: Requirement[];
  byId: Map<string, Requirement>;
  get(id: string): Requirement;
}

const SCHEMA_PATH = fromRoot('spec', 'requirements.schema.json');

/** Renders a requirement's source as one citation line ("seed: Endpoints, rule 1"). */
export function citeSource(s: RequirementSource): string {
  if ('seed' in s) return `seed spec: ${s.seed}`;
  if ('standard' in s) return `${s.standard}, ${s.clause}`;
  return `reference profile: ${s.profile}`;
}

/**
 * `trusted`: the catalogue shipped with the suite, which test/catalogue.test.ts validates against the schema;
 * every run loads it in every thread, and compiling the schema there costs more than a short run's checks.
 */
export function loadRequirements(path: string, opts: { trusted?: boolean } = {}): RequirementCatalogue {
  const file = readSourceFileCached(path, 'requirement catalogue');
  const shown = displayPath(path);
  const validate = opts.trusted ? undefined : createAjv().compile(JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as object);
  if (validate && !validate(file.data)) {
    const problems = describeErrors(validate.errors);
    // Prefer the deepest problem: it names the field to fix.
    const p = [...problems].sort((a, b) => b.pointer.length - a.pointer.length)[0]!;
    const where = pointerToPath(p.pointer);
    throw new UsageError(`requirement catalogue entry invalid at ${where.join('.') || '(root)'}: ${p.message}`, {
      file: shown,
      where: String(file.lineOf(where) ?? ''),
      fix: 'each entry needs id (FSAPI-AREA-NNN), level (MUST, CONTRACT, SHOULD, PROFILE, INFO), statement, source and verification; see spec/requirements.schema.json',
    });
  }
  const data = file.data as { requirements: Record<string, unknown>[] };
  const byId = new Map<string, Requirement>();
  data.requirements.forEach((r, i) => {
    const req: Requirement = {
      id: String(r['id']),
      level: r['level'] as Level,
      scope: r['scope'] === 'client' ? 'client' : 'target',
      statement: String(r['statement']),
      source: r['source'] as RequirementSource,
      verification: String(r['verification']),
      testedBy: r['tested_by'] as string | undefined,
      notTested: r['not_tested'] as string | undefined,
      checks: (r['checks'] as Requirement['checks'] | undefined) ?? [],
      faults: (r['faults'] as string[] | undefined) ?? [],
    };
    if (byId.has(req.id)) {
      throw new UsageError(`requirement ${req.id} is listed twice`, {
        file: shown,
        where: String(file.lineOf(['requirements', i]) ?? ''),
        fix: 'requirement IDs are stable and unique: give the new entry the next free number',
      });
    }
    byId.set(req.id, req);
  });
  return {
    path,
    sha256: createHash('sha256').update(readFileSync(path)).digest('hex'),
    all: [...byId.values()],
    byId,
    get(id) {
      const r = byId.get(id);
      if (!r) throw new Error(`unknown requirement ${id}: every check must name an entry of ${shown}`);
      return r;
    },
  };
}
