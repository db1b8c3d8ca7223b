/** verify's exit codes, apart from its code so that `verify --help` loads nothing heavy (docs/certification.md lists them). */
export const VERIFY_EXIT = {
  ok: 0,
  usage: 2,
  signature: 10,
  digest: 11,
  rejudged: 12,
  recomputed: 13,
  version: 14,
  plan: 15,
  inputs: 16,
  provenance: 17,
  caveats: 18,
} as const;

export type VerifyCode = (typeof VERIFY_EXIT)[keyof typeof VERIFY_EXIT];

/** With --require: the verified verdict is below it, exiting as `run` would for that verdict. */
export const BELOW_REQUIRED = { 'non-conformant': 1, incomplete: 5, inconclusive: 6 } as const;

export const VERIFY_EXIT_HELP = [
  { code: VERIFY_EXIT.ok, meaning: 'everything agrees (and the verdict is at least what --require asks)' },
  { code: 1, meaning: '--require: verified, but the verdict is non-conformant' },
  { code: VERIFY_EXIT.usage, meaning: 'the package or key cannot be read, or a usage error' },
  { code: 3, meaning: 'internal error of the suite' },
  { code: 5, meaning: '--require: verified, but the run was incomplete' },
  { code: 6, meaning: '--require conformant: verified, but the verdict is inconclusive' },
  { code: VERIFY_EXIT.signature, meaning: 'the signature does not verify with the key (wrong key, or the envelope was changed)' },
  { code: VERIFY_EXIT.digest, meaning: 'a file differs from its signed digest, is missing, is not in the signed manifest, or cannot be opened safely (a name outside the package, a link, an entry too large)' },
  { code: VERIFY_EXIT.rejudged, meaning: 'a check judged again from its recorded exchanges gives another result than recorded' },
  { code: VERIFY_EXIT.recomputed, meaning: 'the counts, coverage, verdict, certificate or badge differ from what the checks add up to (or from the signed statement)' },
  { code: VERIFY_EXIT.version, meaning: 'the package was made by another suite version: verify with that version to re-judge' },
  { code: VERIFY_EXIT.plan, meaning: "the checks are not the run's plan (one missing, one unknown, or one with another requirement, level, group or operation), or the run is not whole" },
  { code: VERIFY_EXIT.inputs, meaning: "an input is not the suite's (the requirement catalogue, the reference document) or not the run's (the document, binding or capabilities file)" },
  { code: VERIFY_EXIT.provenance, meaning: 'the evidence is not of this run: an exchange outside the target, a time outside the run, an idempotency key of another run, a sandbox fault not declared' },
  { code: VERIFY_EXIT.caveats, meaning: "--require: verified, but not a vendor's full run (the suite's own reference sandbox, suites not run, one shard); --accept-caveats accepts it" },
];
