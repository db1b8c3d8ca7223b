/** Versioning: the version segment /v1/ of the base address (seed: Versioning). Its checks come from the generic families. */
import type { CheckDef } from '../src/harness/check.js';
import { defineSuite } from '../src/vitest-suite/suite.js';

export const flows: CheckDef[] = [];

await defineSuite('versioning', flows);
