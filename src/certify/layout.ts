/** What a certification package holds and where (docs/certification.md describes it for readers). */
import { createHash } from 'node:crypto';
import type { SuiteSlug } from '../catalogue/groups.js';
import type { Level } from '../catalogue/levels.js';
import type { RequirementStatus, StatusCounts, Verdict } from '../results/model.js';

/** The one top directory inside the tar. */
export const PACKAGE_DIR = 'fsapi-certification';
/** The DSSE envelope: the signed in-toto statement whose subjects are every other file's digest. certify writes it first. */
export const ENVELOPE_FILE = 'envelope.dsse.json';
export const REPORT_FILE = 'reports/conformance.json';
export const CERTIFICATE_FILE = 'certificate.html';
export const BADGE_FILE = 'badge.svg';
/** v2: verify plans the run itself and derives what v1 took from the signer (docs/certification.md). */
export const PREDICATE_TYPE = 'https://github.com/fsapi-conformance/certification/v2';

export const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** The evidence file of the check at `index` in conformance.json: its recorded exchanges, on their own. */
export const evidenceFile = (index: number): string => `evidence/${String(index).padStart(4, '0')}.json`;
export const EVIDENCE_NAME = /^evidence\/\d{4,}\.json$/;

export type InputRole = 'openapi' | 'requirements' | 'binding' | 'capabilities';
export const INPUT_ROLES: readonly InputRole[] = ['openapi', 'requirements', 'binding', 'capabilities'];

/** An input's one name in a package: its role and its format, nothing the signer chose. */
export const inputName = (role: InputRole, format: 'yaml' | 'json'): string => `inputs/${role}.${format}`;
export const INPUT_NAME = /^inputs\/(openapi|requirements|binding|capabilities)\.(yaml|json)$/;

/** The file format of an input, from its name as the run knew it (YAML unless it says .json). */
export const formatOf = (path: string): 'yaml' | 'json' => (/\.json$/i.test(path) ? 'json' : 'yaml');

/** What the answers of the run show the target to be (src/certify/provenance.ts). */
export type TargetKind = 'reference-sandbox' | 'loopback' | 'remote';

export interface CertificationPredicate {
  suite: { name: string; version: string; lockfile?: { path: string; sha256: string } };
  /** Who is certified, as certify --party named them (absent: not named). */
  party?: string;
  run: { id: string; seed: number; started_at: string; finished_at: string; node: string; platform: string; strict: boolean };
  /** The target, with what its answers show it to be and the sandbox faults they name. */
  target: { base_url: string; environment: 'sandbox' | 'live'; kind: TargetKind; sandbox_faults: string[] };
  /** What the run covered: its suites, the ones asked for, and those it left out (a shard's, or not asked for). */
  scope: { groups: SuiteSlug[]; requested: SuiteSlug[]; not_run: SuiteSlug[]; shard?: { index: number; count: number }; excluded_operations: string[] };
  /** The document, requirements, binding and capabilities file in use, as packaged, with their digests. */
  inputs: { role: InputRole; name: string; sha256: string }[];
  document: { title: string; openapi: string; sha256: string; reference_profile: boolean; operations: number };
  /** The binding in use: its active entries (a vendor document's run). */
  binding?: { sha256: string; active_entries: number };
  verdict: Verdict;
  headline: string;
  coverage: {
    must: { applicable: number; verified: number; failed: number; not_verified: number; waived: number; not_applicable: number };
    requirements: { id: string; level: Level; status: RequirementStatus }[];
  };
  counts: StatusCounts;
  /** What was re-judged from the evidence, of the checks the plan has; every other check by id, with why. */
  rejudged: { checks: number; answer_only: number; planned: number; not_rejudged: { id: string; reason: string }[] };
  /** The evidence file of each check, by check ID. */
  evidence: Record<string, string>;
  /** The signing key, and the name of its public key file the certificate tells a certifier to use. */
  signer: { fingerprint: string; public_key: string };
  /** The package's file name, as the certificate's "how to verify" names it. */
  package: string;
  certified_at: string;
}

const str = { type: 'string' } as const;
const int = { type: 'integer', minimum: 0 } as const;
const strings = { type: 'array', items: str } as const;
const sha = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
const obj = (required: string[], properties: Record<string, unknown>, extra = false) => ({ type: 'object', required, properties, additionalProperties: extra });

/**
 * The predicate's JSON Schema: a signed statement is still checked for shape before any of it is read (a signer
 * can sign anything). Optional members are optional; everything else must be there, with its type.
 */
/** A party's name: printable text only (no C0/C1 control characters). */
export const PARTY_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f]+$';

export const PREDICATE_SCHEMA = obj(
  ['suite', 'run', 'target', 'scope', 'inputs', 'document', 'verdict', 'headline', 'coverage', 'counts', 'rejudged', 'evidence', 'signer', 'package', 'certified_at'],
  {
    suite: obj(['name', 'version'], { name: str, version: str, lockfile: obj(['path', 'sha256'], { path: str, sha256: sha }) }),
    // No control characters: verify prints the party on a terminal, where an escape sequence could rewrite the line.
    party: { type: 'string', minLength: 1, maxLength: 200, pattern: PARTY_PATTERN },
    run: obj(['id', 'seed', 'started_at', 'finished_at', 'node', 'platform', 'strict'], { id: str, seed: { type: 'integer' }, started_at: str, finished_at: str, node: str, platform: str, strict: { type: 'boolean' } }),
    target: obj(['base_url', 'environment', 'kind', 'sandbox_faults'], { base_url: str, environment: { enum: ['sandbox', 'live'] }, kind: { enum: ['reference-sandbox', 'loopback', 'remote'] }, sandbox_faults: strings }),
    scope: obj(['groups', 'requested', 'not_run', 'excluded_operations'], { groups: strings, requested: strings, not_run: strings, shard: obj(['index', 'count'], { index: int, count: int }), excluded_operations: strings }),
    inputs: { type: 'array', items: obj(['role', 'name', 'sha256'], { role: { enum: [...INPUT_ROLES] }, name: { type: 'string', pattern: INPUT_NAME.source }, sha256: sha }) },
    document: obj(['title', 'openapi', 'sha256', 'reference_profile', 'operations'], { title: str, openapi: str, sha256: sha, reference_profile: { type: 'boolean' }, operations: int }),
    binding: obj(['sha256', 'active_entries'], { sha256: sha, active_entries: int }),
    verdict: { enum: ['conformant', 'non-conformant', 'inconclusive', 'incomplete'] },
    headline: str,
    coverage: obj(['must', 'requirements'], {
      must: obj(['applicable', 'verified', 'failed', 'not_verified', 'waived', 'not_applicable'], { applicable: int, verified: int, failed: int, not_verified: int, waived: int, not_applicable: int }, true),
      requirements: { type: 'array', items: obj(['id', 'level', 'status'], { id: str, level: str, status: str }) },
    }),
    counts: obj(['total', 'passed', 'failed', 'warning', 'skipped', 'error'], { total: int, passed: int, failed: int, warning: int, skipped: int, error: int }),
    rejudged: obj(['checks', 'answer_only', 'planned', 'not_rejudged'], { checks: int, answer_only: int, planned: int, not_rejudged: { type: 'array', items: obj(['id', 'reason'], { id: str, reason: str }) } }),
    evidence: { type: 'object', additionalProperties: { type: 'string', pattern: EVIDENCE_NAME.source } },
    signer: obj(['fingerprint', 'public_key'], { fingerprint: str, public_key: { type: 'string', minLength: 1, maxLength: 200 } }),
    package: { type: 'string', minLength: 1, maxLength: 200 },
    certified_at: str,
  },
);
