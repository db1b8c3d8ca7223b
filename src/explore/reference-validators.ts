/**
 * Build step (`npm run build`): the reference profile's precompiled validators (src/catalogue/precompiled.ts), with
 * those the exploration's value making would otherwise compile in every worker of every run: one per explorable
 * member and per branch of one (src/explore/variants.ts makes a value of each and proves it valid). Compiling them
 * cost each worker 0.1-0.3 s of CPU, and the document's ajv with its compiler besides. A module of its own, imported
 * by nothing at run time.
 */
import { writeReferenceValidators as writeValidators } from '../catalogue/build-validators.js';
import type { SpecDocument } from '../catalogue/openapi.js';
import { inlineForeignRefs } from '../values/generate.js';
import { inputSlots } from './input-space.js';
import { madeBranches } from './variants.js';

/** The schemas the exploration proves made values against, for every operation and any valid request. */
export function exploredSchemas(spec: SpecDocument): unknown[] {
  const out: unknown[] = [];
  for (const op of spec.operations) {
    for (const slot of inputSlots(spec, op)) {
      for (const schema of [slot.schema, ...madeBranches(slot.schema).map((b) => b.branch)]) out.push(inlineForeignRefs(spec, schema));
    }
  }
  return out;
}

export function writeReferenceValidators(): Promise<void> {
  return writeValidators(exploredSchemas);
}
