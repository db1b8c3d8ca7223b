/**
 * Every command README.md shows (each line of its sh blocks, and each `npx --no fsapi-conformance ...` or
 * `npm run ...` it names in the text) runs on a fresh copy of this checkout as written, with the exit code the
 * README implies, the way test/readme-counts.test.ts holds its figures: a command added to the README without an
 * entry here fails the test. Commands that need the network (npm ci, npm install), a remote target or minutes of
 * their own are listed as skipped with the reason. The copy is the tracked files (git ls-files) with node_modules and
 * dist linked: `npm ci` and the build are the ones skipped. FSAPI_GROUPS keeps the whole runs short; a command that
 * names its groups keeps them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildIsCurrent } from '../bin/build-stamp.js';
import { busy } from './helpers/busy.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const GROUPS = 'transport,versioning';
const REMOTE = 'needs a remote target (the vendor\'s own API); the same commands run against a sandbox in test/action.test.ts and test/runs.test.ts';

/** The commands README.md shows: sh block lines (comments and `export` lines aside) and inline ones. */
function readmeCommands(): string[] {
  const blocks = [...README.matchAll(/^```(?:sh|bash|console)\n([\s\S]*?)^```/gm)].flatMap((m) => m[1]!.split('\n'));
  const lines = blocks.map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l && !l.startsWith('#'));
  const inline = [...README.matchAll(/`((?:npx --no fsapi-conformance|npm run) [^`]+)`/g)].map((m) => m[1]!.trim());
  return [...new Set([...lines, ...inline])];
}

interface Case {
  /** What the README implies: 0 unless it says otherwise. */
  exit?: number;
  /** Shell run first, in the copy (files the command reads: a baseline, a vendor document). */
  setup?: string;
  /** What else must hold of its output. */
  check?: (r: { stdout: string; stderr: string; dir: string }) => void;
  skip?: string;
  /** A server that runs until stopped: its first line is read, then it is stopped. */
  server?: true;
  /** FSAPI_GROUPS for this command, when the default's groups cannot show what it shows. */
  groups?: string;
}

const SHARDS = [1, 2, 3, 4].map((i) => `npx --no fsapi-conformance run --shard ${i}/4 --seed 5 --report-dir shard${i} >/dev/null`).join(' && ');

const CASES: Record<string, Case> = {
  'npm ci && npm run conformance': { check: ({ dir }) => expect(existsSync(join(dir, 'reports', 'latest', 'conformance.json'))).toBe(true) },
  'npm run conformance': { skip: 'run as "npm ci && npm run conformance" above (the copy has node_modules linked, so that is this command)' },
  'npm test': { skip: 'the project\'s own tests: this test is one of them' },
  'npm run conformance -- --sandbox-fault idem-ignored': { exit: 1, groups: 'accounts', check: ({ stdout }) => expect(stdout).toMatch(/FSAPI-IDEM-002/) },
  'npm run conformance -- --groups customers > out.txt': {
    check: ({ dir, stdout }) => {
      // npm's own banner goes to out.txt too; the suite lines and the verdict are there, nothing of them on the terminal.
      const out = readFileSync(join(dir, 'out.txt'), 'utf8');
      expect(out).toMatch(/^ {2}ok +customers +\d+ checks/m);
      expect(out).toMatch(/^verdict: CONFORMANT$/m);
      expect(stdout).toBe('');
    },
  },
  'npm install --save-dev --save-exact fsapi-conformance@0.1.0': { skip: 'fetches from the npm registry (network)' },
  'npm ci': { skip: 'installs from the npm registry (network); the copy links this checkout\'s node_modules' },
  'npx --no fsapi-conformance run': {},
  'npx --no fsapi-conformance sandbox': { server: true },
  'npx --no fsapi-conformance help': { check: ({ stdout }) => expect(stdout).toMatch(/\bselfcheck\b/) },
  'npx --no fsapi-conformance version': { check: ({ stdout }) => expect(stdout.trim()).toMatch(/^fsapi-conformance \d+\.\d+\.\d+$/) },
  'npx --no fsapi-conformance bind --spec vendor.yaml --out binding.yaml': {
    setup: "sed 's/^  title: .*/  title: Vendor API/' spec/openapi.yaml > vendor.yaml",
    check: ({ dir }) => expect(existsSync(join(dir, 'binding.yaml'))).toBe(true),
  },
  'npx --no fsapi-conformance run --spec vendor.yaml --binding binding.yaml': {
    // Without the vendor's base URL the document is refused; --embedded-sandbox makes it a trial, labelled as one.
    exit: 2,
    check: ({ stderr }) => expect(stderr).toMatch(/--embedded-sandbox/),
  },
  'npx --no fsapi-conformance run --spec vendor.yaml --binding binding.yaml --embedded-sandbox': {
    check: ({ stdout, dir }) => {
      expect(stdout).toMatch(/^fsapi-conformance \S+: embedded reference sandbox \(a trial of .*vendor\.yaml and its binding\)$/m);
      expect(stdout).toMatch(/^verdict: CONFORMANT \(trial: the vendor's document against the reference sandbox, not a verdict on the vendor's API\)$/m);
      expect(readFileSync(join(dir, 'reports', 'latest', 'summary.md'), 'utf8')).toMatch(/^# 🧪 Trial, Conformant: Vendor API/);
    },
  },
  'npm ci && npx --no fsapi-conformance run --report-dir reports': {},
  'cat reports/latest/summary.md >> "$GITHUB_STEP_SUMMARY"': { check: ({ dir }) => expect(readFileSync(join(dir, 'step-summary.md'), 'utf8')).toMatch(/^# ✅ Conformant/) },
  'npx --no fsapi-conformance keygen --out acme-signer': { check: ({ dir }) => expect(existsSync(join(dir, 'acme-signer.pub'))).toBe(true) },
  'npx --no fsapi-conformance run --html --strict --seed 20261120': { skip: REMOTE },
  'npx --no fsapi-conformance certify --key acme-signer.key --out acme-fsapi.tgz --party "Acme Bank, Payments API"': { skip: `certifies the run above, ${REMOTE}` },
  'npx --no fsapi-conformance verify acme-fsapi.tgz --key acme-signer.pub --require conformant': { skip: 'verifies the package certify writes above (test/certify.test.ts runs the pair)' },
  'npx --no fsapi-conformance run --baseline stored/': { setup: 'rm -rf stored && cp -rL reports/latest stored' },
  'npx --no fsapi-conformance diff stored/conformance.json reports/latest/conformance.json': {},
  'npx --no fsapi-conformance spec-diff old/openapi.yaml new/openapi.yaml': { setup: 'mkdir -p old new && cp spec/openapi.yaml old/ && cp spec/openapi.yaml new/' },
  'npx --no fsapi-conformance selfcheck': { skip: 'a few minutes of its own; test/selfcheck.test.ts runs it' },
  'npx --no fsapi-conformance selfcheck --faults idem-race': {
    check: ({ stdout, stderr }) => {
      // Results on stdout (`selfcheck > out.txt` keeps them), progress on stderr.
      expect(stdout).toMatch(/^ {2}ok +idem-race /m);
      // The clean control runs over the suites the fault ran over, not every suite.
      expect(stdout).toMatch(/^ {2}ok +clean sandbox: \d+ checks, conformant \[wallets\]/m);
      expect(stdout).toMatch(/^PROVEN: 1\/1 fault caught exactly/m);
      expect(stderr).toMatch(/^self-verification: the clean sandbox and 1 fault in 1 run /m);
      expect(stderr).not.toMatch(/PROVEN/);
    },
  },
  'npx --no fsapi-conformance selfcheck --full --write': { skip: 'about 20 minutes on 2 cores, and it rewrites the recorded matrix' },
  'npx --no fsapi-conformance run --print-env-example > .env': { check: ({ dir }) => expect(readFileSync(join(dir, '.env'), 'utf8')).toMatch(/FSAPI_BASE_URL=/) },
  'npx --no fsapi-conformance merge shard1 shard2 shard3 shard4 --out reports/merged': {
    setup: SHARDS,
    check: ({ stdout, stderr, dir }) => {
      expect(stderr).toMatch(/^shard1: a folder of runs; merging its latest run, shard1\/\d{8}-\d{6}-[0-9a-f]{6}$/m);
      expect(stdout).toMatch(/reports\/latest now points at it/);
      expect(stdout).toMatch(/^verdict: conformant \(exit 0\)$/m);
      expect(readFileSync(join(dir, 'reports', 'merged', 'openapi-document.yaml'), 'utf8')).toBe(readFileSync(join(ROOT, 'spec', 'openapi.yaml'), 'utf8'));
    },
  },
  'npx --no fsapi-conformance merge shard1/latest shard2/latest shard3/latest shard4/latest --out reports/merged-again': {
    check: ({ stdout }) => expect(stdout).toMatch(/^verdict: conformant \(exit 0\)$/m),
  },
  'npx --no fsapi-conformance requirements': { check: ({ stdout }) => expect(stdout).toMatch(/FSAPI-AUTH-001/) },
  'npm run index': { skip: 'rewrites spec/requirements.yaml from the check code; test/requirement-index.test.ts checks it is current' },
  'npm run wire-types': { skip: 'rewrites sandbox/wire-types.ts from spec/openapi.yaml; test/wire-types.test.ts runs it with --check' },
  'npm run report': { check: ({ stdout, stderr }) => {
    expect(stdout).toMatch(/allure-report\/index\.html/);
    expect(stderr).toMatch(/^html: built in [\d.]+ s$/m);
  } },
  'npx --no fsapi-conformance run --help': { check: ({ stdout }) => expect(stdout).toMatch(/FSAPI_BASE_URL/) },
  'npm run build': { skip: 'rebuilds dist/, which the copy shares with this checkout (npm test builds it first)' },
  'npm run typecheck': { skip: 'type-checks the sources (the first step of npm test)' },
};
/** Commands shown in the README only as a remote target's settings, not run on their own. */
const EXPORTS = /^export FSAPI_/;

let copy = '';
let bin = '';
beforeAll(() => {
  expect(buildIsCurrent(ROOT), 'build first (npm run build)').toBe(true);
  copy = mkdtempSync(join(tmpdir(), 'fsapi-readme-'));
  const files = spawnSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  for (const f of files) {
    if (!existsSync(join(ROOT, f))) continue;
    mkdirSync(dirname(join(copy, f)), { recursive: true });
    cpSync(join(ROOT, f), join(copy, f), { preserveTimestamps: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  symlinkSync(join(ROOT, 'dist'), join(copy, 'dist'));
  // `npx --no fsapi-conformance` runs the project's own bin (as it does in a clone); `npm ci` needs the network.
  bin = mkdtempSync(join(tmpdir(), 'fsapi-readme-bin-'));
  const npm = spawnSync('bash', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(join(bin, 'npx'), `#!/bin/sh\n[ "$1" = --no ] && [ "$2" = fsapi-conformance ] || exit 127\nshift 2\nexec "${process.execPath}" "${copy}/bin/fsapi-conformance.js" "$@"\n`);
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\ncase "$1" in ci|install) echo "npm $1: skipped (network); node_modules is linked" >&2; exit 0;; esac\nexec "${npm}" "$@"\n`);
  for (const f of ['npx', 'npm']) chmodSync(join(bin, f), 0o755);
});

const env = (groups = GROUPS) => ({ PATH: `${bin}:${dirname(process.execPath)}:${process.env['PATH'] ?? ''}`, HOME: process.env['HOME'] ?? '', FSAPI_QUIET: 'true', FSAPI_GROUPS: groups, GITHUB_STEP_SUMMARY: join(copy, 'step-summary.md') });

describe('README.md commands', () => {
  it('every command the README shows has its case here (run, or skipped with the reason)', () => {
    const shown = readmeCommands().filter((c) => !EXPORTS.test(c));
    expect(shown.filter((c) => !(c in CASES))).toEqual([]);
  });

  // In the README's order: later commands read what earlier ones wrote (reports/latest, stored/, shard1..4).
  for (const [command, c] of Object.entries(CASES)) {
    if (c.skip) {
      it.skip(`${command}  (skipped: ${c.skip})`, () => undefined);
      continue;
    }
    it(`${command}  (exit ${c.exit ?? 0})`, { timeout: busy(300_000) }, async () => {
      if (c.setup) {
        const s = spawnSync('bash', ['-e', '-c', c.setup], { cwd: copy, encoding: 'utf8', env: env() });
        expect(s.status, s.stderr).toBe(0);
      }
      if (c.server) {
        const child = spawn('bash', ['-c', `exec ${command}`], { cwd: copy, env: env() });
        const exited = new Promise<number | null>((resolve) => child.once('exit', (n) => resolve(n)));
        try {
          const first = await new Promise<string>((resolve, reject) => {
            createInterface({ input: child.stdout }).once('line', resolve);
            void exited.then((code) => reject(new Error(`exited ${code} before its first line`)));
          });
          expect(first).toMatch(/^fsapi-conformance sandbox/);
        } finally {
          // Stopped whatever the assertion said: no sandbox outlives the test.
          child.kill('SIGTERM');
        }
        expect(await exited).toBe(0);
        return;
      }
      const r = spawnSync('bash', ['-c', command], { cwd: copy, encoding: 'utf8', env: env(c.groups), timeout: busy(280_000) });
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(c.exit ?? 0);
      c.check?.({ stdout: r.stdout, stderr: r.stderr, dir: copy });
    });
  }
});
