import type { CommandSpec } from '../command.js';
import { UsageError } from '../../errors.js';
import { VERIFY_EXIT_HELP } from '../../certify/exit-codes.js';

const REQUIRE_VALUES = ['conformant', 'inconclusive-or-better'] as const;

export const verifyCommand: CommandSpec = {
  name: 'verify',
  summary: 'verify a certification package offline: signature, digests, the plan, provenance, every exchange re-judged, verdict recomputed',
  usage: 'fsapi-conformance verify FILE.tgz --key PUB [--require conformant] [--accept-caveats] [--json]',
  description: `
Offline, in memory, writing nothing outside a private temporary folder. Checks the DSSE signature with the signer's
public key before anything else is inflated, every file against its signed SHA-256, then derives everything the
signer could have written: the requirement catalogue and reference document are the suite's own, the checks are
exactly the run's plan (this version plans it from the packaged document, binding and settings), every exchange was
sent to the target during the run with this run's idempotency keys, every check re-judged with this suite's
judgement code (use the version that made the package), the counts, verdict, certificate and badge recomputed.
Prints one line: what agreed, or the first difference (file, check, what differs). With --require, a package that
verifies but whose verdict is lower exits as \`run\` would for that verdict (1, 5 or 6), so a certifier's script can
gate on the exit code; it also requires a vendor's full run (exit 18 for the suite's own reference sandbox, suites
not run or one shard, which the printed line and the certificate name) unless --accept-caveats. Format, threat model and exit codes: docs/certification.md.`,
  positionals: { name: 'FILE.tgz', description: 'the package certify wrote', min: 1, max: 1 },
  options: [
    { name: 'key', type: 'string', value: 'PUB', description: "the signer's public key (PREFIX.pub from keygen)" },
    { name: 'require', type: 'string', value: 'VERDICT', description: 'exit non-zero unless the verified verdict is at least this: conformant, or inconclusive-or-better' },
    { name: 'accept-caveats', type: 'boolean', description: "with --require: accept a package that is less than a vendor's full run (the reference sandbox, suites not run, one shard)", default: 'false' },
    { name: 'json', type: 'boolean', description: 'print the result, the derived scope and target, and every check not re-judged (by id, with why) as JSON', default: 'false' },
  ],
  exitCodes: VERIFY_EXIT_HELP,
  async run(args) {
    const [{ verifyPackage }, { loadPublicKey }, { caveats }] = await Promise.all([import('../../certify/verify.js'), import('../../certify/keys.js'), import('../../certify/certificate.js')]);
    const file = args.positionals[0];
    if (!file) throw new UsageError('verify needs the package: fsapi-conformance verify FILE.tgz --key PUB');
    const keyPath = args.values['key'];
    if (typeof keyPath !== 'string') throw new UsageError("verify needs --key PUB, the signer's public key");
    const required = args.values['require'];
    if (required !== undefined && !REQUIRE_VALUES.includes(required as (typeof REQUIRE_VALUES)[number])) {
      throw new UsageError(`--require ${String(required)}: not a level verify knows`, { fix: `use --require ${REQUIRE_VALUES.join(' or --require ')}` });
    }
    const t0 = performance.now();
    const v = await verifyPackage(file, loadPublicKey(keyPath), { ...(required ? { require: required as (typeof REQUIRE_VALUES)[number] } : {}), acceptCaveats: args.values['accept-caveats'] === true });
    const ms = Math.round(performance.now() - t0);
    if (args.values['json']) {
      const s = v.statement;
      const r = v.derived?.rejudgement;
      console.log(
        JSON.stringify(
          {
            code: v.code,
            message: v.message,
            ...(s ? { verdict: s.verdict, caveats: caveats(s), party: s.party ?? null, target: s.target, scope: s.scope, document: s.document, ...(s.binding ? { binding: s.binding } : {}) } : {}),
            ...(r ? { files: v.files, planned: r.planned, rejudged: r.rejudged, answer_only: r.answerOnly, not_rejudged: r.notRejudged } : {}),
            ms,
          },
          null,
          2,
        ),
      );
    } else if (v.code === 0) console.log(`${v.message} (${ms} ms)`);
    else if (v.message.startsWith('verified, but')) console.log(`${v.message} (${ms} ms)`);
    else console.error(`error: ${v.message}`);
    return v.code;
  },
};
