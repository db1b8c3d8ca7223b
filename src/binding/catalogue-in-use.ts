/**
 * The catalogue in use: the document, the requirement catalogue, and the binding that says how the document plays
 * the reference operations. Here, above both, since a binding is read against the document.
 */
import { REFERENCE_SPEC_PATH, REQUIREMENTS_PATH } from '../catalogue/index.js';
import { UNBOUND_SUITE } from '../catalogue/groups.js';
import { loadSpec, type SpecDocument } from '../catalogue/openapi.js';
import { loadRequirements, type RequirementCatalogue } from '../catalogue/requirements.js';
import { Binding } from './binding.js';
import { loadBinding } from './load.js';

export interface Catalogue {
  spec: SpecDocument;
  requirements: RequirementCatalogue;
  /** True when the spec in use is the reference profile shipped with the suite. */
  isReferenceProfile: boolean;
  /** How the spec in use plays the reference operations (the identity for the reference profile). */
  binding: Binding;
}

let referenceCatalogue: Promise<Catalogue> | undefined;

/**
 * Loads the spec in use (the reference profile unless a vendor document is given) and the requirement catalogue.
 * The reference catalogue is loaded once per process and shared (the runner and the embedded sandbox both use it).
 */
export function loadCatalogue(opts: { specPath?: string; requirementsPath?: string; bindingPath?: string } = {}): Promise<Catalogue> {
  const reference = (!opts.specPath || opts.specPath === REFERENCE_SPEC_PATH) && !opts.requirementsPath && !opts.bindingPath;
  if (!reference) return load(opts);
  referenceCatalogue ??= load({}).catch((e: unknown) => {
    referenceCatalogue = undefined;
    throw e;
  });
  return referenceCatalogue;
}

async function load(opts: { specPath?: string; requirementsPath?: string; bindingPath?: string }): Promise<Catalogue> {
  const specPath = opts.specPath ?? REFERENCE_SPEC_PATH;
  const reference = await referenceDigest();
  // The reference profile is proven a valid OpenAPI 3.1 document by test/contract.test.ts.
  const [spec, requirements] = [await loadSpec(specPath, { trustedSha256: [reference] }), loadRequirements(opts.requirementsPath ?? REQUIREMENTS_PATH, { trusted: !opts.requirementsPath })];
  const isReferenceProfile = spec.sha256 === reference;
  const referenceSpec = isReferenceProfile ? spec : (await loadCatalogue()).spec;
  const file = opts.bindingPath ? loadBinding(opts.bindingPath, spec, referenceSpec) : undefined;
  const binding = new Binding(spec, referenceSpec, file, isReferenceProfile && !file);
  // The binding decides each operation's suite; an operation it places nowhere is still held to the seed's rules
  // (Api-Key on every request, Idempotency-Key on every POST) in the suite of unbound operations.
  if (!binding.isIdentity) for (const op of spec.operations) op.group = binding.groupOf(op) ?? UNBOUND_SUITE;
  return { spec, requirements, isReferenceProfile, binding };
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
