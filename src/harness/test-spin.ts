/**
 * TEST-ONLY hook, never for a real run: with TEST_ONLY_FSAPI_SPIN_CHECK set to a check's id (`FSAPI-AUTH-001 listAccounts
 * no-key`), the worker that starts that check says so on stderr and then spins in a synchronous loop for ever, as a
 * value generator without a bound once did (issue 34). test/interrupt.test.ts uses it to prove that an interrupt
 * still ends such a run with its report, and that the watchdog ends one nobody interrupts. Unset, it costs one
 * environment lookup per check.
 */
import { writeSync } from 'node:fs';

// Outside the FSAPI_ settings on purpose: it is no setting of the suite, and a run refuses FSAPI_ names it does not know.
export const TEST_SPIN_VARIABLE = 'TEST_ONLY_FSAPI_SPIN_CHECK';

export function spinIfTestAsks(checkId: string): void {
  const asked = process.env[TEST_SPIN_VARIABLE];
  // `block:<check id>`: the same stuck event loop without the CPU, for tests that must wait out a check's limit.
  const block = asked === `block:${checkId}`;
  if (asked !== checkId && !block) return;
  // Written straight to the file descriptor: a worker's stream would pass its lines on only once it yields, never.
  writeSync(2, `test hook ${TEST_SPIN_VARIABLE}: ${block ? 'blocked' : 'spinning'} in ${checkId}\n`);
  if (block) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  for (;;);
}
