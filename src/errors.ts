/**
 * Errors a user can fix: bad configuration, bad spec or catalogue files, an unreachable target.
 * They end a run with exit code 2 and one readable message, never a stack trace.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** What to do about it, in one sentence. */
  readonly fix: string | undefined;
  /** The file the problem is in, when there is one. */
  readonly file: string | undefined;
  /** Where inside that file (line, or a JSON-pointer-like path). */
  readonly where: string | undefined;

  constructor(message: string, opts: { fix?: string; file?: string; where?: string } = {}) {
    super(message);
    this.fix = opts.fix;
    this.file = opts.file;
    this.where = opts.where;
  }

  /** One block of text for the console: file:where, the problem, and the fix. */
  describe(): string {
    const at = this.file ? `${this.file}${this.where ? `:${this.where}` : ''}: ` : '';
    return `${at}${this.message}${this.fix ? `\n  fix: ${this.fix}` : ''}`;
  }
}

export function isUsageError(e: unknown): e is UsageError {
  return e instanceof UsageError;
}
