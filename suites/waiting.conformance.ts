/**
 * Not a group: the checks of every group of the run that sit out a deliberate wait (an idempotent replay after
 * FSAPI_REPLAY_DELAY_MS, and the retention observation). Together in one file that starts first, the wait costs
 * the run once instead of holding up every suite with a POST; each check still reports under its own group.
 */
import { defineWaitingChecks } from '../src/vitest-suite/suite.js';

await defineWaitingChecks();
