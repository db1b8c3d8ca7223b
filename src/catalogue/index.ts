import { fileURLToPath } from 'node:url';
import { loadSpec, type SpecDocument } from './openapi.js';
import { loadRequirements, type RequirementCatalogue } from './requirements.js';

export const REFERENCE_SPEC_PATH = fileURLToPath(new URL('../../spec/openapi.yaml', import.meta.url));
export const REQUIREMENTS_PATH = fileURLToPath(new URL('../../spec/requirements.yaml', import.meta.url));

export interface Catalogue {
  spec: SpecDocument;
  requirements: RequirementCatalogue;
  /** True when the spec in use is the reference profile shipped with the suite. */
  isReferenceProfile: boolean;
}

/** Loads the spec in use (the reference profile unless a vendor document is given) and the requirement catalogue. */
export async function loadCatalogue(opts: { specPath?: string; requirementsPath?: string } = {}): Promise<Catalogue> {
  const specPath = opts.specPath ?? REFERENCE_SPEC_PATH;
  const reference = await referenceDigest();
  // The reference profile is proven a valid OpenAPI 3.1 document by test/contract.test.ts.
  const [spec, requirements] = [await loadSpec(specPath, { trustedSha256: [reference] }), loadRequirements(opts.requirementsPath ?? REQUIREMENTS_PATH)];
  return { spec, requirements, isReferenceProfile: spec.sha256 === reference };
}

let referenceSha: string | undefined;
async function referenceDigest(): Promise<string> {
  if (!referenceSha) {
    const { createHash } = await import('node:crypto');
    const { readFileSync } = await import('node:fs');
    referenceSha = createHash('sha256').update(readFileSync(REFERENCE_SPEC_PATH)).digest('hex');
  }
  return referenceSha;
}

export * from './groups.js';
export * from './openapi.js';
export * from './requirements.js';
export type { JsonSchema, SchemaProblem } from './json-schema.js';
