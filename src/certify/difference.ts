/** The first difference a package shows: its exit code and one message naming the file, the check, what differs. */
import type { VerifyCode } from './exit-codes.js';

export class Difference extends Error {
  override readonly name = 'Difference';
  constructor(
    readonly code: VerifyCode,
    message: string,
  ) {
    super(message);
  }
}

/** Ends the derivation at the first difference. */
export function differs(code: VerifyCode, message: string): never {
  throw new Difference(code, message);
}
