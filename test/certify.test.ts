/**
 * Certification round trip: keygen, a run of two groups on the embedded sandbox, certify, verify; then each
 * tamper a package can suffer, each caught by verify with its exit code and one message naming what differs,
 * and a run whose evidence contradicts its results refused by certify.
 */
import { copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../src/results/model.js';
import { runCli } from './helpers/cli.js';

const root = mkdtempSync(join(tmpdir(), 'fsapi-certify-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const key = join(root, 'signer');
const pkg = join(root, 'run.tgz');
let runDir: string;

/** Unpacks the package, lets `edit` change its tree, and packs it again under another name. */
async function repack(name: string, edit: (dir: string) => void): Promise<string> {
  const dir = mkdtempSync(join(root, 'x-'));
  await tar.x({ file: pkg, cwd: dir });
  edit(join(dir, 'fsapi-certification'));
  const out = join(root, name);
  // Not portable, other order: other tar bytes for the same files.
  await tar.c({ gzip: { level: 1 }, file: out, cwd: dir }, ['fsapi-certification']);
  return out;
}

const verify = (file: string, pub = `${key}.pub`) => runCli(['verify', file, '--key', pub], {});

beforeAll(async () => {
  const k = await runCli(['keygen', '--out', key], {});
  expect(k.code, k.stderr).toBe(0);
  const reports = join(root, 'reports');
  const r = await runCli(['run', '--groups', 'accounts,wallets,customers,versioning,features,transfers', '--seed', '7', '--report-dir', reports], {});
  expect(r.code, r.stderr).toBe(0);
  runDir = join(reports, 'latest');
  const c = await runCli(['certify', '--run', runDir, '--key', `${key}.key`, '--out', pkg], {});
  expect(c.code, c.stderr).toBe(0);
}, 300_000);

/** What verify says of a copy of the run whose report `edit` changed (returning the check it edited), signed past certify. */
async function forged(name: string, edit: (report: RunReport) => string): Promise<{ code: number | null; stderr: string; id: string }> {
  const dir = join(root, name);
  cpSync(runDir, dir, { recursive: true, dereference: true });
  const p = join(dir, 'conformance.json');
  const report = JSON.parse(readFileSync(p, 'utf8')) as RunReport;
  const id = edit(report);
  writeFileSync(p, JSON.stringify(report, null, 2));
  const out = join(root, `${name}.tgz`);
  const { certifyUnchecked } = await import('./helpers/certify-unchecked.js');
  await certifyUnchecked(pkg, dir, `${key}.key`, out);
  const v = await verify(out);
  return { code: v.code, stderr: v.stderr, id };
}

describe('keygen, certify, verify', { timeout: 120_000 }, () => {
  it('keygen writes a private key only its owner can read, and a public key', () => {
    expect(statSync(`${key}.key`).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${key}.pub`, 'utf8')).toContain('BEGIN PUBLIC KEY');
  });

  it('a certified run verifies, and the certificate and badge sit beside the package', async () => {
    const v = await verify(pkg);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/^verified: conformant; signed by SHA256:\S+; \d+ files match their digests; \d+ of \d+ checks re-judged/);
    const html = readFileSync(join(root, 'run.certificate.html'), 'utf8');
    expect(html).toContain('FSAPI-AUTH-001');
    expect(html).toContain('How to verify');
    expect(readFileSync(join(root, 'run.badge.svg'), 'utf8')).toContain('conformant');
  });

  it('a package repacked with its files unchanged still verifies', async () => {
    const v = await verify(await repack('repacked.tgz', () => {}));
    expect(v.code, v.stderr).toBe(0);
  });

  it('one byte of an exchange changed: 11, naming the file and its check', async () => {
    let target = '';
    const file = await repack('byte.tgz', (dir) => {
      const evidence = join(dir, 'evidence');
      target = readdirSync(evidence).find((f) => readFileSync(join(evidence, f), 'utf8').includes('"status": 401'))!;
      const text = readFileSync(join(evidence, target), 'utf8');
      writeFileSync(join(evidence, target), text.replace('"status": 401', '"status": 201'));
    });
    const v = await verify(file);
    expect(v.code).toBe(11);
    expect(v.stderr.trim()).toMatch(new RegExp(`^error: evidence/${target} \\(evidence of check FSAPI-\\S+ [^)]+\\): SHA-256 \\w+ differs from the signed \\w+$`));
  });

  it('a verdict edited: 11, naming the report', async () => {
    const file = await repack('verdict.tgz', (dir) => {
      const p = join(dir, 'reports', 'conformance.json');
      writeFileSync(p, readFileSync(p, 'utf8').replace('"verdict": "conformant"', '"verdict": "non-conformant"'));
    });
    const v = await verify(file);
    expect(v.code).toBe(11);
    expect(v.stderr).toMatch(/^error: reports\/conformance\.json: SHA-256 \w+ differs from the signed \w+\n$/);
  });

  it('the document swapped: 11, naming the document', async () => {
    const file = await repack('document.tgz', (dir) => {
      const inputs = join(dir, 'inputs');
      const doc = readdirSync(inputs).find((f) => f.startsWith('openapi-'))!;
      writeFileSync(join(inputs, doc), readFileSync(join(inputs, doc), 'utf8').replace('openapi: 3.1.0', 'openapi: 3.1.1'));
    });
    const v = await verify(file);
    expect(v.code).toBe(11);
    expect(v.stderr).toMatch(/^error: inputs\/openapi-openapi\.yaml: SHA-256 \w+ differs from the signed \w+\n$/);
  });

  it('the wrong public key: 10', async () => {
    const other = join(root, 'other');
    expect((await runCli(['keygen', '--out', other], {})).code).toBe(0);
    const v = await verify(pkg, `${other}.pub`);
    expect(v.code).toBe(10);
    expect(v.stderr).toMatch(/^error: envelope\.dsse\.json: the signature does not verify with the public key SHA256:\S+ \(signed by SHA256:\S+\)\n$/);
  });

  it('a run whose evidence contradicts its verdict (an AUTH check left passed with a 200 answer) is refused', async () => {
    const dir = join(root, 'contradicting');
    cpSync(runDir, dir, { recursive: true, dereference: true });
    const p = join(dir, 'conformance.json');
    const report = JSON.parse(readFileSync(p, 'utf8')) as RunReport;
    const auth = report.checks.find((c) => c.requirement === 'FSAPI-AUTH-001' && c.status === 'passed')!;
    auth.exchanges[auth.exchanges.length - 1]!.response!.status = 200;
    writeFileSync(p, JSON.stringify(report, null, 2));
    const c = await runCli(['certify', '--run', dir, '--key', `${key}.key`, '--out', join(root, 'refused.tgz')], {});
    expect(c.code).toBe(12);
    expect(c.stderr).toContain(`error: refused: reports/conformance.json, check ${auth.id} (evidence evidence/`);
    expect(c.stderr).toContain('recorded passed, re-judged failed: ');
    expect(c.stderr).toContain('expected status 401, got 200');
    expect(c.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a package signed over evidence that contradicts it fails verify with 12', async () => {
    // A signer who bypasses certify's refusal: re-sign a statement over the edited report with the right key.
    const dir = join(root, 'contradicting');
    const out = join(root, 'forced.tgz');
    const { certifyUnchecked } = await import('./helpers/certify-unchecked.js');
    await certifyUnchecked(pkg, dir, `${key}.key`, out);
    const v = await verify(out);
    expect(v.code).toBe(12);
    expect(v.stderr).toMatch(/^error: reports\/conformance\.json, check FSAPI-AUTH-001 \S+ no-key \(evidence evidence\/\d+\.json\): recorded passed, re-judged failed: .*expected status 401, got 200/);
  });

  it('no-5xx: the recorded answer to an invalid body turned into a 503 fails verify with 12', async () => {
    const v = await forged('no-5xx', (report) => {
      const c = report.checks.find((x) => x.id.endsWith(' no-5xx') && x.status === 'passed')!;
      const x = c.exchanges.find((e) => e.case === 'json-null')!;
      x.response!.status = 503;
      // Out of the observed-traffic checks (they would name the undocumented 503 first): only this judge can catch it.
      delete x.operation;
      return c.id;
    });
    expect(v.code).toBe(12);
    expect(v.stderr).toMatch(new RegExp(`^error: reports/conformance\\.json, check ${v.id} \\(evidence evidence/\\d+\\.json\\): recorded passed, re-judged (failed|warning): 1 of \\d+ invalid bodies caused a server error: a JSON null body answered 503`));
  });

  it('field-named: a refusal recorded naming another field, or recorded as another case, fails verify with 12', async () => {
    const named = await forged('field-named', (report) => {
      const c = report.checks.find((x) => x.id.endsWith(' field-named') && x.status === 'passed')!;
      const res = c.exchanges.find((e) => e.case)!.response!;
      // Still a valid problem (the observed-traffic checks pass it): only the field it names changed.
      res.body = res.body!.replace(/"field":"[^"]*"/, '"field":"/not_it"');
      return c.id;
    });
    expect(named.code).toBe(12);
    expect(named.stderr).toContain(`check ${named.id} `);
    expect(named.stderr).toMatch(/recorded passed, re-judged (failed|warning): 1 of \d+ refusals do not name the field: .* with errors naming \/not_it/);
    // The case is data the judge reads: recorded as another mutation of the same body, the answer names the wrong field.
    const swapped = await forged('field-case', (report) => {
      const c = report.checks.find((x) => x.id.endsWith(' field-named') && x.status === 'passed')!;
      const cases = c.exchanges.filter((e) => e.case);
      const field = cases[0]!.case!.slice(cases[0]!.case!.indexOf('-'));
      const other = cases.find((e) => !e.case!.endsWith(field))!;
      cases[0]!.case = other.case!;
      return c.id;
    });
    expect(swapped.code).toBe(12);
    expect(swapped.stderr).toContain(`check ${swapped.id} `);
    expect(swapped.stderr).toContain('refusals do not name the field');
  });

  it('read-only: a refused create recorded as accepted with the planted fields fails verify with 12', async () => {
    const v = await forged('read-only', (report) => {
      const c = report.checks.find((x) => x.id.endsWith(' read-only') && x.status === 'passed')!;
      const x = c.exchanges.find((e) => e.case?.startsWith('planted:'))!;
      // The target "took" what was planted: its answer echoes the body, planted values included.
      x.response!.status = 201;
      x.response!.body = x.request.body!;
      delete x.operation;
      return c.id;
    });
    expect(v.code).toBe(12);
    expect(v.stderr).toContain(`check ${v.id} `);
    expect(v.stderr).toMatch(/recorded passed, re-judged (failed|warning): the created object took the planted read-only field\(s\) id="/);
  });

  it('parallel: an effect count recorded as two, or the successes of the burst recorded as 409s, fail verify with 12', async () => {
    const twice = await forged('parallel', (report) => {
      const c = report.checks.find((x) => x.id === 'FSAPI-IDEM-003 createAccount parallel' && x.status === 'passed')!;
      expect(c.facts).toEqual({ effects_before: 0, effects_after: 1 });
      c.facts = { effects_before: 0, effects_after: 2 };
      return c.id;
    });
    expect(twice.code).toBe(12);
    expect(twice.stderr).toMatch(new RegExp(`check ${twice.id} .*recorded passed, re-judged (failed|warning): \\d+ parallel requests with one key took effect 2 times \\(answers: [^)]*\\)`));
    const refused = await forged('parallel-409', (report) => {
      const c = report.checks.find((x) => x.id === 'FSAPI-IDEM-003 createAccount parallel' && x.status === 'passed')!;
      for (const x of c.exchanges) {
        if (x.request.method !== 'POST' || x.response?.status !== 201) continue;
        x.response.status = 409;
        x.response.headers['content-type'] = 'application/problem+json';
        x.response.body = JSON.stringify({ type: 'about:blank', title: 'Conflict', status: 409, detail: 'in flight', code: 'idempotency_conflict' });
      }
      return c.id;
    });
    expect(refused.code).toBe(12);
    expect(refused.stderr).toContain(`check ${refused.id} `);
    expect(refused.stderr).toContain('recorded passed, re-judged skipped: no request of the burst succeeded (8x409)');
  });

  it('two-mib-body: the refusal recorded as a 400, or an effect recorded after it, fails verify with 12', async () => {
    const took = await forged('two-mib', (report) => {
      const c = report.checks.find((x) => x.id.endsWith(' two-mib-body') && x.status === 'passed')!;
      c.facts = { ...c.facts, effects_after: Number(c.facts!['effects_before']) + 1 };
      return c.id;
    });
    expect(took.code).toBe(12);
    expect(took.stderr).toMatch(new RegExp(`check ${took.id} .*recorded passed, re-judged (failed|warning): the 2 MiB body was answered 413 but took effect \\(0 before, 1 after\\)`));
    const status = await forged('two-mib-400', (report) => {
      const c = report.checks.find((x) => x.id.endsWith(' two-mib-body') && x.status === 'passed')!;
      const x = c.exchanges.find((e) => e.probe === 'oversized-body')!;
      x.response!.status = 400;
      delete x.operation;
      return c.id;
    });
    expect(status.code).toBe(12);
    expect(status.stderr).toMatch(new RegExp(`check ${status.id} .*recorded passed, re-judged (failed|warning): .*expected status for a 2 MiB body 413, got 400`));
  });

  it('versioning: another version recorded as served fails verify with 12', async () => {
    // (FSAPI-VER-001's answer, a list, is cut at the evidence cap here: verify lets a cut answer's difference pass.)
    const served = await forged('ver-served', (report) => {
      const c = report.checks.find((x) => x.id.endsWith(' other-versions-404'))!;
      c.exchanges.find((e) => e.case === 'v2')!.response!.status = 200;
      return c.id;
    });
    expect(served.code).toBe(12);
    expect(served.stderr).toContain(`check ${served.id} `);
    expect(served.stderr).toMatch(/re-judged (failed|warning): another version segment is served: GET \/v2\/accounts answered 200/);
  });

  it('customer flows: a value recorded as returned otherwise, or a refusal recorded as a 500, fails verify with 12', async () => {
    const changed = await forged('cus-date', (report) => {
      const c = report.checks.find((x) => x.id === 'FSAPI-CUS-002 createCustomer date-valid' && x.status === 'passed')!;
      const x = c.exchanges.find((e) => e.case === 'create')!;
      x.response!.body = x.response!.body!.replace('"date_of_birth":"1988-02-29"', '"date_of_birth":"1988-03-01"');
      return c.id;
    });
    expect(changed.code).toBe(12);
    expect(changed.stderr).toContain(`check ${changed.id} `);
    expect(changed.stderr).toContain('re-judged failed: date_of_birth "1988-02-29" was returned as "1988-03-01" by the create answer');
    const crashed = await forged('cus-500', (report) => {
      const c = report.checks.find((x) => x.id === 'FSAPI-CUS-003 createCustomer phone-no-plus' && x.status === 'passed')!;
      const x = c.exchanges.find((e) => e.case === 'create')!;
      x.response!.status = 500;
      delete x.operation;
      return c.id;
    });
    expect(crashed.code).toBe(12);
    expect(crashed.stderr).toContain(`check ${crashed.id} `);
    expect(crashed.stderr).toMatch(/re-judged (failed|warning): POST \S+ with phone "14155550123" answered 500.*: a server error, not a refusal/);
  });

  it('a flow read back with another address fails verify with 12', async () => {
    const v = await forged('wal-address', (report) => {
      const c = report.checks.find((x) => x.id === 'FSAPI-WAL-001 createWallet supported-pair' && x.status === 'passed')!;
      const x = c.exchanges.find((e) => e.case === 'read')!;
      x.response!.body = x.response!.body!.replace(/"address":"[^"]*"/, '"address":"0x0000000000000000000000000000000000000000"');
      return c.id;
    });
    expect(v.code).toBe(12);
    expect(v.stderr).toContain(`check ${v.id} `);
    expect(v.stderr).toMatch(/re-judged (failed|warning): GET \S+ shows address "0x0{40}"; it was created with "/);
  });

  it('flows judged from facts and cases: balances recorded as moved, a second activation recorded as accepted, fail verify with 12', async () => {
    const moved = await forged('trf-moved', (report) => {
      const c = report.checks.find((x) => x.id === 'FSAPI-TRF-002 createTransfer insufficient-funds' && x.status === 'passed')!;
      c.facts = { ...c.facts, source_after: '0.00' };
      return c.id;
    });
    expect(moved.code).toBe(12);
    expect(moved.stderr).toContain(`check ${moved.id} `);
    expect(moved.stderr).toMatch(/re-judged (failed|warning): the refused transfer moved money: source \S+ → 0\.00/);
    const twice = await forged('feat-twice', (report) => {
      const c = report.checks.find((x) => x.id === 'FSAPI-FEAT-002 activateFeature after-kyc' && x.status === 'passed')!;
      const x = c.exchanges.find((e) => e.case === 'again')!;
      x.response!.status = 200;
      delete x.operation;
      return c.id;
    });
    expect(twice.code).toBe(12);
    expect(twice.stderr).toContain(`check ${twice.id} `);
    expect(twice.stderr).toMatch(/re-judged (failed|warning): activating cards a second time answered 200; expected 409/);
  });

  it('bad input gets one message, no stack', async () => {
    const v = await runCli(['verify', join(root, 'none.tgz'), '--key', `${key}.pub`], {});
    expect(v.code).toBe(2);
    expect(v.stderr).toMatch(/^error: .*none\.tgz: no such file/);
    copyFileSync(`${key}.pub`, join(root, 'not-a-package.tgz'));
    const w = await runCli(['verify', join(root, 'not-a-package.tgz'), '--key', `${key}.pub`], {});
    expect(w.code).toBe(2);
    expect(w.stderr).not.toMatch(/\n\s+at /);
  });
});
