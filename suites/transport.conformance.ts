/** Transport: HTTPS only (seed: Authentication > Keys, rule 3). Its checks come from the generic families. */
import type { CheckDef } from '../src/harness/check.js';
import { defineSuite } from '../src/vitest-suite/suite.js';

export const flows: CheckDef[] = [];

await defineSuite('transport', flows);
