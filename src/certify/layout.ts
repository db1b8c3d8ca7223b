/** What a certification package holds and where (docs/certification.md describes it for readers). */
import { createHash } from 'node:crypto';

/** The one top directory inside the tar. */
export const PACKAGE_DIR = 'fsapi-certification';
/** The DSSE envelope: the signed in-toto statement whose subjects are every other file's digest. */
export const ENVELOPE_FILE = 'envelope.dsse.json';
export const REPORT_FILE = 'reports/conformance.json';
export const CERTIFICATE_FILE = 'certificate.html';
export const BADGE_FILE = 'badge.svg';
export const PREDICATE_TYPE = 'https://github.com/fsapi-conformance/certification/v1';

export const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** The evidence file of the check at `index` in conformance.json: its recorded exchanges, on their own. */
export const evidenceFile = (index: number): string => `evidence/${String(index).padStart(4, '0')}.json`;

export interface CertificationPredicate {
  suite: { name: string; version: string; lockfile?: { path: string; sha256: string } };
  run: { id: string; seed: number; started_at: string; finished_at: string; node: string; platform: string; strict: boolean; groups: string[] };
  target: { base_url: string; environment: string; embedded: boolean };
  /** The document, binding and capabilities file in use, as packaged, with their digests. */
  inputs: { role: 'openapi' | 'requirements' | 'binding' | 'capabilities'; name: string; sha256: string }[];
  document: { title: string; openapi: string; sha256: string };
  verdict: string;
  headline: string;
  /** MUST coverage and every requirement's status (the reasons are in reports/conformance.json). */
  coverage: { must: unknown; requirements: { id: string; level: string; status: string }[] };
  counts: unknown;
  /** What certify could re-judge from the evidence, and agreed with. */
  rejudged: { checks: number; answer_only: number; of: number; not_rejudged: { reason: string; count: number }[] };
  /** The evidence file of each check, by check ID. */
  evidence: Record<string, string>;
  signer: { fingerprint: string };
  certified_at: string;
}
