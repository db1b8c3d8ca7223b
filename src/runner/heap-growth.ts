/**
 * How far V8 lets each thread's heap grow past what its last full collection kept, in a run that will hold many
 * results. V8 picks that factor itself, between 1.1 and 4, from how fast it collects against how fast the program
 * allocates; a run allocates fast and keeps most of what it makes (every check's result waits for the reports), so
 * V8 chose large factors, and most of a large run's peak memory was room to grow, not data. Against Stripe's document
 * repeated to 2,000 operations (bench/README.md, "A document of 2,000 operations"), the two threads held some 8 KB per
 * check alive and the process peaked at 2.1-2.3 GiB; with the factor at 1.8, at 1.5 GiB, for about a tenth more CPU
 * (the more frequent collections; 7 pairs at 1,000 and 2,000 operations: median 1.10, 0.84-1.18). Memory is the
 * cliff (a runner out of it kills the run and its report), CPU the slope. A smaller run gains less than it pays
 * (400 operations: 4% less memory, about 5% more CPU), so it keeps V8's choice.
 */
import { setFlagsFromString } from 'node:v8';

/** From this many planned checks (some 700 operations of a vendor's document) a run bounds its heap's growth. */
const LARGE_RUN_CHECKS = 20_000;
const HEAP_GROWING_PERCENT = 80;

/**
 * Bounds the heap's growth for a run of `plannedChecks`, when that is a large run. V8's flags are the process's and
 * this one is read at each collection, so the main thread, the workers started later and the sandbox's thread all
 * grow the same way from here on.
 */
export function boundHeapGrowth(plannedChecks: number): void {
  if (plannedChecks >= LARGE_RUN_CHECKS) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
