// When V8 compiles a hot function with its optimising compiler (TurboFan). A run of the CLI is short and touches a
// great deal of code a few hundred times each (suite files, the harness, reports): by V8's default (a function is
// considered after about 66 KB of its bytecode has run) most of the background compiling a run pays for is of code
// that has stopped running by the time it is ready. Asked 250 times later, TurboFan still takes the loops that run
// for seconds (a vendor run's validating and value making). V8's flags are the process's, so the workers and the
// sandbox's thread, started later, tier up the same way. Measured (bench/README.md, "where `npm test`'s CPU goes
// now, and when V8 optimises"): a one-suite run and a full run about 6% less CPU, a vendor run about 10%, wall times
// unchanged. The `sandbox` command is the other kind: a server, up as long as its user keeps it, whose few request
// paths run for every request; V8's default serves it (bench/floor.ts against it, 4 alternated pairs: 1.34-1.39
// CPU-s for a full run's requests, against 1.53-1.66 with the late tier-up).
import { setFlagsFromString } from 'node:v8';

const INTERRUPT_BUDGET = 16 * 1024 * 1024;
/** The commands that run as servers: V8 tiers them up as it would any program. */
const SERVERS = new Set(['sandbox']);

/** Sets V8's tier-up for the process that runs `command` (the CLI's first argument). */
export function tierUpLater(command) {
  if (SERVERS.has(command)) return;
  setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET}`);
}
