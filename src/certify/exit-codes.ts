/** verify's exit codes, apart from its code so that `verify --help` loads nothing heavy (docs/certification.md lists them). */
export const VERIFY_EXIT = { ok: 0, usage: 2, signature: 10, digest: 11, rejudged: 12, recomputed: 13, version: 14 } as const;

export const VERIFY_EXIT_HELP = [
  { code: VERIFY_EXIT.ok, meaning: 'the signature, every digest, every re-judged check, the counts and the verdict agree' },
  { code: VERIFY_EXIT.usage, meaning: 'the package or key cannot be read' },
  { code: 3, meaning: 'internal error of the suite' },
  { code: VERIFY_EXIT.signature, meaning: 'the signature does not verify with the key (wrong key, or the envelope was changed)' },
  { code: VERIFY_EXIT.digest, meaning: 'a file differs from its signed digest, is missing, or is not in the signed manifest' },
  { code: VERIFY_EXIT.rejudged, meaning: 'a check judged again from its recorded exchanges gives another result than recorded' },
  { code: VERIFY_EXIT.recomputed, meaning: 'the counts, MUST coverage or verdict differ from what the checks add up to (or from the signed statement)' },
  { code: VERIFY_EXIT.version, meaning: 'the package was made by another suite version: verify with that version to re-judge' },
];

