/**
 * TEST-ONLY hook, never for a real run: with TEST_ONLY_FSAPI_SPIN_CHECK set to a check's id (`FSAPI-AUTH-001 listAccounts
 * no-key`), the worker that starts that check says so on stderr and then spins in a synchronous loop for ever, as a
 * value generator without a bound once did (issue 34). test/interrupt.test.ts uses it to prove that an interrupt
 * still ends such a run with its report. Unset, it costs one environment lookup per check.
 */
import { writeSync } from 'node:fs';

// Outside the FSAPI_ settings on purpose: it is no setting of the suite, and a run refuses FSAPI_ names it does not know.
export const TEST_SPIN_VARIABLE = 'TEST_ONLY_FSAPI_SPIN_CHECK';

export function spinIfTestAsks(checkId: string): void {
  if (process.env[TEST_SPIN_VARIABLE] !== checkId) return;
  // Written straight to the file descriptor: a worker's stream would pass its lines on only once it yields, never.
  writeSync(2, `test hook ${TEST_SPIN_VARIABLE}: spinning in ${checkId}\n`);
  for (;;);
}
