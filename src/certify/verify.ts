/**
 * `verify`: a certification package checked offline, trusting nothing its signer wrote that can be derived. The
 * package is opened in memory, the envelope's signature checked before anything else is inflated; then every file
 * against its signed digest, and everything else derived by the suite's own code (src/certify/derive.ts): the
 * inputs against the suite's, the plan, the evidence's provenance, every check re-judged, the verdict recomputed,
 * the certificate and badge rendered again, the signed statement compared with all of it. The first difference
 * ends it, with its exit code and one message naming the file, the check and what differs.
 */
import type { KeyObject } from 'node:crypto';
import { SUITE_VERSION } from '../paths.js';
import { caveats, renderBadge, renderCertificate } from './certificate.js';
import { Difference, differs } from './difference.js';
import { derivePackage, type Derived } from './derive.js';
import { openEnvelope, STATEMENT_TYPE, type Envelope } from './dsse.js';
import { BELOW_REQUIRED, VERIFY_EXIT } from './exit-codes.js';
import { BADGE_FILE, CERTIFICATE_FILE, ENVELOPE_FILE, EVIDENCE_NAME, INPUT_NAME, PREDICATE_TYPE, REPORT_FILE, type CertificationPredicate } from './layout.js';
import { readEnvelope, readListed, UnsafePackage } from './package-read.js';
import { checkPredicateShape, claimsOf, compareWithDerived, predicateOf } from './statement.js';

/** The verdicts --require takes, with what each accepts. */
export const REQUIRE = {
  conformant: ['conformant'],
  'inconclusive-or-better': ['conformant', 'inconclusive'],
} as const;
export type Required = keyof typeof REQUIRE;

export interface Verified {
  code: number;
  /** The first difference, or what agreed. */
  message: string;
  statement?: CertificationPredicate;
  derived?: Derived;
  /** Files in the package, the envelope included (as certify counts them). */
  files?: number;
}

/** The files whose bytes verify reads (the others it only hashes). */
const kept = (name: string): boolean => name === REPORT_FILE || name === CERTIFICATE_FILE || name === BADGE_FILE || EVIDENCE_NAME.test(name) || INPUT_NAME.test(name);

/** What the caller accepts: a verdict at least `require`; with `acceptCaveats`, also a package that is less than a vendor's full run. */
export interface VerifyOptions {
  require?: Required;
  acceptCaveats?: boolean;
}

export async function verifyPackage(path: string, key: KeyObject, opts: VerifyOptions = {}): Promise<Verified> {
  try {
    return await verifyOrDiffer(path, key, opts);
  } catch (e) {
    if (e instanceof Difference) return { code: e.code, message: e.message };
    if (e instanceof UnsafePackage) return { code: VERIFY_EXIT.digest, message: e.message };
    throw e;
  }
}

async function verifyOrDiffer(path: string, key: KeyObject, opts: VerifyOptions): Promise<Verified> {
  const envelopeBytes = await readEnvelope(path, ENVELOPE_FILE);
  if (!envelopeBytes) differs(VERIFY_EXIT.digest, `${ENVELOPE_FILE}: missing from the package`);
  let envelope: Envelope;
  try {
    envelope = JSON.parse(envelopeBytes.toString('utf8')) as Envelope;
  } catch {
    return differs(VERIFY_EXIT.signature, `${ENVELOPE_FILE}: not JSON`);
  }
  const opened = openEnvelope<unknown>(envelope, key);
  if ('problem' in opened) differs(VERIFY_EXIT.signature, `${ENVELOPE_FILE}: ${opened.problem}`);
  const { statement } = opened;
  if (statement._type !== STATEMENT_TYPE) differs(VERIFY_EXIT.signature, `${ENVELOPE_FILE}: not an in-toto Statement v1`);
  if (statement.predicateType !== PREDICATE_TYPE) {
    differs(VERIFY_EXIT.version, `${ENVELOPE_FILE}: predicateType ${JSON.stringify(statement.predicateType)} is not ${PREDICATE_TYPE}: the package was made by another version of fsapi-conformance (this is ${SUITE_VERSION})`);
  }
  const version = (statement.predicate as { suite?: { version?: unknown } } | null)?.suite?.version;
  if (version !== SUITE_VERSION) {
    differs(VERIFY_EXIT.version, `the package was made by fsapi-conformance ${String(version)}; this is ${SUITE_VERSION}: re-judging needs the judgement code of the version that made it (install that version from your lockfile, README "Installing")`);
  }
  const p = checkPredicateShape(statement.predicate);
  const subjects = Array.isArray(statement.subject) ? statement.subject : differs(VERIFY_EXIT.digest, `${ENVELOPE_FILE}: the statement lists no subjects`);
  const listed = new Map<string, string>();
  for (const s of subjects) {
    const name = typeof s?.name === 'string' ? s.name : differs(VERIFY_EXIT.digest, `${ENVELOPE_FILE}: a subject without a name`);
    if (listed.has(name)) differs(VERIFY_EXIT.digest, `${ENVELOPE_FILE}: ${name} is listed twice`);
    listed.set(name, String(s.digest?.sha256 ?? ''));
  }
  const { kept: files, digests } = await readListed(path, new Set([...listed.keys(), ENVELOPE_FILE]), kept);
  // Which check an evidence file is of, for a message naming a difference (worked out only then).
  const what = (name: string) => {
    const about = Object.entries(p.evidence).find(([, f]) => f === name)?.[0];
    return `${name}${about ? ` (evidence of check ${about})` : ''}`;
  };
  for (const [name, want] of listed) {
    const got = digests.get(name);
    if (!got) differs(VERIFY_EXIT.digest, `${what(name)}: missing from the package`);
    if (got.sha256 !== want) differs(VERIFY_EXIT.digest, `${what(name)}: SHA-256 ${got.sha256} differs from the signed ${want}`);
  }
  const derived = await derivePackage(files, p.inputs);
  const expected = predicateOf(derived, claimsOf(p));
  compareWithDerived(p, expected);
  const assessment = derived.recomputed.assessment;
  for (const [file, rendered] of [
    [CERTIFICATE_FILE, renderCertificate(expected, assessment)],
    [BADGE_FILE, renderBadge(expected)],
  ] as const) {
    if (files.get(file)?.toString('utf8') !== rendered) differs(VERIFY_EXIT.recomputed, `${file}: not the ${file === BADGE_FILE ? 'badge' : 'certificate'} the package gives (rendered again from what verify derived)`);
  }
  const count = digests.size;
  const r = derived.rejudgement;
  // What the package is, before what agreed: the caveats the certificate's headline carries, the party, the target.
  const warn = caveats(p);
  const headline = `${p.verdict}${warn.length ? ` (${warn.join('; ')})` : ''}${p.party ? ` for ${p.party}` : ''} at ${p.target.base_url}`;
  const summary = `${headline}; signed by ${p.signer.fingerprint}; ${count} files match their digests; the plan's ${r.planned} checks all recorded; ${r.rejudged} re-judged from their exchanges (${r.answerOnly} on the probe's answer only), all agree, ${r.notRejudged.length} not re-judged (verify --json lists them); counts, verdict, certificate and badge recomputed`;
  const accepted = opts.require ? (REQUIRE[opts.require] as readonly string[]).includes(p.verdict) : true;
  if (!accepted) {
    return { code: BELOW_REQUIRED[p.verdict as keyof typeof BELOW_REQUIRED], message: `verified, but ${p.verdict}, below --require ${opts.require}: ${summary}`, statement: p, derived, files: count };
  }
  // A gate asks for a vendor's full run: the suite's own sandbox, suites left out or one shard is less, whatever its verdict.
  if (opts.require && warn.length && !opts.acceptCaveats) {
    return { code: VERIFY_EXIT.caveats, message: `verified, but ${warn.join('; ')}: not a vendor's full run, below --require ${opts.require} (--accept-caveats accepts it): ${summary}`, statement: p, derived, files: count };
  }
  return { code: VERIFY_EXIT.ok, message: `verified: ${summary}`, statement: p, derived, files: count };
}
