import { createPrivateKey } from 'node:crypto';
import type { CommandSpec } from '../command.js';
import { UsageError } from '../../errors.js';

export const CERTIFY_KEY_ENV = 'FSAPI_CERTIFY_KEY';

export const certifyCommand: CommandSpec = {
  name: 'certify',
  summary: 'package a run as a signed certification package (verify checks it offline)',
  usage: 'fsapi-conformance certify [--run DIR] --key FILE --out FILE.tgz',
  description: `
Packages one run (its reports, every check's recorded exchanges, the document, requirements, binding and
capabilities file in use, the environment) with an in-toto statement of every file's SHA-256 in a DSSE envelope
signed with the key. Writes the certificate (FILE.certificate.html) and a badge (FILE.badge.svg) beside it.
Every recorded exchange is judged again first: a run whose evidence contradicts its results is refused.
Format: docs/certification.md.`,
  options: [
    { name: 'run', type: 'string', value: 'DIR', description: 'the run directory', default: 'reports/latest' },
    { name: 'key', type: 'string', value: 'FILE', description: `the private key (PREFIX.key from keygen); or its PEM text in ${CERTIFY_KEY_ENV}` },
    { name: 'out', type: 'string', value: 'FILE.tgz', description: 'the package to write' },
    { name: 'capabilities', type: 'string', value: 'FILE', description: 'the capabilities file the run used, to package with it', env: 'FSAPI_CAPABILITIES' },
  ],
  env: [{ name: CERTIFY_KEY_ENV, description: 'the private key as PEM text (for CI: from a secret), when --key is not given', secret: true }],
  exitCodes: [
    { code: 0, meaning: 'the package was written' },
    { code: 2, meaning: 'a missing or unreadable run, key or input (one message says which)' },
    { code: 3, meaning: 'internal error of the suite' },
    { code: 12, meaning: "refused: a check's recorded exchanges, judged again, contradict its recorded result (or the counts or verdict)" },
  ],
  async run(args) {
    const [{ certify, EvidenceContradiction }, { loadPrivateKey }] = await Promise.all([import('../../certify/certify.js'), import('../../certify/keys.js')]);
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
    const caps = args.values['capabilities'] ?? process.env['FSAPI_CAPABILITIES'];
    const t0 = performance.now();
    try {
      const c = await certify({ runDir: typeof args.values['run'] === 'string' ? args.values['run'] : 'reports/latest', key, out, ...(typeof caps === 'string' && caps ? { capabilities: caps } : {}) });
      console.log(`certified: ${c.out} (${(c.bytes / 1024).toFixed(0)} KiB, ${c.files} files, ${Math.round(performance.now() - t0)} ms)`);
      console.log(`signed by ${c.fingerprint}; ${c.rejudgement.rejudged} of ${c.rejudgement.total} checks re-judged from their exchanges (${c.rejudgement.answerOnly} on the probe's answer only), all agree`);
      console.log(`certificate: ${c.certificate}\nbadge:       ${c.badge}`);
      return 0;
    } catch (e) {
      if (e instanceof EvidenceContradiction) {
        console.error(`error: ${e.message}`);
        return 12;
      }
      throw e;
    }
  },
};
