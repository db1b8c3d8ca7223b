import { createPrivateKey } from 'node:crypto';
import type { CommandSpec } from '../command.js';
import { UsageError } from '../../errors.js';
import { PARTY_PATTERN } from '../../certify/layout.js';

export const CERTIFY_KEY_ENV = 'FSAPI_CERTIFY_KEY';

export const certifyCommand: CommandSpec = {
  name: 'certify',
  summary: 'package a run as a signed certification package (verify checks it offline)',
  usage: 'fsapi-conformance certify [--run DIR] --key FILE --out FILE.tgz [--party NAME]',
  description: `
Packages one run (its reports, every check's recorded exchanges, the document, requirements, binding and
capabilities file in use) with an in-toto statement of every file's SHA-256 and of what the package gives, in a DSSE
envelope signed with the key. Writes the certificate (FILE.certificate.html) and a badge (FILE.badge.svg) beside it.
Everything verify derives is derived first, by the same code: a run whose evidence contradicts its results is
refused with verify's exit code and message. A run against the suite's own reference sandbox is refused unless
--allow-reference-sandbox, and is then certified as what it is ("reference sandbox, not a vendor").
Format: docs/certification.md.`,
  options: [
    { name: 'run', type: 'string', value: 'DIR', description: 'the run directory', default: 'reports/latest' },
    { name: 'key', type: 'string', value: 'FILE', description: `the private key (PREFIX.key from keygen); or its PEM text in ${CERTIFY_KEY_ENV}` },
    { name: 'out', type: 'string', value: 'FILE.tgz', description: 'the package to write' },
    { name: 'party', type: 'string', value: 'NAME', description: 'who is certified, as the certificate and statement name them ("Acme Bank, Payments API")', env: 'FSAPI_CERTIFY_PARTY' },
    { name: 'public-key', type: 'string', value: 'FILE', description: "the public key file certifiers get, as the certificate's \"how to verify\" names it (default: PREFIX.pub beside --key; checked against the key when it is there)" },
    { name: 'allow-reference-sandbox', type: 'boolean', description: "certify a run against fsapi-conformance's own reference sandbox (a trial); its certificate and badge say so", default: 'false', env: 'FSAPI_CERTIFY_ALLOW_REFERENCE_SANDBOX' },
  ],
  env: [{ name: CERTIFY_KEY_ENV, description: 'the private key as PEM text (for CI: from a secret), when --key is not given', secret: true }],
  exitCodes: [
    { code: 0, meaning: 'the package was written' },
    { code: 2, meaning: 'a missing or unreadable run, key or input, or a run against the reference sandbox without --allow-reference-sandbox (one message says which)' },
    { code: 3, meaning: 'internal error of the suite' },
    { code: 11, meaning: 'refused: the run directory is not a readable report of this version' },
    { code: 12, meaning: "refused: a check's recorded exchanges, judged again, contradict its recorded result" },
    { code: 13, meaning: 'refused: the counts, coverage or verdict are not what the checks add up to' },
    { code: 14, meaning: 'refused: the run was made by another suite version' },
    { code: 15, meaning: "refused: the checks are not the run's plan, or the run is not whole (interrupted, merged)" },
    { code: 16, meaning: "refused: an input is not the suite's or not the run's" },
    { code: 17, meaning: 'refused: the evidence is not all of this run and target' },
  ],
  async run(args) {
    const [{ certify }, { loadPrivateKey }, { Difference }] = await Promise.all([import('../../certify/certify.js'), import('../../certify/keys.js'), import('../../certify/difference.js')]);
    const out = args.values['out'];
    if (typeof out !== 'string' || out === '') throw new UsageError('certify needs --out FILE.tgz');
    const keyPath = args.values['key'];
    const pem = process.env[CERTIFY_KEY_ENV];
    let key;
    if (typeof keyPath === 'string') key = loadPrivateKey(keyPath);
    else if (pem) {
      try {
        key = createPrivateKey(pem);
      } catch {
        throw new UsageError(`${CERTIFY_KEY_ENV} is not a PEM private key (put the content of PREFIX.key from keygen in it)`);
      }
    } else throw new UsageError(`certify needs --key FILE (or the key's PEM in ${CERTIFY_KEY_ENV}); make a pair with: fsapi-conformance keygen --out PREFIX`);
    const party = args.values['party'] ?? process.env['FSAPI_CERTIFY_PARTY'];
    if (typeof party === 'string' && !new RegExp(PARTY_PATTERN, 'u').test(party.trim() || 'x')) {
      throw new UsageError('--party holds a control character (a line break, an escape)', { fix: 'name the party in printable text: --party "Acme Bank, Payments API"' });
    }
    if (typeof party === 'string' && party.trim().length > 200) throw new UsageError(`--party is ${party.trim().length} characters long`, { fix: 'name the party in at most 200 characters' });
    const publicKey = args.values['public-key'];
    const t0 = performance.now();
    try {
      const c = await certify({
        runDir: typeof args.values['run'] === 'string' ? args.values['run'] : 'reports/latest',
        key,
        out,
        ...(typeof keyPath === 'string' ? { keyPath } : {}),
        ...(typeof party === 'string' && party.trim() ? { party: party.trim() } : {}),
        ...(typeof publicKey === 'string' ? { publicKey } : {}),
        allowReferenceSandbox: args.values['allow-reference-sandbox'] === true || process.env['FSAPI_CERTIFY_ALLOW_REFERENCE_SANDBOX'] === 'true',
      });
      const p = c.predicate;
      const r = c.derived.rejudgement;
      console.log(`certified: ${c.out} (${(c.bytes / 1024).toFixed(0)} KiB, ${c.files} files, ${Math.round(performance.now() - t0)} ms)`);
      console.log(`${p.verdict}${p.party ? ` for ${p.party}` : ''}; signed by ${p.signer.fingerprint}; the plan's ${r.planned} checks all recorded; ${r.rejudged} re-judged from their exchanges (${r.answerOnly} on the probe's answer only), all agree; ${r.notRejudged.length} not re-judged (listed in the statement)`);
      if (p.target.kind === 'reference-sandbox') console.log(`note: this certifies fsapi-conformance's reference sandbox, not a vendor${p.target.sandbox_faults.length ? ` (faults: ${p.target.sandbox_faults.join(', ')})` : ''}; the certificate and badge say so`);
      if (p.signer.public_key === 'SIGNER.pub') console.log('note: the certificate calls the public key SIGNER.pub: name the file you send with --public-key');
      console.log(`certificate: ${c.certificate}\nbadge:       ${c.badge}`);
      return 0;
    } catch (e) {
      if (e instanceof Difference) {
        console.error(`error: refused: ${e.message}`);
        return e.code;
      }
      throw e;
    }
  },
};
