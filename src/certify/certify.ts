/**
 * `certify`: one run as a signed package. The run's reports, each check's exchanges on their own, the document,
 * requirements, binding and capabilities in use; a signed in-toto statement of every file's digest; the
 * certificate and badge. A run whose evidence contradicts its verdict is refused, naming the first difference.
 */
import { existsSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { KeyObject } from 'node:crypto';
import * as tar from 'tar';
import { loadCatalogue } from '../binding/catalogue.js';
import { UsageError } from '../errors.js';
import { PACKAGE_ROOT, SUITE_VERSION } from '../paths.js';
import { CHECKSUMS_FILE } from '../reports/checksums.js';
import type { RunReport } from '../results/model.js';
import { renderBadge, renderCertificate } from './certificate.js';
import { signStatement, STATEMENT_TYPE, type Statement } from './dsse.js';
import { fingerprintOf } from './keys.js';
import { BADGE_FILE, CERTIFICATE_FILE, ENVELOPE_FILE, evidenceFile, PACKAGE_DIR, PREDICATE_TYPE, REPORT_FILE, sha256, type CertificationPredicate } from './layout.js';
import { rejudgeRun, type Rejudgement } from './rejudge.js';

export class EvidenceContradiction extends Error {
  override readonly name = 'EvidenceContradiction';
}

export interface CertifyOptions {
  runDir: string;
  key: KeyObject;
  out: string;
  /** The capabilities file the run used (the report does not name it). */
  capabilities?: string;
}

export interface Certified {
  out: string;
  certificate: string;
  badge: string;
  bytes: number;
  files: number;
  rejudgement: Rejudgement;
  fingerprint: string;
}

function readReport(runDir: string): RunReport {
  const path = join(runDir, 'conformance.json');
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as RunReport;
  } catch (e) {
    throw new UsageError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file (give the run directory with --run, e.g. reports/latest)' : (e as Error).message}`);
  }
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

/** The lockfile that pins the suite: the project's own (where it is run), else the suite's. */
function lockfile(): { path: string; sha256: string } | undefined {
  for (const dir of [process.cwd(), PACKAGE_ROOT]) {
    const p = join(dir, 'package-lock.json');
    if (existsSync(p)) return { path: relative(process.cwd(), p) || 'package-lock.json', sha256: sha256(readFileSync(p)) };
  }
  return undefined;
}

const inputPath = (p: string): string => (existsSync(resolve(p)) ? resolve(p) : resolve(PACKAGE_ROOT, p));

export async function certify(o: CertifyOptions): Promise<Certified> {
  const runDir = resolve(o.runDir);
  const report = readReport(runDir);
  if (report.suite.version !== SUITE_VERSION) throw new UsageError(`the run was made by fsapi-conformance ${report.suite.version}; this is ${SUITE_VERSION}: certify with the version that ran it (npx fsapi-conformance@${report.suite.version} certify)`);
  // The inputs in use, by the paths the report names (relative to where the run was started, or the suite's own).
  const specPath = inputPath(report.spec.path);
  const bindingPath = report.spec.binding ? inputPath(report.spec.binding) : undefined;
  for (const [p, what] of [[specPath, 'the OpenAPI document'], [bindingPath, 'the binding file'], [o.capabilities, 'the capabilities file']] as const) {
    if (p && !existsSync(p)) throw new UsageError(`${what} of the run, ${p}, is not there: run certify from where the run was started`);
  }
  const specText = readFileSync(specPath);
  if (sha256(specText) !== report.spec.sha256) throw new UsageError(`${specPath} has changed since the run (its SHA-256 is not the report's spec.sha256): certify needs the document the run used`);
  const catalogue = await loadCatalogue({ ...(specPath !== resolve(PACKAGE_ROOT, 'spec/openapi.yaml') ? { specPath } : {}), ...(bindingPath ? { bindingPath } : {}) });
  const rejudgement = await rejudgeRun(report, catalogue);
  const contradiction = firstContradiction(report, rejudgement);
  if (contradiction) throw new EvidenceContradiction(`refused: ${contradiction}`);

  const files = new Map<string, Buffer>();
  for (const f of walk(runDir)) {
    const name = relative(runDir, f).split('\\').join('/');
    // SHA256SUMS is what the signed manifest replaces; anyone could regenerate it.
    if (name === CHECKSUMS_FILE) continue;
    files.set(`reports/${name}`, readFileSync(f));
  }
  const evidence: Record<string, string> = {};
  report.checks.forEach((c, i) => {
    files.set(evidenceFile(i), Buffer.from(`${JSON.stringify({ id: c.id, exchanges: c.exchanges }, null, 1)}\n`));
    evidence[c.id] = evidenceFile(i);
  });
  const inputs: CertificationPredicate['inputs'] = [];
  const addInput = (role: CertificationPredicate['inputs'][number]['role'], path: string) => {
    const name = `inputs/${role}-${basename(path)}`;
    const data = readFileSync(path);
    files.set(name, data);
    inputs.push({ role, name, sha256: sha256(data) });
  };
  addInput('openapi', specPath);
  addInput('requirements', resolve(PACKAGE_ROOT, 'spec/requirements.yaml'));
  if (bindingPath) addInput('binding', bindingPath);
  if (o.capabilities) addInput('capabilities', resolve(o.capabilities));
  const lock = lockfile();
  const fingerprint = fingerprintOf(o.key);
  const predicate: CertificationPredicate = {
    suite: { name: 'fsapi-conformance', version: SUITE_VERSION, ...(lock ? { lockfile: lock } : {}) },
    run: { id: report.run.id, seed: report.run.seed, started_at: report.run.started_at, finished_at: report.run.finished_at, node: report.run.node, platform: report.run.platform, strict: report.run.strict, groups: report.run.groups },
    target: { base_url: report.target.base_url, environment: report.target.environment, embedded: report.target.embedded },
    inputs,
    document: { title: report.spec.title, openapi: report.spec.openapi, sha256: report.spec.sha256 },
    verdict: report.verdict,
    headline: report.headline ?? '',
    coverage: { must: report.coverage?.must, requirements: (report.coverage?.requirements ?? []).map((r) => ({ id: r.id, level: r.level, status: r.status })) },
    counts: report.counts,
    rejudged: { checks: rejudgement.rejudged, answer_only: rejudgement.answerOnly, of: rejudgement.total, not_rejudged: rejudgement.notRejudged },
    evidence,
    signer: { fingerprint },
    certified_at: new Date().toISOString(),
  };
  const out = resolve(o.out);
  const certificate = renderCertificate(report, predicate, basename(out));
  const badge = renderBadge(report);
  files.set(CERTIFICATE_FILE, Buffer.from(certificate));
  files.set(BADGE_FILE, Buffer.from(badge));
  const statement: Statement<CertificationPredicate> = {
    _type: STATEMENT_TYPE,
    subject: [...files].sort(([a], [b]) => a.localeCompare(b)).map(([name, data]) => ({ name, digest: { sha256: sha256(data) } })),
    predicateType: PREDICATE_TYPE,
    predicate,
  };
  files.set(ENVELOPE_FILE, Buffer.from(`${JSON.stringify(signStatement(statement, o.key), null, 2)}\n`));

  const staging = mkdtempSync(join(tmpdir(), 'fsapi-certify-'));
  try {
    for (const [name, data] of files) {
      const p = join(staging, PACKAGE_DIR, name);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, data);
    }
    mkdirSync(dirname(out), { recursive: true });
    await tar.c({ gzip: true, file: out, cwd: staging, portable: true }, [PACKAGE_DIR]);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  // The certificate and badge beside the package, for people and READMEs.
  const stem = out.replace(/\.t(ar\.)?gz$/, '');
  writeFileSync(`${stem}.certificate.html`, certificate);
  writeFileSync(`${stem}.badge.svg`, badge);
  return { out, certificate: `${stem}.certificate.html`, badge: `${stem}.badge.svg`, bytes: statSync(out).size, files: files.size, rejudgement, fingerprint };
}

/** The first place the evidence and the recorded results disagree: a check, the counts or the verdict. */
export function firstContradiction(report: RunReport, r: Rejudgement): string | undefined {
  if (r.firstDifference) {
    const i = report.checks.findIndex((c) => c.id === r.firstDifference!.check);
    return `${REPORT_FILE}, check ${r.firstDifference.check} (evidence ${evidenceFile(i)}): ${r.firstDifference.message}`;
  }
  for (const s of ['total', 'passed', 'failed', 'warning', 'skipped', 'error'] as const) {
    if (report.counts.by_status[s] !== r.recomputed.counts.by_status[s]) return `${REPORT_FILE}: counts.by_status.${s} is ${report.counts.by_status[s]}, the checks add up to ${r.recomputed.counts.by_status[s]}`;
  }
  if (report.verdict !== r.recomputed.verdict) return `${REPORT_FILE}: verdict is ${report.verdict}, the checks give ${r.recomputed.verdict}`;
  const must = report.coverage?.must;
  if (must && r.recomputed.must && JSON.stringify(must) !== JSON.stringify(r.recomputed.must)) return `${REPORT_FILE}: coverage.must is ${JSON.stringify(must)}, the checks give ${JSON.stringify(r.recomputed.must)}`;
  return undefined;
}
