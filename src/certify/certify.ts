/**
 * `certify`: one run as a signed package. The run's reports, each check's exchanges on their own, the document,
 * requirements, binding and capabilities file in use under fixed names; a signed in-toto statement of every file's
 * digest and of what the package gives (derived by the same code verify runs, src/certify/derive.ts); the
 * certificate and badge rendered from it. A run whose evidence contradicts its results is refused, naming the first
 * difference; a run against the reference sandbox is refused unless asked for, and then says so in its headline.
 */
import { existsSync, lstatSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { KeyObject } from 'node:crypto';
import * as tar from 'tar';
import { REFERENCE_SPEC_PATH, REQUIREMENTS_PATH } from '../catalogue/index.js';
import { UsageError } from '../errors.js';
import { PACKAGE_ROOT } from '../paths.js';
import { CHECKSUMS_FILE } from '../reports/checksums.js';
import { renderBadge, renderCertificate } from './certificate.js';
import { derivePackage, readReport, type Derived } from './derive.js';
import { signStatement, STATEMENT_TYPE, type Statement } from './dsse.js';
import { fingerprintOf, loadPublicKey } from './keys.js';
import { BADGE_FILE, CERTIFICATE_FILE, ENVELOPE_FILE, evidenceFile, formatOf, inputName, PACKAGE_DIR, PREDICATE_TYPE, REPORT_FILE, sha256, type CertificationPredicate, type InputRole } from './layout.js';
import { predicateOf } from './statement.js';

export interface CertifyOptions {
  runDir: string;
  key: KeyObject;
  out: string;
  /** Who is certified ("Acme Bank, Payments API"), on the certificate and in the statement. */
  party?: string;
  /** The public key file a certifier is to use, as the certificate names it (default: the private key's PREFIX.pub). */
  publicKey?: string;
  /** A run against the reference sandbox (or with its faults) is certified only when asked for, and says so. */
  allowReferenceSandbox?: boolean;
}

export interface Certified {
  out: string;
  certificate: string;
  badge: string;
  bytes: number;
  files: number;
  derived: Derived;
  predicate: CertificationPredicate;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return walk(p);
    // A run directory holds files the run wrote; a link in it would package whatever it points at.
    if (!e.isFile()) throw new UsageError(`${p} is not a regular file (a link?): a run directory holds only the files the run wrote`);
    return [p];
  });
}

/** The lockfile that pins the suite: the project's own (where it is run), else the suite's. */
function lockfile(): { path: string; sha256: string } | undefined {
  for (const dir of [process.cwd(), PACKAGE_ROOT]) {
    const p = join(dir, 'package-lock.json');
    if (existsSync(p)) return { path: relative(process.cwd(), p) || 'package-lock.json', sha256: sha256(readFileSync(p)) };
  }
  return undefined;
}

/** An input by the path the report names: relative to where the run was started, or the suite's own. */
function inputPath(p: string, what: string): string {
  for (const candidate of [resolve(p), resolve(PACKAGE_ROOT, p)]) if (existsSync(candidate)) return candidate;
  throw new UsageError(`${what} of the run, ${p}, is not there: run certify from where the run was started`);
}

/** The public key file's name for the certificate; when it is beside the private key, it must be that key's. */
function publicKeyName(o: CertifyOptions, keyPath: string | undefined): string {
  const named = o.publicKey ?? (keyPath ? `${keyPath.replace(/\.key$/, '')}.pub` : undefined);
  if (!named) return 'SIGNER.pub';
  if (existsSync(named) && fingerprintOf(loadPublicKey(named)) !== fingerprintOf(o.key)) {
    throw new UsageError(`${named} is not the public key of the signing key (fingerprints ${fingerprintOf(loadPublicKey(named))} and ${fingerprintOf(o.key)}): give the right one with --public-key`);
  }
  return basename(named);
}

/** The run's files and inputs as the package holds them, by name. */
function packagedFiles(runDir: string): { files: Map<string, Buffer>; inputs: CertificationPredicate['inputs'] } {
  const files = new Map<string, Buffer>();
  for (const f of walk(runDir)) {
    const name = relative(runDir, f).split('\\').join('/');
    // SHA256SUMS is what the signed manifest replaces; anyone could regenerate it.
    if (name === CHECKSUMS_FILE) continue;
    files.set(`reports/${name}`, readFileSync(f));
  }
  const report = readReport(files.get(REPORT_FILE));
  report.checks.forEach((c, i) => files.set(evidenceFile(i), Buffer.from(`${JSON.stringify({ id: c.id, exchanges: c.exchanges }, null, 1)}\n`)));
  const inputs: CertificationPredicate['inputs'] = [];
  const add = (role: InputRole, path: string) => {
    const data = readFileSync(path);
    const name = inputName(role, formatOf(path));
    files.set(name, data);
    inputs.push({ role, name, sha256: sha256(data) });
  };
  add('openapi', report.spec.reference_profile ? REFERENCE_SPEC_PATH : inputPath(report.spec.path, 'the OpenAPI document'));
  add('requirements', REQUIREMENTS_PATH);
  if (report.spec.binding) add('binding', inputPath(report.spec.binding, 'the binding file'));
  const caps = report.run.settings?.capabilities;
  if (caps) add('capabilities', inputPath(caps.path, 'the capabilities file'));
  return { files, inputs };
}

export async function certify(o: CertifyOptions & { keyPath?: string }): Promise<Certified> {
  const given = resolve(o.runDir);
  if (!existsSync(join(given, 'conformance.json'))) throw new UsageError(`cannot read ${join(given, 'conformance.json')}: no such file (give the run directory with --run, e.g. reports/latest)`);
  const runDir = lstatSync(given).isSymbolicLink() ? realpathSync(given) : given;
  const { files, inputs } = packagedFiles(runDir);
  const derived = await derivePackage(files, inputs);
  if (derived.provenance.kind === 'reference-sandbox' && !o.allowReferenceSandbox) {
    const faults = derived.provenance.faults;
    throw new UsageError(
      `the run's answers come from fsapi-conformance's own reference sandbox${faults.length ? ` with the faults ${faults.join(', ')}` : ''}, not from a vendor's service: a certificate of it certifies the suite's sandbox`,
      { fix: 'run against your own target (FSAPI_BASE_URL, README "Running against your own target"), or pass --allow-reference-sandbox to certify the sandbox, which the certificate and badge then say in their headline' },
    );
  }
  const out = resolve(o.out);
  const predicate = predicateOf(derived, {
    ...(o.party ? { party: o.party } : {}),
    signer: { fingerprint: fingerprintOf(o.key), public_key: publicKeyName(o, o.keyPath) },
    package: basename(out),
    certified_at: new Date().toISOString(),
    ...((l) => (l ? { lockfile: l } : {}))(lockfile()),
  });
  const certificate = renderCertificate(predicate, derived.recomputed.assessment);
  const badge = renderBadge(predicate);
  files.set(CERTIFICATE_FILE, Buffer.from(certificate));
  files.set(BADGE_FILE, Buffer.from(badge));
  const statement: Statement<CertificationPredicate> = {
    _type: STATEMENT_TYPE,
    subject: [...files].sort(([a], [b]) => a.localeCompare(b)).map(([name, data]) => ({ name, digest: { sha256: sha256(data) } })),
    predicateType: PREDICATE_TYPE,
    predicate,
  };
  const envelope = Buffer.from(`${JSON.stringify(signStatement(statement, o.key), null, 2)}\n`);
  const staging = mkdtempSync(join(tmpdir(), 'fsapi-certify-'));
  try {
    const names = [ENVELOPE_FILE, ...[...files.keys()].sort()];
    for (const name of names) {
      const p = join(staging, PACKAGE_DIR, name);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, name === ENVELOPE_FILE ? envelope : files.get(name)!);
    }
    mkdirSync(dirname(out), { recursive: true });
    // The envelope first: verify checks its signature before it inflates anything else.
    await tar.c({ gzip: true, file: out, cwd: staging, portable: true, noDirRecurse: true }, names.map((n) => `${PACKAGE_DIR}/${n}`));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  // The certificate and badge beside the package, for people and READMEs.
  const stem = out.replace(/\.t(ar\.)?gz$/, '');
  writeFileSync(`${stem}.certificate.html`, certificate);
  writeFileSync(`${stem}.badge.svg`, badge);
  return { out, certificate: `${stem}.certificate.html`, badge: `${stem}.badge.svg`, bytes: statSync(out).size, files: files.size + 1, derived, predicate };
}
