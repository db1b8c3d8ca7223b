/**
 * How far V8 lets each thread's heap grow past what its last full collection kept, in a run that will hold many
 * results. V8 picks that factor itself, between 1.1 and 4, from how fast it collects against how fast the program
 * allocates; a run allocates fast and keeps most of what it makes (every check's result waits for the reports), so
 * V8 chose large factors, and most of a large run's peak memory was room to grow, not data. Against Stripe's document
 * repeated to 2,000 operations (bench/README.md, "A document of 2,000 operations"), the two threads held some 8 KB per
 * check alive and the process peaked at 2.1-2.3 GiB; with the factor at 1.8, at 1.5 GiB, for about a tenth more CPU
 * (the more frequent collections; 7 pairs at 1,000 and 2,000 operations: median 1.10, 0.84-1.18). Memory is the
 * cliff (a runner out of it kills the run and its report), CPU the slope. A smaller run gains less than it pays
 * (400 operations: 4% less memory, about 5% more CPU), so it keeps V8's choice. The largest runs are bounded more
 * tightly: since the run's other savings the 2,000 operations (57,413 checks) peaked at 968-1,033 MiB with the factor
 * at 1.8, once over 1 GiB in eleven runs, and at 1.5 at 897-914 MiB for 1-5% more CPU (3 alternated pairs); 1,000
 * operations (28,673 checks, 731-747 MiB at 1.8) would pay 10% more CPU for 60 MiB less, far from any limit.
 */
import { setFlagsFromString } from 'node:v8';

/**
 * From this many planned checks a run bounds its heap's growth to this factor (as a percentage past 1): from some 700
 * operations of a vendor's document, and more tightly from some 1,400. The first bound that applies is set.
 */
const BOUNDS = [
  { fromChecks: 40_000, growingPercent: 50 },
  { fromChecks: 20_000, growingPercent: 80 },
] as const;

/**
 * Bounds the heap's growth for a run of `plannedChecks`, when that is a large run. V8's flags are the process's and
 * this one is read at each collection, so the main thread, the workers started later and the sandbox's thread all
 * grow the same way from here on.
 */
export function boundHeapGrowth(plannedChecks: number): void {
  const percent = heapGrowingPercent(plannedChecks);
  if (percent !== undefined) setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/** The growing factor (a percentage past 1) a run of `plannedChecks` sets; undefined: V8's own. */
export function heapGrowingPercent(plannedChecks: number): number | undefined {
  return BOUNDS.find((b) => plannedChecks >= b.fromChecks)?.growingPercent;
}
