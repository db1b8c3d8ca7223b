import { appendFileSync, writeFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import type { LiveProgress } from '../runner/progress.js';

/** Where a run's lines go: results to stdout, diagnostics to stderr, both also to the log file when one is given. */
export interface RunOutput {
  /** Diagnostics: configuration notes, warnings, interrupts (stderr). */
  log: (line: string) => void;
  /** Results: the target, each suite's line, the verdict (stdout). */
  result: (line: string) => void;
}

export function runOutput(progress: LiveProgress | undefined, logFile: string | undefined, streams = { out: process.stdout, err: process.stderr }): RunOutput {
  if (logFile !== undefined) {
    try {
      writeFileSync(logFile, '');
    } catch (e) {
      throw new UsageError(`--log-file: cannot write ${logFile} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { fix: 'name a file in a folder that exists and that you can write' });
    }
  }
  // Appended line by line, so a run that is killed keeps what it had said.
  const tee = (line: string) => {
    if (logFile !== undefined) appendFileSync(logFile, `${line}\n`);
  };
  const to = (stream: NodeJS.WriteStream) => (line: string) => {
    if (progress) progress.line(line, stream);
    else stream.write(`${line}\n`);
    tee(line);
  };
  return { log: to(streams.err), result: to(streams.out) };
}
