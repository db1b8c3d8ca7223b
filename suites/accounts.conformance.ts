/** Accounts: create and manage internal accounts (seed: GET /accounts with Api-Key and x-tenant-id). */
import type { CheckDef } from '../src/harness/check.js';
import { defineSuite } from '../src/harness/suite.js';

export const flows: CheckDef[] = [];

await defineSuite('accounts', flows);
