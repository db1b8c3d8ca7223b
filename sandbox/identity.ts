/**
 * The reference sandbox says what it is on every answer: `fsapi-sandbox: fsapi-conformance/0.1.0; faults=a,b`.
 * A run's recorded answers then show, as evidence rather than as a field of the report, that the target was the
 * reference sandbox and which fault switches were on; `verify` derives both from them (src/certify).
 */
import { SUITE_VERSION } from '../src/paths.js';

export const SANDBOX_IDENTITY_HEADER = 'fsapi-sandbox';

export function sandboxIdentity(faults: Iterable<string>): string {
  return `fsapi-conformance/${SUITE_VERSION}; faults=${[...faults].sort().join(',')}`;
}

/** The faults an answer's identity header names, or undefined when it carries none (not the reference sandbox). */
export function faultsOfIdentity(value: string | undefined): string[] | undefined {
  const m = /^fsapi-conformance\/\S+; faults=([\w,-]*)$/.exec(value ?? '');
  if (!m) return undefined;
  return m[1] ? m[1].split(',') : [];
}
