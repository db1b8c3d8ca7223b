/**
 * A signer who bypasses certify's refusal: takes the package of the good run, puts in the edited report and the
 * edited check's evidence, and signs a fresh statement over them with the right key. Only verify can catch it.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as tar from 'tar';
import { signStatement, type Envelope, type Statement } from '../../src/certify/dsse.js';
import { loadPrivateKey } from '../../src/certify/keys.js';
import { ENVELOPE_FILE, PACKAGE_DIR, REPORT_FILE, sha256, type CertificationPredicate } from '../../src/certify/layout.js';
import type { RunReport } from '../../src/results/model.js';

export async function certifyUnchecked(good: string, runDir: string, keyPath: string, out: string): Promise<void> {
  const dir = mkdtempSync(join(runDir, '..', 'forge-'));
  await tar.x({ file: good, cwd: dir });
  const pkg = join(dir, PACKAGE_DIR);
  const reportText = readFileSync(join(runDir, 'conformance.json'));
  writeFileSync(join(pkg, REPORT_FILE), reportText);
  const report = JSON.parse(reportText.toString('utf8')) as RunReport;
  const env = JSON.parse(readFileSync(join(pkg, ENVELOPE_FILE), 'utf8')) as Envelope;
  const statement = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as Statement<CertificationPredicate>;
  for (const c of report.checks) {
    const f = statement.predicate.evidence[c.id]!;
    writeFileSync(join(pkg, f), `${JSON.stringify({ id: c.id, exchanges: c.exchanges }, null, 1)}\n`);
  }
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else files.push(relative(pkg, p));
    }
  };
  walk(pkg);
  statement.subject = files.filter((f) => f !== ENVELOPE_FILE).sort().map((name) => ({ name, digest: { sha256: sha256(readFileSync(join(pkg, name))) } }));
  writeFileSync(join(pkg, ENVELOPE_FILE), JSON.stringify(signStatement(statement, loadPrivateKey(keyPath))));
  await tar.c({ gzip: true, file: out, cwd: dir }, [PACKAGE_DIR]);
}
