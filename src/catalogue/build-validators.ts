/**
 * Build step (`npm run build`): writes the reference profile's compiled validators (src/catalogue/precompiled.ts).
 * A module of its own, imported by nothing, so the catalogue's modules never import one another in a circle.
 */
import { REFERENCE_SPEC_PATH } from './index.js';
import { loadSpec, type SpecDocument } from './openapi.js';
import { REFERENCE_VALIDATORS_FILE, writeBuilt } from './precompiled.js';

/** `extra`: schemas beyond the declared ones that a run compiles validators for (src/explore/reference-validators.ts). */
export async function writeReferenceValidators(extra: (spec: SpecDocument) => readonly unknown[] = () => []): Promise<void> {
  const spec = await loadSpec(REFERENCE_SPEC_PATH, { standalone: true });
  writeBuilt(REFERENCE_VALIDATORS_FILE, spec.standaloneSource!(extra(spec)), spec.sha256);
}
