/**
 * The signed predicate: what certify derived from the run, plus what only the signer can say (who is certified, the
 * key, when). verify derives the same from the package and compares member by member: a signed member that is not
 * what the package gives is named, with both values.
 */
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createAjv, describeErrors, type ValidateFunction } from '../catalogue/json-schema.js';
import { loadBuilt, writeBuilt } from '../catalogue/precompiled.js';
import { SUITE_VERSION } from '../paths.js';
import { differs } from './difference.js';
import type { Derived } from './derive.js';
import { VERIFY_EXIT } from './exit-codes.js';
import { ENVELOPE_FILE, evidenceFile, PREDICATE_SCHEMA, type CertificationPredicate } from './layout.js';

/** What only the signer says: checked for shape, shown, never derived. */
export interface Claims {
  party?: string;
  signer: { fingerprint: string; public_key: string };
  package: string;
  certified_at: string;
  lockfile?: { path: string; sha256: string };
}

export function predicateOf(d: Derived, claims: Claims): CertificationPredicate {
  const { report, inputs, planned, provenance, rejudgement, recomputed } = d;
  const { catalogue } = inputs;
  const binding = inputs.byRole.get('binding');
  const must = recomputed.assessment.coverage.must;
  return {
    suite: { name: 'fsapi-conformance', version: SUITE_VERSION, ...(claims.lockfile ? { lockfile: claims.lockfile } : {}) },
    ...(claims.party ? { party: claims.party } : {}),
    run: { id: report.run.id, seed: report.run.seed, started_at: report.run.started_at, finished_at: report.run.finished_at, node: report.run.node, platform: report.run.platform, strict: report.run.strict },
    target: { base_url: report.target.base_url, environment: report.target.environment, kind: provenance.kind, sandbox_faults: provenance.faults },
    scope: planned.scope,
    inputs: [...inputs.byRole].map(([role, i]) => ({ role, name: i.name, sha256: i.sha256 })),
    document: { title: catalogue.spec.title, openapi: catalogue.spec.version, sha256: catalogue.spec.sha256, reference_profile: catalogue.isReferenceProfile, operations: catalogue.spec.operations.length },
    ...(binding ? { binding: { sha256: binding.sha256, active_entries: catalogue.binding.accounting().filter((a) => a.status === 'bound').length } } : {}),
    verdict: recomputed.assessment.verdict,
    headline: recomputed.assessment.headline,
    coverage: {
      must: { applicable: must.applicable, verified: must.verified, failed: must.failed, not_verified: must.not_verified, waived: must.waived, not_applicable: must.not_applicable },
      requirements: recomputed.assessment.coverage.requirements.map((r) => ({ id: r.id, level: r.level, status: r.status })),
    },
    counts: recomputed.counts.by_status,
    rejudged: { checks: rejudgement.rejudged, answer_only: rejudgement.answerOnly, planned: rejudgement.planned, not_rejudged: rejudgement.notRejudged },
    evidence: Object.fromEntries(report.checks.map((c, i) => [c.id, evidenceFile(i)])),
    signer: claims.signer,
    package: claims.package,
    certified_at: claims.certified_at,
  };
}

/**
 * The predicate's validator as ajv standalone code, written by `npm run build` next to this module (as the report's
 * is, src/reports/schema.ts): compiling it cost verify 0.7 s. Used only when made from the schema as it is.
 */
const PRECOMPILED = fileURLToPath(new URL('./predicate-validator.cjs', import.meta.url));
const schemaSha256 = (): string => createHash('sha256').update(JSON.stringify(PREDICATE_SCHEMA)).digest('hex');
const predicateAjv = (standalone = false) => createAjv({ strict: true, standalone });

let validate: ValidateFunction | undefined;

/** Writes the standalone validator (run by `npm run build` on the compiled module). */
export async function writePredicateValidator(): Promise<void> {
  const { default: standalone } = await import('ajv/dist/standalone/index.js');
  const ajv = predicateAjv(true);
  writeBuilt(PRECOMPILED, standalone.default(ajv, ajv.compile(PREDICATE_SCHEMA)), schemaSha256());
}

/** The signed predicate, checked for shape before any of it is read. */
export function checkPredicateShape(p: unknown): CertificationPredicate {
  validate ??= loadBuilt<ValidateFunction>(PRECOMPILED, schemaSha256()) ?? predicateAjv().compile(PREDICATE_SCHEMA);
  if (!validate(p)) {
    const first = describeErrors(validate.errors)[0];
    return differs(VERIFY_EXIT.digest, `${ENVELOPE_FILE}: the signed statement is not a certification statement of this version: ${first ? `${first.pointer || '(root)'} ${first.message}` : 'its shape'}`);
  }
  return p as CertificationPredicate;
}

/** The signed claims of a predicate. */
export function claimsOf(p: CertificationPredicate): Claims {
  return { ...(p.party ? { party: p.party } : {}), signer: p.signer, package: p.package, certified_at: p.certified_at, ...(p.suite.lockfile ? { lockfile: p.suite.lockfile } : {}) };
}

/** The first member of the signed predicate that is not what the package gives. */
export function compareWithDerived(signed: CertificationPredicate, derived: CertificationPredicate): void {
  for (const key of Object.keys(derived) as (keyof CertificationPredicate)[]) {
    const a = JSON.stringify(signed[key]);
    const b = JSON.stringify(derived[key]);
    if (a === b) continue;
    const detail = a.length + b.length < 400 ? ` (signed ${a}, the package gives ${b})` : firstDeepDifference(signed[key], derived[key]);
    differs(VERIFY_EXIT.recomputed, `${ENVELOPE_FILE}: the signed ${key} is not what the package gives${detail}`);
  }
  for (const key of Object.keys(signed)) if (!(key in derived)) differs(VERIFY_EXIT.recomputed, `${ENVELOPE_FILE}: the signed ${key} is not what the package gives (it gives none)`);
}

function firstDeepDifference(a: unknown, b: unknown, path = ''): string {
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const k of keys) {
      const x = (a as Record<string, unknown>)[k];
      const y = (b as Record<string, unknown>)[k];
      if (JSON.stringify(x) !== JSON.stringify(y)) return firstDeepDifference(x, y, `${path}.${k}`);
    }
  }
  return ` (at ${path || '.'}: signed ${JSON.stringify(a)?.slice(0, 200)}, the package gives ${JSON.stringify(b)?.slice(0, 200)})`;
}
