/**
 * Certification round trip and the hostile signer. keygen, a full strict run on the embedded sandbox and one with
 * a fault switched on, certify, verify; then every forgery issue 30 names, each as a package made the way a
 * vendor who holds the key would make it (an honest package unpacked, edited and signed again, the statement as
 * consistent with the edit as they care to make it), each refused by an unmodified verify with its own exit code
 * and a message naming the first difference; and packages built to hurt the certifier's machine.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPrivateKey, loadPublicKey } from '../src/certify/keys.js';
import { verifyPackage } from '../src/certify/verify.js';
import { ENVELOPE_FILE, PACKAGE_DIR, REPORT_FILE, sha256 } from '../src/certify/layout.js';
import { signStatement } from '../src/certify/dsse.js';
import type { CheckResult, RunReport } from '../src/results/model.js';
import { runCli } from './helpers/cli.js';
import { copyPkg, openPkg, putReport, rawTar, reportOf, signPkg, tarEntry, withoutAllure, type Pkg } from './helpers/forge.js';
import { busy } from './helpers/busy.js';

const root = mkdtempSync(join(tmpdir(), 'fsapi-certify-'));
// Removing two full runs and some fifty packages takes a while on a busy machine.
afterAll(() => rmSync(root, { recursive: true, force: true }), 180_000);

const keyPrefix = join(root, 'signer');
const cleanPkg = join(root, 'clean.tgz');
const faultedPkg = join(root, 'faulted.tgz');
let priv: KeyObject;
let pub: KeyObject;
let clean: Pkg;
let faulted: Pkg;

const cli = (args: string[]) => runCli(args, {}, root);

beforeAll(async () => {
  expect((await cli(['keygen', '--out', keyPrefix])).code).toBe(0);
  priv = loadPrivateKey(`${keyPrefix}.key`);
  pub = loadPublicKey(`${keyPrefix}.pub`);
  const [a, b] = await Promise.all([
    cli(['run', '--strict', '--seed', '7', '--report-dir', join(root, 'clean')]),
    cli(['run', '--strict', '--seed', '8', '--groups', 'accounts,transfers,wallets', '--sandbox-fault', 'idem-ignored', '--report-dir', join(root, 'faulted')]),
  ]);
  expect(a.code, a.stderr).toBe(0);
  expect(b.code, b.stderr).toBe(1);
  const [c, d] = await Promise.all([
    cli(['certify', '--run', join(root, 'clean', 'latest'), '--key', `${keyPrefix}.key`, '--out', cleanPkg, '--allow-reference-sandbox', '--party', 'Acme Bank, Payments API']),
    cli(['certify', '--run', join(root, 'faulted', 'latest'), '--key', `${keyPrefix}.key`, '--out', faultedPkg, '--allow-reference-sandbox']),
  ]);
  expect(c.code, c.stderr).toBe(0);
  expect(d.code, d.stderr).toBe(0);
  [clean, faulted] = await Promise.all([openPkg(cleanPkg), openPkg(faultedPkg)]);
}, busy(300_000));

let forged = 0;
/** A forged package: `edit` changes a copy of the honest one (its report, files, statement); it is signed with the right key. */
async function forge(base: Pkg, edit: (pkg: Pkg, report: RunReport) => void): Promise<{ code: number; message: string }> {
  const pkg = withoutAllure(copyPkg(base));
  const report = reportOf(pkg);
  edit(pkg, report);
  const out = await signPkg(pkg, priv, join(root, `forged-${++forged}.tgz`));
  const v = await verifyPackage(out, pub);
  return { code: v.code, message: v.message };
}

/** Puts the edited report in, evidence and all, and makes the statement say what the edited report says. */
function claim(pkg: Pkg, report: RunReport): void {
  putReport(pkg, report);
  const p = pkg.statement.predicate;
  p.verdict = report.verdict;
  p.headline = report.headline ?? '';
  p.counts = report.counts.by_status;
}

const check = (r: RunReport, id: string): CheckResult => r.checks.find((c) => c.id === id) ?? expect.fail(`no check ${id}`);

describe('keygen, certify, verify: the honest packages', { timeout: busy(120_000) }, () => {
  it('a certified clean run verifies, and says what it is: the reference sandbox, the party, every check of the plan recorded', async () => {
    // A gate asks for a vendor's full run: the suite's own sandbox is less, whatever its verdict, unless accepted.
    const gated = await cli(['verify', cleanPkg, '--key', `${keyPrefix}.pub`, '--require', 'conformant']);
    expect(gated.code, gated.stderr).toBe(18);
    expect(gated.stdout).toMatch(/^verified, but reference sandbox, not a vendor: not a vendor's full run, below --require conformant \(--accept-caveats accepts it\): conformant \(reference sandbox, not a vendor\) for Acme Bank, Payments API at https:\/\/127\.0\.0\.1:\d+\/v1\/; signed by/);
    const v = await cli(['verify', cleanPkg, '--key', `${keyPrefix}.pub`, '--require', 'conformant', '--accept-caveats']);
    expect(v.code, v.stderr).toBe(0);
    // The plan is every check the clean full run recorded (verify derives it again; the count moves as checks are added).
    const planned = reportOf(clean).checks.length;
    expect(planned).toBeGreaterThan(1400);
    expect(v.stdout).toMatch(new RegExp(`^verified: conformant \\(reference sandbox, not a vendor\\) for Acme Bank, Payments API at https://127\\.0\\.0\\.1:\\d+/v1/; signed by SHA256:\\S+; (\\d+) files match their digests; the plan's ${planned} checks all recorded; \\d+ re-judged from their exchanges \\(\\d+ on the probe's answer only\\), all agree, \\d+ not re-judged`));
    const html = readFileSync(join(root, 'clean.certificate.html'), 'utf8');
    expect(html).toContain('conformant · reference sandbox, not a vendor');
    expect(html).toContain('Acme Bank, Payments API');
    expect(html).toContain('14 of 14 suites');
    // The command it gives is one that verifies this package: with the caveats accepted, and why.
    expect(html).toContain(`--key signer.pub --require conformant --accept-caveats`);
    expect(html).toContain("This package is less than a vendor's full run (reference sandbox, not a vendor): without --accept-caveats, verify says so and exits 18.");
    expect(readFileSync(join(root, 'clean.badge.svg'), 'utf8')).toContain('reference sandbox · conformant · MUST 27/27');
  });

  it('certify and verify count the same files', async () => {
    const c = await cli(['certify', '--run', join(root, 'clean', 'latest'), '--key', `${keyPrefix}.key`, '--out', join(root, 'count.tgz'), '--allow-reference-sandbox']);
    const certified = /(\d+) files, /.exec(c.stdout)?.[1];
    const v = await verifyPackage(join(root, 'count.tgz'), pub);
    expect(v.code, v.message).toBe(0);
    expect(Number(certified)).toBe(v.files);
  });

  it('without --allow-reference-sandbox, a run against the reference sandbox is not certified', async () => {
    const c = await cli(['certify', '--run', join(root, 'faulted', 'latest'), '--key', `${keyPrefix}.key`, '--out', join(root, 'refused.tgz')]);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain("the run's answers come from fsapi-conformance's own reference sandbox with the faults idem-ignored");
    expect(c.stderr).toContain('--allow-reference-sandbox');
    expect(existsSync(join(root, 'refused.tgz'))).toBe(false);
  });

  it('an honest non-conformant package verifies, and --require conformant turns its verdict into the exit code', async () => {
    const plain = await cli(['verify', faultedPkg, '--key', `${keyPrefix}.pub`]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/^verified: non-conformant \(reference sandbox, not a vendor \(faults: idem-ignored\); 3 of 14 suites\)/);
    const gated = await cli(['verify', faultedPkg, '--key', `${keyPrefix}.pub`, '--require', 'conformant']);
    expect(gated.code).toBe(1);
    expect(gated.stdout).toMatch(/^verified, but non-conformant, below --require conformant/);
    const html = readFileSync(join(root, 'faulted.certificate.html'), 'utf8');
    expect(html).toContain('faults: idem-ignored');
    expect(html).toContain('3 of 14 suites');
  });

  it('verify --json lists every check not re-judged by id, with why, and the derived scope and target', async () => {
    const v = await cli(['verify', cleanPkg, '--key', `${keyPrefix}.pub`, '--json']);
    const j = JSON.parse(v.stdout) as { code: number; planned: number; rejudged: number; not_rejudged: { id: string; reason: string }[]; target: { kind: string }; scope: { not_run: string[] } };
    expect(j.code).toBe(0);
    expect(j.target.kind).toBe('reference-sandbox');
    expect(j.scope.not_run).toEqual([]);
    expect(j.planned).toBe(reportOf(clean).checks.length);
    expect(j.rejudged + j.not_rejudged.length).toBe(j.planned);
    for (const n of j.not_rejudged) expect(n.id).toMatch(/^FSAPI-[A-Z]+-\d+ /);
  });

  it('a package repacked with its files unchanged still verifies (the envelope need not come first)', async () => {
    const pkg = copyPkg(clean);
    const out = join(root, 'repacked.tgz');
    // Built without the envelope first: verify finds it anyway.
    const entries = [...[...pkg.files].map(([n, d]) => tarEntry(`${PACKAGE_DIR}/${n}`, d))];
    const env = signStatement(pkg.statement, priv);
    entries.push(tarEntry(`${PACKAGE_DIR}/${ENVELOPE_FILE}`, Buffer.from(JSON.stringify(env))));
    writeFileSync(out, rawTar(entries));
    const v = await verifyPackage(out, pub);
    expect(v.code, v.message).toBe(0);
  });
});

describe('tampering without the key', { timeout: busy(120_000) }, () => {
  const unsigned = async (edit: (pkg: Pkg) => void) => {
    const pkg = copyPkg(clean);
    edit(pkg);
    const out = join(root, `tampered-${++forged}.tgz`);
    const env = signStatement(clean.statement, priv);
    writeFileSync(out, rawTar([tarEntry(`${PACKAGE_DIR}/${ENVELOPE_FILE}`, Buffer.from(JSON.stringify(env))), ...[...pkg.files].map(([n, d]) => tarEntry(`${PACKAGE_DIR}/${n}`, d))]));
    return verifyPackage(out, pub);
  };

  it('one byte of an exchange changed: 11, naming the file and its check', async () => {
    const v = await unsigned((pkg) => {
      const [name, data] = [...pkg.files].find(([n, d]) => n.startsWith('evidence/') && d.includes('"status": 401'))!;
      pkg.files.set(name, Buffer.from(data.toString().replace('"status": 401', '"status": 201')));
    });
    expect(v.code).toBe(11);
    expect(v.message).toMatch(/^evidence\/\d+\.json \(evidence of check FSAPI-\S+ [^)]+\): SHA-256 \w+ differs from the signed \w+$/);
  });

  it('the verdict edited, or the document swapped: 11, naming the file', async () => {
    const verdict = await unsigned((pkg) => pkg.files.set(REPORT_FILE, Buffer.from(pkg.files.get(REPORT_FILE)!.toString().replace('"verdict": "conformant"', '"verdict": "non-conformant"'))));
    expect(verdict.code).toBe(11);
    expect(verdict.message).toMatch(/^reports\/conformance\.json: SHA-256 \w+ differs from the signed \w+$/);
    const doc = await unsigned((pkg) => pkg.files.set('inputs/openapi.yaml', Buffer.from(pkg.files.get('inputs/openapi.yaml')!.toString().replace('openapi: 3.1.0', 'openapi: 3.1.1'))));
    expect(doc.code).toBe(11);
    expect(doc.message).toMatch(/^inputs\/openapi\.yaml: SHA-256 \w+ differs from the signed \w+$/);
  });

  it('a file added that the statement does not list: 11', async () => {
    const v = await unsigned((pkg) => pkg.files.set('reports/extra.txt', Buffer.from('x')));
    expect(v.code).toBe(11);
    expect(v.message).toBe('reports/extra.txt: not in the signed manifest');
  });

  it('the wrong public key: 10', async () => {
    expect((await cli(['keygen', '--out', join(root, 'other')])).code).toBe(0);
    const v = await verifyPackage(cleanPkg, loadPublicKey(join(root, 'other.pub')));
    expect(v.code).toBe(10);
    expect(v.message).toMatch(/^envelope\.dsse\.json: the signature does not verify with the public key SHA256:\S+ \(signed by SHA256:\S+\)$/);
  });
});

describe('a signer who hides failures', { timeout: busy(120_000) }, () => {
  it('the failed checks of a run dropped (verdict recomputed to conformant): 15', async () => {
    const v = await forge(faulted, (pkg, r) => {
      r.checks = r.checks.filter((c) => c.status !== 'failed');
      r.verdict = 'conformant';
      claim(pkg, r);
    });
    expect(v.code).toBe(15);
    expect(v.message).toMatch(/^reports\/conformance\.json: \d+ planned checks are missing, first FSAPI-\S+ .* \(every check the run plans is recorded, skipped ones too\)$/);
  });

  it('a whole group dropped while run.groups still lists it: 15', async () => {
    const v = await forge(clean, (pkg, r) => {
      r.checks = r.checks.filter((c) => c.group !== 'cards');
      claim(pkg, r);
    });
    expect(v.code).toBe(15);
    expect(v.message).toMatch(/planned checks are missing, first FSAPI-\S+ \S+ /);
  });

  it('one passing check kept per requirement: 15', async () => {
    const v = await forge(clean, (pkg, r) => {
      const seen = new Set<string>();
      r.checks = r.checks.filter((c) => c.status === 'passed' && !seen.has(c.requirement) && seen.add(c.requirement));
      claim(pkg, r);
    });
    expect(v.code).toBe(15);
  });

  it('run.groups emptied (the switch that turned re-judging off): 15', async () => {
    const v = await forge(faulted, (pkg, r) => {
      r.run.groups = [];
      for (const c of r.checks) if (c.status === 'failed') c.status = 'passed';
      claim(pkg, r);
    });
    expect(v.code).toBe(15);
    expect(v.message).toMatch(/^reports\/conformance\.json: run\.groups is \[\], but a run of \[accounts, transfers, wallets\] runs \[accounts, transfers, wallets\]$/);
  });

  it('the exploration total deleted, or lowered below what the explorations sent: 15', async () => {
    const missing = await forge(faulted, (pkg, r) => {
      delete r.run.settings!.explore_total;
      claim(pkg, r);
    });
    expect(missing.code).toBe(15);
    expect(missing.message).toMatch(/run\.settings\.explore_total is missing or not a budget/);
    // A total of one request per explorable operation: verify derives the share from the plan, the runs sent more.
    const held = await forge(faulted, (pkg, r) => {
      r.run.settings!.explore_total = r.checks.filter((c) => c.id.endsWith(' explore')).length;
      claim(pkg, r);
    });
    expect(held.code).toBe(15);
    expect(held.message).toMatch(/check FSAPI-CONTRACT-002 \w+ explore explored \d+ requests, more than the 1 per operation that run\.settings\.explore \(24\) and explore_total \(\d+\) give its plan/);
  });

  it('a full run relabelled as a shard, or a shard as a full run: 15', async () => {
    const v = await forge(clean, (pkg, r) => {
      r.run.shard = { index: 1, count: 4 };
      claim(pkg, r);
    });
    expect(v.code).toBe(15);
    expect(v.message).toContain('as shard 1/4 runs [');
  });

  it('a check id the plan does not know: 15', async () => {
    const v = await forge(clean, (pkg, r) => {
      r.checks[0]!.id = `${r.checks[0]!.id}-renamed`;
      claim(pkg, r);
    });
    expect(v.code).toBe(15);
    expect(v.message).toMatch(/check \S+ \S+ \S+-renamed is not in the plan of this run/);
  });

  it('a failed check demoted to INFO and recorded as error: 15', async () => {
    const v = await forge(faulted, (pkg, r) => {
      const c = r.checks.find((x) => x.status === 'failed' && x.level === 'MUST')!;
      c.level = 'INFO';
      c.status = 'error';
      claim(pkg, r);
    });
    expect(v.code).toBe(15);
    expect(v.message).toMatch(/has level "INFO"; the plan gives "MUST"$/);
  });

  it('a failed check moved to another requirement: 15', async () => {
    const v = await forge(faulted, (pkg, r) => {
      const c = r.checks.find((x) => x.status === 'failed' && x.requirement === 'FSAPI-IDEM-002')!;
      c.requirement = 'FSAPI-IDEM-101';
      claim(pkg, r);
    });
    expect(v.code).toBe(15);
    expect(v.message).toMatch(/has requirement "FSAPI-IDEM-101"; the plan gives "FSAPI-IDEM-002"$/);
  });

  it('a failed check recorded as skipped for the capabilities file, or for a credential the run had: 12', async () => {
    const caps = await forge(faulted, (pkg, r) => {
      const c = r.checks.find((x) => x.status === 'failed')!;
      Object.assign(c, { status: 'skipped', skip_cause: 'capabilities', message: 'operation createAccount is not implemented (capabilities file)' });
      claim(pkg, r);
    });
    expect(caps.code).toBe(12);
    expect(caps.message).toContain("recorded skipped (capabilities: operation createAccount is not implemented (capabilities file)), but the run's settings and document do not leave it out");
    const cred = await forge(faulted, (pkg, r) => {
      const c = r.checks.find((x) => x.status === 'failed')!;
      Object.assign(c, { status: 'skipped', skip_cause: 'credential', message: 'needs a second business: set FSAPI_SECOND_API_KEY and FSAPI_SECOND_TENANT_ID' });
      claim(pkg, r);
    });
    expect(cred.code).toBe(12);
    expect(cred.message).toContain('but the run had it (run.settings.credentials)');
  });

  it('an explored exchange left out of an exploring check (a 500 it would rather not show), or "not kept" below the cap: 12', async () => {
    // The exploration sends what the seed and its valid request make it send, whatever the answers: verify derives
    // those requests and requires each, so leaving one out is caught even where every answer kept passes.
    let dropped = '';
    const left = await forge(clean, (pkg, r) => {
      const c = r.checks.find((x) => x.id.endsWith(' explore') && x.status === 'passed' && x.exchanges.filter((e) => e.case === 'explored').length > 2)!;
      const i = c.exchanges.findIndex((e) => e.case === 'explored') + 1;
      dropped = c.id;
      c.exchanges.splice(i, 1);
      claim(pkg, r);
    });
    expect(left.code).toBe(12);
    expect(left.message).toContain(`check ${dropped}: explored request 2 of `);
    expect(left.message).toMatch(/is not in its evidence, though the run's seed and its valid request make the exploration send it/);
    const notKept = await forge(clean, (pkg, r) => {
      const c = r.checks.find((x) => x.id.endsWith(' explore') && x.status === 'passed' && x.exchanges.filter((e) => e.case === 'explored').length > 2)!;
      c.exchanges.splice(1, 1);
      c.exchanges_not_kept = 1;
      claim(pkg, r);
    });
    expect(notKept.code).toBe(12);
    expect(notKept.message).toMatch(/says 1 exchanges were not kept, but it keeps \d+: a check drops exchanges only past 128/);
    // Marking an explored body cut, to be matched by a start that any request shares: refused below the cap.
    const cut = await forge(clean, (pkg, r) => {
      const c = r.checks.find((x) => x.id.endsWith(' explore') && x.status === 'passed' && x.exchanges.some((e) => e.case === 'explored' && e.request.body))!;
      const x = c.exchanges.find((e) => e.case === 'explored' && e.request.body)!;
      x.request.body = '{';
      x.request.body_truncated = true;
      claim(pkg, r);
    });
    expect(cut.code).toBe(12);
    expect(cut.message).toMatch(/a request body is marked cut at 1 characters, but a cut one keeps 4096/);
  });

  it('a failure flipped to passed, its answer marked cut or its exchanges "not kept": 17 and 12', async () => {
    const cut = await forge(faulted, (pkg, r) => {
      const c = r.checks.find((x) => x.status === 'failed' && x.exchanges.length > 0)!;
      c.status = 'passed';
      for (const x of c.exchanges) if (x.response) x.response.body_truncated = true;
      claim(pkg, r);
    });
    expect(cut.code).toBe(17);
    expect(cut.message).toMatch(/the answer is marked cut, but it is \d+ bytes and \d+ characters were kept \(a cut answer keeps at least 65536\)$/);
    const dropped = await forge(faulted, (pkg, r) => {
      const c = r.checks.find((x) => x.status === 'failed' && x.exchanges.length > 0)!;
      c.status = 'passed';
      c.message = '(1 more exchanges not kept)';
      claim(pkg, r);
    });
    expect(dropped.code).toBe(12);
    expect(dropped.message).toMatch(/recorded passed, re-judged failed: /);
    const counted = await forge(faulted, (pkg, r) => {
      const c = r.checks.find((x) => x.status === 'failed' && x.exchanges.length > 0)!;
      c.status = 'passed';
      c.exchanges_not_kept = 1;
      claim(pkg, r);
    });
    expect(counted.code).toBe(17);
    expect(counted.message).toMatch(/1 exchanges are said not kept, but the evidence holds \d+, under its cap of 128$/);
  });

  it('an error recorded where the evidence shows no transport failure, and its answers pass: 12', async () => {
    const v = await forge(clean, (pkg, r) => {
      const c = check(r, 'FSAPI-AUTH-101 createAccount www-authenticate');
      Object.assign(c, { status: 'error', message: 'TypeError: x is undefined' });
      claim(pkg, r);
    });
    expect(v.code).toBe(12);
    expect(v.message).toContain('recorded error (TypeError: x is undefined), but its recorded answers give passed');
  });

  it('a MUST recorded as failed with the verdict left conformant: 13', async () => {
    const v = await forge(faulted, (pkg, r) => {
      r.verdict = 'conformant';
      claim(pkg, r);
    });
    expect(v.code).toBe(13);
    expect(v.message).toBe('reports/conformance.json: verdict is conformant, the checks give non-conformant');
  });

  it('the counts or a requirement row edited: 13', async () => {
    const counts = await forge(faulted, (pkg, r) => {
      r.counts.by_status.failed -= 1;
      r.counts.by_status.passed += 1;
      claim(pkg, r);
    });
    expect(counts.code).toBe(13);
    expect(counts.message).toMatch(/counts\.by_status\.passed is \d+, the checks add up to \d+/);
    const row = await forge(faulted, (pkg, r) => {
      const req = r.coverage!.requirements.find((x) => x.status === 'failed')!;
      req.status = 'verified';
      claim(pkg, r);
    });
    expect(row.code).toBe(13);
    expect(row.message).toMatch(/the coverage row of FSAPI-\S+ is .*"status":"verified".*, the checks give .*"status":"failed"/);
  });

  it('a "conformant" badge or certificate on a non-conformant package: 13', async () => {
    const badge = await forge(faulted, (pkg) => {
      pkg.files.set('badge.svg', Buffer.from(pkg.files.get('badge.svg')!.toString().replaceAll('non-conformant', 'conformant')));
    });
    expect(badge.code).toBe(13);
    expect(badge.message).toBe('badge.svg: not the badge the package gives (rendered again from what verify derived)');
    const cert = await forge(faulted, (pkg) => {
      pkg.files.set('certificate.html', Buffer.from(pkg.files.get('certificate.html')!.toString().replace(/faults: idem-ignored/g, 'no faults')));
    });
    expect(cert.code).toBe(13);
    expect(cert.message).toBe('certificate.html: not the certificate the package gives (rendered again from what verify derived)');
  });

  it('the signed statement claiming more than the package gives: 13, naming the member', async () => {
    const v = await forge(faulted, (pkg) => {
      pkg.statement.predicate.verdict = 'conformant';
    });
    expect(v.code).toBe(13);
    expect(v.message).toBe('envelope.dsse.json: the signed verdict is not what the package gives (signed "conformant", the package gives "non-conformant")');
    const rejudged = await forge(clean, (pkg) => {
      pkg.statement.predicate.rejudged.not_rejudged = [];
    });
    expect(rejudged.code).toBe(13);
    expect(rejudged.message).toMatch(/^envelope\.dsse\.json: the signed rejudged is not what the package gives/);
  });
});

describe('a signer who weakens the inputs', { timeout: busy(120_000) }, () => {
  it('a packaged requirement catalogue that demotes MUST requirements: 16', async () => {
    const v = await forge(faulted, (pkg, r) => {
      const text = pkg.files.get('inputs/requirements.yaml')!.toString();
      const demoted = text.replace(/(- id: FSAPI-IDEM-002\n\s+level: )MUST/, '$1SHOULD').replace(/(- id: FSAPI-IDEM-003\n\s+level: )MUST/, '$1SHOULD');
      expect(demoted).not.toBe(text);
      pkg.files.set('inputs/requirements.yaml', Buffer.from(demoted));
      pkg.statement.predicate.inputs.find((i) => i.role === 'requirements')!.sha256 = sha256(demoted);
      r.requirements.sha256 = sha256(demoted);
      claim(pkg, r);
    });
    expect(v.code).toBe(16);
    expect(v.message).toMatch(/^inputs\/requirements\.yaml: SHA-256 \w+ is not the requirement catalogue fsapi-conformance ships \(\w+\): levels decide the verdict/);
  });

  it('a packaged reference document with a required member removed: 16', async () => {
    const v = await forge(clean, (pkg, r) => {
      const text = pkg.files.get('inputs/openapi.yaml')!.toString();
      const weaker = text.replace(/required: \[first_name, last_name, email/, 'required: [last_name, email');
      expect(weaker).not.toBe(text);
      pkg.files.set('inputs/openapi.yaml', Buffer.from(weaker));
      pkg.statement.predicate.inputs.find((i) => i.role === 'openapi')!.sha256 = sha256(weaker);
      r.spec.sha256 = sha256(weaker);
      claim(pkg, r);
    });
    expect(v.code).toBe(16);
    expect(v.message).toMatch(/spec\.reference_profile is true, but inputs\/openapi\.yaml \(SHA-256 \w+\) is not the reference profile this suite version ships/);
  });
});

describe('a signer who brings evidence from elsewhere', { timeout: busy(120_000) }, () => {
  it('an embedded-sandbox run relabelled with a vendor base URL: 17', async () => {
    const v = await forge(clean, (pkg, r) => {
      r.target.base_url = 'https://api.acme.example/v1/';
      r.target.embedded = false;
      delete r.target.sandbox_faults;
      claim(pkg, r);
    });
    expect(v.code).toBe(17);
    expect(v.message).toMatch(/sent to https:\/\/127\.0\.0\.1:\d+, not to the target https:\/\/api\.acme\.example/);
  });

  it('the same with every exchange rewritten to the vendor: the answers still name the reference sandbox (13 on a statement that hides it)', async () => {
    const v = await forge(clean, (pkg, r) => {
      const https = new URL(r.target.base_url).origin;
      const plain = new URL(r.target.plain_http_url!).origin;
      r.target.base_url = 'https://api.acme.example/v1/';
      r.target.embedded = false;
      delete r.target.sandbox_faults;
      r.target.plain_http_url = 'http://api.acme.example/v1/';
      for (const c of r.checks) for (const x of c.exchanges) x.request.url = x.request.url.replace(https, 'https://api.acme.example').replace(plain, 'http://api.acme.example');
      claim(pkg, r);
      pkg.statement.predicate.target = { base_url: r.target.base_url, environment: 'sandbox', kind: 'remote', sandbox_faults: [] };
    });
    expect(v.code).toBe(13);
    expect(v.message).toContain('the signed target is not what the package gives');
    expect(v.message).toContain('"kind":"reference-sandbox"');
  });

  it('the sandbox fault list deleted: 17', async () => {
    const v = await forge(faulted, (pkg, r) => {
      r.target.sandbox_faults = [];
      claim(pkg, r);
    });
    expect(v.code).toBe(17);
    expect(v.message).toBe("reports/conformance.json: target.sandbox_faults is [], but the sandbox's answers name the faults [idem-ignored]");
  });

  it('a passing check of another run spliced in for a failed one: 17', async () => {
    const passing = check(reportOf(clean), 'FSAPI-IDEM-002 createAccount replay');
    const v = await forge(faulted, (pkg, r) => {
      const i = r.checks.findIndex((c) => c.id === passing.id);
      expect(r.checks[i]!.status).toBe('failed');
      r.checks[i] = structuredClone(passing);
      claim(pkg, r);
    });
    expect(v.code).toBe(17);
    expect(v.message).toMatch(/check FSAPI-IDEM-002 createAccount replay, exchange 1 .*: an exchange of another (run|target)$/);
  });

  it('its times moved into the run: the idempotency keys still name the other run (17)', async () => {
    const passing = structuredClone(check(reportOf(clean), 'FSAPI-IDEM-002 createAccount replay'));
    const v = await forge(faulted, (pkg, r) => {
      const i = r.checks.findIndex((c) => c.id === passing.id);
      for (const x of passing.exchanges) x.started_at = r.run.started_at;
      const origin = new URL(r.target.base_url).origin;
      for (const x of passing.exchanges) x.request.url = x.request.url.replace(/^https:\/\/127\.0\.0\.1:\d+/, origin);
      r.checks[i] = passing;
      claim(pkg, r);
    });
    expect(v.code).toBe(17);
    expect(v.message).toMatch(/Idempotency-Key \S+ is not one run \S+ made: an exchange of another run$/);
  });

  it('a valid request relabelled as a probe, or an answer as another operation: 17', async () => {
    const probe = await forge(clean, (pkg, r) => {
      const c = check(r, 'FSAPI-CONTRACT-004 listAccounts valid-request');
      c.exchanges[c.exchanges.length - 1]!.probe = 'no-key';
      claim(pkg, r);
    });
    expect(probe.code).toBe(17);
    expect(probe.message).toMatch(/recorded as a no-key probe, but the request carries an Api-Key$/);
    const op = await forge(clean, (pkg, r) => {
      const c = check(r, 'FSAPI-CONTRACT-004 listAccounts valid-request');
      c.exchanges[c.exchanges.length - 1]!.operation = 'listCards';
      claim(pkg, r);
    });
    expect(op.code).toBe(17);
    expect(op.message).toMatch(/recorded as an answer to listCards, but that is not the operation the document gives this method and path$/);
  });
});

describe("packages built to hurt the certifier's machine", { timeout: busy(120_000) }, () => {
  const write = (name: string, entries: Buffer[]) => {
    const out = join(root, name);
    writeFileSync(out, rawTar(entries));
    return out;
  };
  const envelope = () => tarEntry(`${PACKAGE_DIR}/${ENVELOPE_FILE}`, Buffer.from(JSON.stringify(signStatement(clean.statement, priv))));

  it('an input named inputs/../../x in the signed statement: refused (11), and nothing written outside', async () => {
    const escape = join(root, 'escaped.txt');
    const v = await forge(clean, (pkg) => {
      const rel = `inputs/../../../../../../../../..${escape}`;
      pkg.files.set(rel, Buffer.from('content of the signer\'s choosing'));
      pkg.statement.predicate.inputs.push({ role: 'binding', name: rel, sha256: sha256('x') });
    }).catch((e: Error) => ({ code: -1, message: e.message }));
    expect(v.code).toBe(11);
    expect(v.message).toMatch(/refused, a `\.\.` or `\.` segment in its name|the signed statement is not a certification statement of this version: \/inputs\/\d+\/name/);
    expect(existsSync(escape)).toBe(false);
  });

  it('the same name in the statement alone (no such entry): refused by the statement schema (11)', async () => {
    const pkg = copyPkg(clean);
    pkg.statement.predicate.inputs.push({ role: 'binding', name: 'inputs/../../x', sha256: sha256('x') });
    const v = await verifyPackage(await signPkg(pkg, priv, join(root, 'statement-escape.tgz')), pub);
    expect(v.code).toBe(11);
    expect(v.message).toMatch(/^envelope\.dsse\.json: the signed statement is not a certification statement of this version: \/inputs\/\d+\/name/);
  });

  it('a symbolic link, a hard link, an absolute name, a name twice: each refused (11) by name', async () => {
    const cases: [Buffer[], RegExp][] = [
      [[envelope(), tarEntry(`${PACKAGE_DIR}/inputs/openapi.yaml`, Buffer.alloc(0), { type: '2', linkname: '/etc/passwd' })], /^inputs\/openapi\.yaml: refused, a SymbolicLink entry \(a package holds regular files only\)$/],
      [[envelope(), tarEntry(`${PACKAGE_DIR}/inputs/openapi.yaml`, Buffer.alloc(0), { type: '1', linkname: '/etc/passwd' })], /^inputs\/openapi\.yaml: refused, a Link entry/],
      [[envelope(), tarEntry('/etc/cron.d/x', Buffer.from('x'))], /^"\/etc\/cron\.d\/x": refused, an absolute name$/],
      [[envelope(), tarEntry(`${PACKAGE_DIR}/badge.svg`, Buffer.from('a')), tarEntry(`${PACKAGE_DIR}/badge.svg`, Buffer.from('b'))], /^badge\.svg: refused, the package holds it twice$/],
      [[tarEntry(`${PACKAGE_DIR}/../../x`, Buffer.from('x')), envelope()], /refused, a `\.\.` or `\.` segment in its name$/],
    ];
    for (const [entries, message] of cases) {
      const v = await verifyPackage(write(`hostile-${++forged}.tgz`, entries), pub);
      expect(v.code).toBe(11);
      expect(v.message).toMatch(message);
    }
  });

  it('a 1 GiB entry is refused at its header, before a byte of it is inflated; after the envelope, a wrong signature first', async () => {
    // The header says 1 GiB; the body is not there at all: reading it would fail, refusing it at the header does not.
    const big = tarEntry(`${PACKAGE_DIR}/reports/allure-results/huge.json`, Buffer.alloc(0), { declaredSize: 1024 ** 3 });
    const before = await verifyPackage(write('gib-first.tgz', [big]), pub);
    expect(before.code).toBe(11);
    expect(before.message).toBe('reports/allure-results/huge.json: refused, 1024 MiB is over the 64 MiB an entry may hold');
    const otherKey = generateKeyPairSync('ed25519').privateKey;
    const wrongSig = tarEntry(`${PACKAGE_DIR}/${ENVELOPE_FILE}`, Buffer.from(JSON.stringify(signStatement(clean.statement, otherKey))));
    const after = await verifyPackage(write('gib-after.tgz', [wrongSig, big]), pub);
    expect(after.code).toBe(10);
  });

  it('a package without conformance.json: 11', async () => {
    const v = await forge(clean, (pkg) => {
      pkg.files.delete(REPORT_FILE);
    });
    expect(v.code).toBe(11);
    expect(v.message).toBe('reports/conformance.json: missing from the package');
  });

  it('bad input gets one message, no stack', async () => {
    const v = await cli(['verify', join(root, 'none.tgz'), '--key', `${keyPrefix}.pub`]);
    expect(v.code).toBe(2);
    expect(v.stderr).toMatch(/^error: .*none\.tgz: no such file/);
    writeFileSync(join(root, 'not-a-package.tgz'), readFileSync(`${keyPrefix}.pub`));
    const w = await cli(['verify', join(root, 'not-a-package.tgz'), '--key', `${keyPrefix}.pub`]);
    expect(w.code).toBe(2);
    expect(w.stderr).not.toMatch(/\n\s+at /);
    const r = await cli(['verify', cleanPkg, '--key', `${keyPrefix}.pub`, '--require', 'perfect']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--require perfect: not a level verify knows');
  });

  it('a party named with a terminal escape: certify refuses it (2), and a statement signed with one fails verify (11) before anything prints it', async () => {
    const c = await cli(['certify', '--run', join(root, 'clean', 'latest'), '--key', `${keyPrefix}.key`, '--out', join(root, 'escape.tgz'), '--allow-reference-sandbox', '--party', 'Acme\u001b[2K\rverified: conformant']);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('--party holds a control character');
    expect(existsSync(join(root, 'escape.tgz'))).toBe(false);
    const v = await forge(clean, (pkg) => {
      pkg.statement.predicate.party = 'Acme\u001b[2K\rverified: conformant';
    });
    expect(v.code).toBe(11);
    expect(v.message).toMatch(/the signed statement is not a certification statement of this version: \/party must match pattern/);
    // The certificate is HTML the certifier opens: a signer's text never reaches it as markup.
    const markup = await forge(clean, (pkg) => {
      (pkg.statement.predicate.target as { environment: string }).environment = '<script>alert(1)</script>';
    });
    expect(markup.code).toBe(11);
    expect(markup.message).toMatch(/\/target\/environment must be one of \["sandbox","live"\]/);
  });
});

describe("judges catch answers edited under a check's result", { timeout: busy(120_000) }, () => {
  it('an AUTH check left passed with a 200 answer: certify refuses it (12), and a package signed anyway fails verify with 12', async () => {
    const dir = join(root, 'contradicting');
    const report = reportOf(clean);
    const auth = report.checks.find((c) => c.requirement === 'FSAPI-AUTH-001' && c.status === 'passed')!;
    auth.exchanges[auth.exchanges.length - 1]!.response!.status = 200;
    const { cpSync } = await import('node:fs');
    cpSync(join(root, 'clean', 'latest'), dir, { recursive: true, dereference: true });
    writeFileSync(join(dir, 'conformance.json'), JSON.stringify(report, null, 2));
    const c = await cli(['certify', '--run', dir, '--key', `${keyPrefix}.key`, '--out', join(root, 'refused-12.tgz'), '--allow-reference-sandbox']);
    expect(c.code).toBe(12);
    expect(c.stderr).toContain(`error: refused: reports/conformance.json, check ${auth.id} (evidence evidence/`);
    expect(c.stderr).toContain('recorded passed, re-judged failed: ');
    expect(c.stderr).toContain('expected status 401, got 200');
    expect(c.stderr.trim().split('\n')).toHaveLength(1);
    const v = await forge(clean, (pkg) => claim(pkg, report));
    expect(v.code).toBe(12);
    expect(v.message).toMatch(/^reports\/conformance\.json, check FSAPI-AUTH-001 \S+ no-key \(evidence evidence\/\d+\.json\): recorded passed, re-judged failed: .*expected status 401, got 200/);
  });

  it('no-5xx: the recorded answer to an invalid body turned into a 503: 12', async () => {
    let id = '';
    const v = await forge(clean, (pkg, r) => {
      const c = r.checks.find((x) => x.id.endsWith(' no-5xx') && x.status === 'passed')!;
      id = c.id;
      const x = c.exchanges.find((e) => e.case === 'json-null')!;
      x.response!.status = 503;
      // Out of the observed-traffic checks (they would name the undocumented 503 first): only this judge can catch it.
      delete x.operation;
      claim(pkg, r);
    });
    expect(v.code).toBe(12);
    expect(v.message).toMatch(new RegExp(`check ${id} \\(evidence evidence/\\d+\\.json\\): recorded passed, re-judged (failed|warning): 1 of \\d+ invalid bodies caused a server error: a JSON null body answered 503`));
  });

  it('field-named: a refusal recorded naming another field, or recorded as another case: 12', async () => {
    const named = await forge(clean, (pkg, r) => {
      const c = r.checks.find((x) => x.id.endsWith(' field-named') && x.status === 'passed')!;
      const res = c.exchanges.find((e) => e.case)!.response!;
      res.body = res.body!.replace(/"field":"[^"]*"/, '"field":"/not_it"');
      claim(pkg, r);
    });
    expect(named.code).toBe(12);
    expect(named.message).toMatch(/recorded passed, re-judged (failed|warning): 1 of \d+ refusals do not name the field: .* with errors naming \/not_it/);
    const swapped = await forge(clean, (pkg, r) => {
      const c = r.checks.find((x) => x.id.endsWith(' field-named') && x.status === 'passed')!;
      const cases = c.exchanges.filter((e) => e.case);
      const field = cases[0]!.case!.slice(cases[0]!.case!.indexOf('-'));
      cases[0]!.case = cases.find((e) => !e.case!.endsWith(field))!.case!;
      claim(pkg, r);
    });
    expect(swapped.code).toBe(12);
    expect(swapped.message).toContain('refusals do not name the field');
  });

  it('read-only: a refused create recorded as accepted with the planted fields: 12', async () => {
    const v = await forge(clean, (pkg, r) => {
      const c = r.checks.find((x) => x.id.endsWith(' read-only') && x.status === 'passed')!;
      const x = c.exchanges.find((e) => e.case?.startsWith('planted:'))!;
      x.response!.status = 201;
      x.response!.body = x.request.body!;
      delete x.operation;
      claim(pkg, r);
    });
    expect(v.code).toBe(12);
    expect(v.message).toMatch(/recorded passed, re-judged (failed|warning): the created object took the planted read-only field\(s\) id="/);
  });

  it('parallel: the successes of the burst recorded as 409s: 12', async () => {
    const v = await forge(clean, (pkg, r) => {
      const c = check(r, 'FSAPI-IDEM-003 createAccount parallel');
      for (const x of c.exchanges) {
        if (x.request.method !== 'POST' || x.response?.status !== 201) continue;
        x.response.status = 409;
        x.response.headers['content-type'] = 'application/problem+json';
        x.response.body = JSON.stringify({ type: 'about:blank', title: 'Conflict', status: 409, detail: 'in flight', code: 'idempotency_conflict' });
        delete x.operation;
      }
      claim(pkg, r);
    });
    expect(v.code).toBe(12);
    // The tally names the 409s the burst itself drew, if the sandbox answered any that way (it depends on how the
    // burst's requests met in time); the forged ones are no answers to the operation any more.
    expect(v.message).toMatch(/recorded passed, re-judged skipped: no request of the burst succeeded \((\d+x409)?\)/);
  });

  it('parallel: the effect count after the burst edited while its recorded read shows otherwise: 12', async () => {
    const v = await forge(clean, (pkg, r) => {
      const c = check(r, 'FSAPI-IDEM-003 createAccount parallel');
      expect(c.facts).toMatchObject({ effects_before: 0, effects_after: 1 });
      c.facts = { ...c.facts, effects_after: 2 };
      claim(pkg, r);
    });
    expect(v.code).toBe(12);
    expect(v.message).toMatch(/check FSAPI-IDEM-003 createAccount parallel .*recorded passed, re-judged (failed|warning): the recorded fact effects_after \(2\) disagrees with the count its recorded read shows \(1\)/);
  });

  it('two-mib-body: the refusal recorded as a 400, or an effect recorded after it: 12', async () => {
    const took = await forge(clean, (pkg, r) => {
      const c = r.checks.find((x) => x.id.endsWith(' two-mib-body') && x.status === 'passed')!;
      c.facts = { ...c.facts, effects_after: Number(c.facts!['effects_before']) + 1 };
      claim(pkg, r);
    });
    expect(took.code).toBe(12);
    expect(took.message).toMatch(/re-judged (failed|warning): the recorded fact effects_after \(1\) disagrees with the count its recorded read shows \(0\)/);
    const status = await forge(clean, (pkg, r) => {
      const c = r.checks.find((x) => x.id.endsWith(' two-mib-body') && x.status === 'passed')!;
      const x = c.exchanges.find((e) => e.probe === 'oversized-body')!;
      x.response!.status = 400;
      delete x.operation;
      claim(pkg, r);
    });
    expect(status.code).toBe(12);
    expect(status.message).toMatch(/re-judged (failed|warning): .*expected status for a 2 MiB body 413, got 400/);
  });

  it('balances recorded as moved by a refused transfer, against the balance read: 12', async () => {
    const v = await forge(clean, (pkg, r) => {
      const c = check(r, 'FSAPI-TRF-002 createTransfer insufficient-funds');
      c.facts = { ...c.facts, source_after: '0.00' };
      claim(pkg, r);
    });
    expect(v.code).toBe(12);
    expect(v.message).toMatch(/re-judged (failed|warning): the recorded fact source_after \("0\.00"\) disagrees with the balance its read of \S+ answered \(\d+\.\d+\)/);
  });

  it('a failed MUST of the plain-HTTP probe, the seed GET /accounts or a webhook flow flipped to passed: 12', async () => {
    const trans = await forge(clean, (pkg, r) => {
      const c = r.checks.find((x) => x.requirement === 'FSAPI-TRANS-002' && x.status === 'passed')!;
      const x = c.exchanges.find((e) => e.case === 'plain-http')!;
      if (x.response) x.response.status = 201;
      else Object.assign(x, { response: { status: 201, headers: { 'content-type': 'application/json' }, body: '{}', size_bytes: 2 } }, { error: undefined, error_kind: undefined });
      delete x.error;
      delete x.error_kind;
      claim(pkg, r);
    });
    expect(trans.code).toBe(12);
    expect(trans.message).toMatch(/check FSAPI-TRANS-002 .*recorded passed, re-judged failed: .*over plain HTTP answered 201: the request was processed/);
    const acc = await forge(clean, (pkg, r) => {
      const c = check(r, 'FSAPI-ACC-001 listAccounts seed-request');
      for (const x of c.exchanges) if (x.case === 'list' && x.response) x.response.body = JSON.stringify({ object: 'list', data: [], has_more: false });
      claim(pkg, r);
    });
    expect(acc.code).toBe(12);
    expect(acc.message).toMatch(/check FSAPI-ACC-001 listAccounts seed-request .*recorded passed, re-judged failed: /);
    const wh = await forge(clean, (pkg, r) => {
      const c = r.checks.find((x) => x.requirement === 'FSAPI-WH-003' && x.status === 'passed')!;
      c.exchanges = c.exchanges.map((x) => (x.received ? { ...x, request: { ...x.request, body: '{"type":"other.event","data":{"object":{"id":"none"}}}' } } : x));
      claim(pkg, r);
    });
    expect(wh.code).toBe(12);
    expect(wh.message).toMatch(/check FSAPI-WH-003 .*recorded passed, re-judged failed: /);
  });

  it('versioning: another version recorded as served: 12', async () => {
    const v = await forge(clean, (pkg, r) => {
      const c = r.checks.find((x) => x.id.endsWith(' other-versions-404'))!;
      c.exchanges.find((e) => e.case === 'v2')!.response!.status = 200;
      claim(pkg, r);
    });
    expect(v.code).toBe(12);
    expect(v.message).toMatch(/re-judged (failed|warning): another version segment is served: GET \/v2\/accounts answered 200/);
  });

  it('customer and wallet flows: a value recorded as returned otherwise, a refusal recorded as a 500: 12', async () => {
    const changed = await forge(clean, (pkg, r) => {
      const x = check(r, 'FSAPI-CUS-002 createCustomer date-valid').exchanges.find((e) => e.case === 'create')!;
      x.response!.body = x.response!.body!.replace('"date_of_birth":"1988-02-29"', '"date_of_birth":"1988-03-01"');
      claim(pkg, r);
    });
    expect(changed.code).toBe(12);
    expect(changed.message).toContain('re-judged failed: date_of_birth "1988-02-29" was returned as "1988-03-01" by the create answer');
    const wallet = await forge(clean, (pkg, r) => {
      const x = check(r, 'FSAPI-WAL-001 createWallet supported-pair').exchanges.find((e) => e.case === 'read')!;
      x.response!.body = x.response!.body!.replace(/"address":"[^"]*"/, '"address":"0x0000000000000000000000000000000000000000"');
      claim(pkg, r);
    });
    expect(wallet.code).toBe(12);
    expect(wallet.message).toMatch(/re-judged (failed|warning): GET \S+ shows address "0x0{40}"; it was created with "/);
  });

  it('flows judged from cases: a second activation recorded as accepted: 12', async () => {
    const v = await forge(clean, (pkg, r) => {
      const x = check(r, 'FSAPI-FEAT-002 activateFeature after-kyc').exchanges.find((e) => e.case === 'again')!;
      x.response!.status = 200;
      delete x.operation;
      claim(pkg, r);
    });
    expect(v.code).toBe(12);
    expect(v.message).toMatch(/re-judged (failed|warning): activating cards a second time answered 200; expected 409/);
  });
});
