/**
 * The run's interrupt (SIGINT/SIGTERM): the CLI aborts with an Interrupted; the runner says what it will still do,
 * and only once it can keep that word.
 */

/** The reason of the run's interrupt signal: which signal stopped it. */
export class Interrupted extends Error {
  override readonly name = 'Interrupted';
  constructor(readonly signal: NodeJS.Signals) {
    super(`interrupted by ${signal}`);
  }
}

/** Where the run is when an interrupt comes: before or during the checks, or writing the report of a finished run. */
export type RunStage = 'checks' | 'reporting';

/** What the console says on an interrupt, in each stage: a promise the run keeps. */
export function interruptMessage(reason: unknown, stage: RunStage): string {
  const sig = reason instanceof Interrupted ? reason.signal : 'interrupted';
  return stage === 'reporting'
    ? `\n${sig}: every check had finished; the report is being written (press again to quit at once, without it).`
    : `\n${sig}: stopping; the report will hold what was learnt (verdict incomplete). Press again to quit at once, without a report.`;
}

/**
 * From now on the run can always write its report: says so for an interrupt that came before (while the run
 * started) or that comes later, in the words of the stage the run is then in. Returns the function that stops it.
 */
export function announceInterrupts(signal: AbortSignal, stage: () => RunStage, log: (line: string) => void): () => void {
  const announce = () => log(interruptMessage(signal.reason, stage()));
  if (signal.aborted) {
    announce();
    return () => undefined;
  }
  signal.addEventListener('abort', announce, { once: true });
  return () => signal.removeEventListener('abort', announce);
}
