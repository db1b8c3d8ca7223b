import { hash } from 'node:crypto';

/**
 * A UUID-shaped idempotency key unique to this run, label and counter (never reused across runs). The label is the
 * check's id (or `<id> retry <n>`, or `<suite>:world:<principal>` for set-up): verify derives every key of a run's
 * evidence from its run id, so an exchange of another run shows (src/certify/provenance.ts).
 */
export function idempotencyKeyFor(runId: string, label: string, n: number): string {
  const h = hash('sha256', `${runId}|${label}|${n}`, 'hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The label of a check's keys: its id, or its id and attempt on a retry. */
export const keyScope = (checkId: string, attempt: number): string => (attempt ? `${checkId} retry ${attempt}` : checkId);

/** The label of a suite's set-up keys (its world) for a business. */
export const worldKeyScope = (suite: string, principal: 'primary' | 'second'): string => `${suite}:world:${principal}`;
