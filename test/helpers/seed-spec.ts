import { readFileSync } from 'node:fs';
import { fromRoot } from '../../src/paths.js';

/**
 * The seed spec, kept verbatim in the repository so citations can be checked on any clone. Test-only (the
 * contract tests check the catalogue's citations; nothing the package runs needs it).
 */
export const SEED_SPEC_PATH = fromRoot('spec', 'seed', 'financial-services-api-spec.md');

/** Heading paths of the seed, e.g. ["Authentication", "Keys"], from its ## and ### headings. */
export function seedHeadings(markdown = readFileSync(SEED_SPEC_PATH, 'utf8')): string[][] {
  const out: string[][] = [];
  let h2 = '';
  for (const line of markdown.split('\n')) {
    const m2 = /^## (.+)$/.exec(line);
    const m3 = /^### (.+)$/.exec(line);
    if (m2) {
      h2 = m2[1]!.trim();
      out.push([h2]);
    } else if (m3 && h2) {
      out.push([h2, m3[1]!.trim()]);
    }
  }
  return out;
}

/**
 * Checks a citation such as "Authentication > Keys, rule 4; Errors" against the seed's headings.
 * Each part before a comma or parenthesis is a heading path; each level must begin a real heading.
 * Returns the parts that name no heading.
 */
export function unknownSeedSections(citation: string, headings = seedHeadings()): string[] {
  const bad: string[] = [];
  for (const part of citation.split(';')) {
    const section = part.replace(/\([^)]*\)/g, '').split(',')[0]!.trim();
    if (!section) continue;
    const levels = section.split('>').map((s) => s.trim().toLowerCase());
    const found = headings.some(
      (h) => h.length === levels.length && h.every((name, i) => name.toLowerCase().startsWith(levels[i]!)),
    );
    if (!found) bad.push(section);
  }
  return bad;
}
