/**
 * Operations of a vendor's document that the binding places in no group: the generic families still hold them to
 * the seed's rules (Api-Key on every request, Idempotency-Key on every POST) and to their own document.
 */
import type { CheckDef } from '../src/harness/check.js';
import { defineSuite } from '../src/vitest-suite/suite.js';

export const flows: CheckDef[] = [];

await defineSuite('unbound', flows);
