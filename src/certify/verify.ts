/**
 * `verify`: a certification package checked offline. The signature, every file's digest, every recorded exchange
 * judged again by the suite's own judgement code, the counts and the verdict computed again. The first difference
 * ends it, with its exit code and one message naming the file, the check and what differs.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import * as tar from 'tar';
import { loadCatalogue } from '../binding/catalogue.js';
import { UsageError } from '../errors.js';
import { SUITE_VERSION } from '../paths.js';
import type { RunReport } from '../results/model.js';
import { firstContradiction } from './certify.js';
import { openEnvelope, type Envelope } from './dsse.js';
import { ENVELOPE_FILE, PACKAGE_DIR, REPORT_FILE, sha256, type CertificationPredicate } from './layout.js';
import { rejudgeRun, type Rejudgement } from './rejudge.js';
import { VERIFY_EXIT } from './exit-codes.js';

export interface Verified {
  code: number;
  /** The first difference, or what agreed. */
  message: string;
  statement?: CertificationPredicate;
  rejudgement?: Rejudgement;
}

/** The package's files by name, read in memory (tar bytes do not matter: a repack with the same files verifies). */
async function unpack(path: string): Promise<Map<string, Buffer>> {
  if (!existsSync(path)) throw new UsageError(`${path}: no such file (the .tgz that fsapi-conformance certify wrote)`);
  const files = new Map<string, Buffer>();
  const prefix = `${PACKAGE_DIR}/`;
  try {
    await tar.t({
      file: path,
      strict: true,
      onReadEntry(entry) {
        const name = entry.path.replace(/^\.\//, '');
        if (entry.type !== 'File' || !name.startsWith(prefix)) {
          entry.resume();
          return;
        }
        const chunks: Buffer[] = [];
        entry.on('data', (c: Buffer) => chunks.push(c));
        entry.on('end', () => files.set(name.slice(prefix.length), Buffer.concat(chunks)));
      },
    });
  } catch (e) {
    throw new UsageError(`${path} is not a gzip tar package: ${(e as Error).message}`);
  }
  if (files.size === 0) throw new UsageError(`${path} holds no ${prefix} files: not a certification package`);
  return files;
}

export async function verifyPackage(path: string, key: KeyObject): Promise<Verified> {
  const files = await unpack(path);
  const envText = files.get(ENVELOPE_FILE);
  if (!envText) return { code: VERIFY_EXIT.digest, message: `${ENVELOPE_FILE}: missing from the package` };
  let envelope: Envelope;
  try {
    envelope = JSON.parse(envText.toString('utf8')) as Envelope;
  } catch {
    return { code: VERIFY_EXIT.signature, message: `${ENVELOPE_FILE}: not JSON` };
  }
  const opened = openEnvelope<CertificationPredicate>(envelope, key);
  if ('problem' in opened) return { code: VERIFY_EXIT.signature, message: `${ENVELOPE_FILE}: ${opened.problem}` };
  const { statement } = opened;
  const p = statement.predicate;
  const checkOf = new Map(Object.entries(p.evidence ?? {}).map(([id, f]) => [f, id]));
  const about = (name: string) => (checkOf.has(name) ? ` (evidence of check ${checkOf.get(name)})` : '');
  const listed = new Set<string>();
  for (const s of statement.subject) {
    listed.add(s.name);
    const data = files.get(s.name);
    if (!data) return { code: VERIFY_EXIT.digest, message: `${s.name}${about(s.name)}: missing from the package` };
    const got = sha256(data);
    if (got !== s.digest.sha256) return { code: VERIFY_EXIT.digest, message: `${s.name}${about(s.name)}: SHA-256 ${got} differs from the signed ${s.digest.sha256}` };
  }
  for (const name of [...files.keys()].sort()) {
    if (name !== ENVELOPE_FILE && !listed.has(name)) return { code: VERIFY_EXIT.digest, message: `${name}: not in the signed manifest` };
  }
  for (const i of p.inputs) {
    if (!files.has(i.name) || sha256(files.get(i.name)!) !== i.sha256) return { code: VERIFY_EXIT.digest, message: `${i.name}: differs from the ${i.role} the statement names` };
  }
  const report = JSON.parse(files.get(REPORT_FILE)!.toString('utf8')) as RunReport;
  const spec = p.inputs.find((i) => i.role === 'openapi');
  if (!spec || spec.sha256 !== report.spec.sha256) return { code: VERIFY_EXIT.digest, message: `${spec?.name ?? 'inputs/openapi-*'}: SHA-256 ${spec?.sha256 ?? 'none'} is not the document the run used (${REPORT_FILE} spec.sha256 ${report.spec.sha256})` };
  // Each check's evidence file holds what conformance.json records for it, exchange for exchange.
  for (const [i, c] of report.checks.entries()) {
    const name = p.evidence[c.id];
    const held = name ? files.get(name) : undefined;
    if (!held || JSON.stringify((JSON.parse(held.toString('utf8')) as { exchanges: unknown }).exchanges) !== JSON.stringify(c.exchanges)) {
      return { code: VERIFY_EXIT.digest, message: `${name ?? `evidence of check #${i}`}: the exchanges of check ${c.id} differ from ${REPORT_FILE}` };
    }
  }
  if (p.suite.version !== SUITE_VERSION) return { code: VERIFY_EXIT.version, message: `the package was made by fsapi-conformance ${p.suite.version}; this is ${SUITE_VERSION}: re-judging needs the same judgement code (npx fsapi-conformance@${p.suite.version} verify ...)` };

  const dir = mkdtempSync(join(tmpdir(), 'fsapi-verify-inputs-'));
  let rejudgement: Rejudgement;
  try {
    const placed = (role: string) => {
      const i = p.inputs.find((x) => x.role === role);
      if (!i) return undefined;
      const f = join(dir, i.name.replace(/^inputs\//, ''));
      writeFileSync(f, files.get(i.name)!);
      return f;
    };
    const specPath = placed('openapi')!;
    const bindingPath = placed('binding');
    const requirementsPath = placed('requirements');
    const catalogue = await loadCatalogue({ specPath, ...(bindingPath ? { bindingPath } : {}), ...(requirementsPath ? { requirementsPath } : {}) });
    rejudgement = await rejudgeRun(report, catalogue);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const contradiction = firstContradiction(report, rejudgement);
  if (contradiction) return { code: rejudgement.firstDifference ? VERIFY_EXIT.rejudged : VERIFY_EXIT.recomputed, message: contradiction, statement: p, rejudgement };
  for (const [field, signed, recorded] of [
    ['verdict', p.verdict, report.verdict],
    ['headline', p.headline, report.headline ?? ''],
    ['counts', JSON.stringify(p.counts), JSON.stringify(report.counts)],
    ['coverage.must', JSON.stringify(p.coverage.must), JSON.stringify(report.coverage?.must)],
    ['run.seed', String(p.run.seed), String(report.run.seed)],
    ['target.base_url', p.target.base_url, report.target.base_url],
  ] as const) {
    if (signed !== recorded) return { code: VERIFY_EXIT.recomputed, message: `${ENVELOPE_FILE}: the signed ${field} (${signed}) is not ${REPORT_FILE}'s (${recorded})`, statement: p, rejudgement };
  }
  return {
    code: VERIFY_EXIT.ok,
    message: `verified: ${report.verdict}; signed by ${p.signer.fingerprint}; ${statement.subject.length} files match their digests; ${rejudgement.rejudged} of ${rejudgement.total} checks re-judged from their exchanges (${rejudgement.answerOnly} on the probe's answer only), all agree; counts and verdict recomputed`,
    statement: p,
    rejudgement,
  };
}
