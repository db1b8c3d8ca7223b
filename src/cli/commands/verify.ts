import type { CommandSpec } from '../command.js';
import { UsageError } from '../../errors.js';
import { VERIFY_EXIT_HELP } from '../../certify/exit-codes.js';

export const verifyCommand: CommandSpec = {
  name: 'verify',
  summary: 'verify a certification package offline: signature, digests, every exchange re-judged, verdict recomputed',
  usage: 'fsapi-conformance verify FILE.tgz --key PUB [--json]',
  description: `
Offline. Checks the DSSE signature with the signer's public key, every file against its signed SHA-256, judges every
recorded exchange again with this suite's judgement code (use the version that made the package), and recomputes
the counts and the verdict. Prints one line: what agreed, or the first difference (file, check, what differs).
Format and exit codes: docs/certification.md.`,
  positionals: { name: 'FILE.tgz', description: 'the package certify wrote', min: 1, max: 1 },
  options: [
    { name: 'key', type: 'string', value: 'PUB', description: "the signer's public key (PREFIX.pub from keygen)" },
    { name: 'json', type: 'boolean', description: 'print the result, and which checks were not re-judged and why, as JSON', default: 'false' },
  ],
  exitCodes: VERIFY_EXIT_HELP,
  async run(args) {
    const [{ verifyPackage }, { loadPublicKey }] = await Promise.all([import('../../certify/verify.js'), import('../../certify/keys.js')]);
    const file = args.positionals[0];
    if (!file) throw new UsageError('verify needs the package: fsapi-conformance verify FILE.tgz --key PUB');
    const keyPath = args.values['key'];
    if (typeof keyPath !== 'string') throw new UsageError("verify needs --key PUB, the signer's public key");
    const t0 = performance.now();
    const v = await verifyPackage(file, loadPublicKey(keyPath));
    if (args.values['json']) {
      const r = v.rejudgement;
      console.log(JSON.stringify({ code: v.code, message: v.message, ...(r ? { rejudged: r.rejudged, answer_only: r.answerOnly, total: r.total, not_rejudged: r.notRejudged, recomputed: r.recomputed } : {}), ms: Math.round(performance.now() - t0) }, null, 2));
    } else if (v.code === 0) console.log(`${v.message} (${Math.round(performance.now() - t0)} ms)`);
    else console.error(`error: ${v.message}`);
    return v.code;
  },
};
