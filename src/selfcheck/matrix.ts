/**
 * Self-verification: the suite run against the reference sandbox with each fault switch, to prove its verdicts.
 * For every fault, exactly the requirements it is documented to break must fail (or warn, or error), and the
 * verdict must be non-conformant exactly when one of them is MUST or CONTRACT. Against the clean sandbox nothing
 * may fail, warn or error.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SuiteSlug } from '../catalogue/groups.js';
import { isBlockingLevel, type Level } from '../catalogue/levels.js';
import { fromRoot } from '../paths.js';
import type { RunReport, Verdict } from '../results/model.js';

export interface FaultInfo {
  name: string;
  breaks: string[];
  description: string;
  area?: string | string[];
}

/** One run's outcome, reduced to what the matrix judges. */
export interface RunOutcome {
  verdict: Verdict | 'did-not-run';
  checks: number;
  /** Requirement -> the checks that failed, warned or errored, with their suite. */
  failing: Record<string, { id: string; suite: string; status: string }[]>;
  /** Checks skipped because the target refused a prerequisite: a clean run must have none. */
  preconditions: string[];
  durationMs: number;
  /** Exit code and the end of stderr, when the run itself went wrong. */
  problem?: string;
}

export interface FaultResult {
  fault: FaultInfo;
  suites: SuiteSlug[];
  outcome: RunOutcome;
  /** Documented but not failing. */
  missed: string[];
  /** Failing but not documented. */
  unexpected: string[];
  expectedVerdict: Verdict;
  ok: boolean;
}

const BIN = fromRoot('bin', 'fsapi-conformance.js');
const FAILING = new Set(['failed', 'warning', 'error']);

/** Runs the CLI once against the embedded sandbox with the given faults and suites; never throws. */
export function runOnce(opts: { faults: string[]; suites: SuiteSlug[]; seed: number; extraArgs?: string[] }): Promise<RunOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'fsapi-selfcheck-'));
  const args = [BIN, 'run', '--quiet', '--seed', String(opts.seed), '--report-dir', dir, '--groups', opts.suites.join(','), ...(opts.extraArgs ?? [])];
  for (const f of opts.faults) args.push('--sandbox-fault', f);
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.on('close', (code) => {
      const durationMs = performance.now() - t0;
      try {
        const report = JSON.parse(readFileSync(join(dir, 'latest', 'conformance.json'), 'utf8')) as RunReport;
        const failing: RunOutcome['failing'] = {};
        const preconditions: string[] = [];
        for (const c of report.checks) {
          if (FAILING.has(c.status)) (failing[c.requirement] ??= []).push({ id: c.id, suite: c.group, status: c.status });
          if (c.status === 'skipped' && c.message?.startsWith('precondition failed')) preconditions.push(`${c.id}: ${c.message}`);
        }
        const out: RunOutcome = { verdict: report.verdict, checks: report.checks.length, failing, preconditions, durationMs };
        if (code !== 0 && code !== 1 && code !== 6) out.problem = `exit ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`;
        resolve(out);
      } catch {
        resolve({ verdict: 'did-not-run', checks: 0, failing: {}, preconditions: [], durationMs, problem: `exit ${code}: ${stderr.trim().split('\n').slice(-5).join(' | ')}` });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

/** Only what the CLI needs: a user's FSAPI_* settings must not change the matrix. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'SYSTEMROOT', 'FSAPI_FROM_SOURCE']) if (process.env[k] !== undefined) env[k] = process.env[k];
  return env;
}

/** Judges one fault's run against its documentation. */
export function judge(fault: FaultInfo, suites: SuiteSlug[], outcome: RunOutcome, levels: Map<string, Level>): FaultResult {
  const failing = new Set(Object.keys(outcome.failing));
  const missed = fault.breaks.filter((r) => !failing.has(r));
  const unexpected = [...failing].filter((r) => !fault.breaks.includes(r)).sort();
  const blocking = fault.breaks.map((r) => levels.get(r)).some((l) => l !== undefined && isBlockingLevel(l));
  const expectedVerdict: Verdict = blocking ? 'non-conformant' : 'conformant';
  const ok = !outcome.problem && missed.length === 0 && unexpected.length === 0 && outcome.verdict === expectedVerdict;
  return { fault, suites, outcome, missed, unexpected, expectedVerdict, ok };
}

/** Runs tasks with at most `limit` in flight. */
export async function pool<T, R>(items: T[], limit: number, work: (item: T, index: number) => Promise<R>, onDone?: (r: R, i: number) => void): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]!, i);
        onDone?.(out[i]!, i);
      }
    }),
  );
  return out;
}

export const DEFAULT_PARALLEL = Math.max(1, Math.min(4, availableParallelism()));
