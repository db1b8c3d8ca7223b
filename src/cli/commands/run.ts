import { relative } from 'node:path';
import { describePacing } from '../../config/pacing.js';
import { loadRunConfig } from '../../config/run-config.js';
import { renderEnvExample } from '../../config/env-example.js';
import { SETTINGS } from '../../config/variables.js';
import type { RunReport } from '../../results/model.js';
import { EXIT_CODE_HELP, exitCodeOf } from '../../results/verdict.js';
import { Interrupted } from '../../runner/interrupt.js';
import { intermittentLine, newlyFailingCounts } from '../../results/attempts.js';
import { describeConflict, groupedChecks } from '../../results/document-conflicts.js';
import { describeDrift, documentChangeLines } from '../../reports/regression-render.js';
import { LiveProgress } from '../../runner/progress.js';
import { SUITE_VERSION } from '../../paths.js';
import { runOutput } from '../run-output.js';
import { invocation } from '../../invocation.js';
import { plural, statusTally, trialNote } from '../../reports/text.js';
import type { CommandSpec, OptionSpec } from '../command.js';

const options: OptionSpec[] = SETTINGS.filter((s) => s.flag && !s.secret).map((s) => ({
  name: s.flag!,
  type: s.type === 'boolean' ? 'boolean' : 'string',
  ...(s.short ? { short: s.short } : {}),
  ...(s.type === 'list' && s.flag === 'sandbox-fault' ? { multiple: true } : {}),
  ...(s.value ? { value: s.value } : {}),
  description: s.description,
  ...(s.default !== undefined ? { default: s.default } : {}),
  ...(s.valueOptional && s.default !== undefined ? { bare: s.default } : {}),
  env: s.env,
}));

const MAX_LISTED = 15;

export const runCommand: CommandSpec = {
  name: 'run',
  summary: 'run the conformance suites against a target (default: the embedded sandbox) and write reports',
  usage: 'fsapi-conformance run [options]',
  description: `
With no target configured, starts the embedded reference sandbox and runs every group against it.
Point it at your own target with FSAPI_BASE_URL, FSAPI_API_KEY and FSAPI_TENANT_ID (environment or .env).
Flags override the environment for everything except secrets, which are read only from the environment.
Reports go to <report-dir>/<run-id>/ (conformance.json, summary.md, junit.xml, allure-results/, SHA256SUMS)
and <report-dir>/latest points at the newest.`,
  options: [
    ...options,
    { name: 'log-file', type: 'string', value: 'FILE', description: 'Also write every line of the run (results and diagnostics, not the live progress) to FILE.' },
    { name: 'print-env-example', type: 'boolean', description: 'Print a commented .env.example of every setting and exit.' },
  ],
  env: SETTINGS.filter((s) => s.secret).map((s) => ({ name: s.env, description: s.description, secret: true })),
  exitCodes: [...EXIT_CODE_HELP, { code: 130, meaning: 'a second SIGINT/SIGTERM: stopped at once, without writing a report' }],
  async run(args, entry) {
    if (args.values['print-env-example']) {
      process.stdout.write(renderEnvExample(invocation('run')));
      return 0;
    }
    const { ['print-env-example']: _, ['log-file']: logFile, ...values } = args.values;
    const cfg = loadRunConfig(values);
    // A bad baseline fails now, before a single request, not after every suite has run.
    if (cfg.baseline) (await import('../../reports/diff.js')).loadReport(cfg.baseline);
    // Live progress on stderr: not with --quiet, nor inside the project's own tests (vitest sets VITEST in what it
    // starts), whose assertions read this output.
    const progress = cfg.quiet || process.env['VITEST'] ? undefined : new LiveProgress(process.stderr);
    // Results (what ran, each suite's line, the verdict) on stdout, so `run > file` keeps them; diagnostics and
    // progress on stderr, as Unix tools do.
    const { log, result } = runOutput(progress, typeof logFile === 'string' ? logFile : undefined);
    // The run's interrupt: the first SIGINT/SIGTERM stops the checks (the runner says what it will still write, once
    // it can keep that word); a second one quits at once. Installed before anything is printed, and handed the
    // signals noted before it (bin/), so no moment of the command loses one.
    const interrupt = new AbortController();
    let signals = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      signals++;
      if (signals === 1) interrupt.abort(new Interrupted(sig));
      else process.exit(130);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    for (const sig of entry?.takeEarlySignals?.() ?? []) onSignal(sig);
    const target = cfg.target
      ? `${cfg.target.baseUrl} (${cfg.environment})`
      : `embedded reference sandbox${cfg.sandboxFaults.length ? ` with fault(s) ${cfg.sandboxFaults.join(', ')}` : ''}${cfg.specPath ? ` (a trial of ${cfg.specPath} and its binding)` : ''}`;
    // What runs and its seed go to stdout once the run has begun (its target up and preflighted): a run refused before
    // then (a fault name the sandbox does not know, a target that does not answer) leaves stdout empty, and no
    // "repeat this run" stands above a refusal.
    const header = [
      `fsapi-conformance ${SUITE_VERSION}: ${target}`,
      `seed ${cfg.seed}${cfg.seedGiven ? '' : ` (repeat this run with --seed ${cfg.seed})`}${cfg.shard ? `, shard ${cfg.shard.index}/${cfg.shard.count}` : ''}${cfg.strict ? ', strict' : ''}`,
    ];
    const begun = () => {
      for (const line of header.splice(0)) result(line);
    };
    log(describePacing(cfg.pacing, !cfg.target));
    try {
      // The embedded sandbox's thread starts before the runner loads, so the two load side by side.
      const { beginRun, endRun } = await import('../../runner/begin.js');
      const start = beginRun(cfg);
      // Loaded only for a real run: --help and configuration errors stay instant.
      const { runConformance } = await import('../../runner/run.js').catch(async (e: unknown) => {
        await endRun(start);
        throw e;
      });
      const { report, written, reportsMs } = await runConformance(cfg, log, interrupt.signal, start, progress, (line) => {
        begun();
        result(line);
      }, begun);
      result('');
      result(renderConsoleSummary(report, written.dir, reportsMs));
      return exitCodeOf(report);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};

function renderConsoleSummary(r: RunReport, dir: string, reportsMs: number): string {
  const c = r.counts.by_status;
  const lines = [
    // A release's document change first: it explains much of what follows.
    ...(r.baseline?.document ? documentChangeLines(r.baseline.document) : []),
    `verdict: ${r.verdict.toUpperCase()}${r.run.incomplete_reason ? ` (${r.run.incomplete_reason})` : ''}${trialNote(r) ? ` (${trialNote(r)})` : ''}`,
    ...(r.headline ? [r.headline] : []),
    `${statusTally(c)}  | ${plural(r.run.requests_sent, 'request')} in ${(r.run.duration_ms / 1000).toFixed(1)} s`,
  ];
  if (r.diagnostics?.length) {
    lines.push('', 'run diagnostics (read these first):');
    for (const d of r.diagnostics) lines.push(`  ! ${d.message}\n    fix: ${d.fix}`);
  }
  // Where the document itself contradicts a seed rule: said once, its checks grouped under it (they still count).
  const conflicts = r.document_conflicts ?? [];
  const grouped = groupedChecks(conflicts);
  if (conflicts.length) {
    lines.push('', 'the document contradicts the seed (each stated once; the checks that did what the document says are grouped here, and count in the verdict):');
    for (const x of conflicts) lines.push(`  ${describeConflict(x)}`);
  }
  const inGroups = (status: (s: string) => boolean) => r.checks.filter((x) => status(x.status) && grouped.has(x.id)).length;
  const bad = r.checks.filter((x) => (x.status === 'failed' || x.status === 'error') && !grouped.has(x.id));
  const badGrouped = inGroups((s) => s === 'failed' || s === 'error');
  if (bad.length || badGrouped) {
    lines.push('', `failures and errors${badGrouped ? ` (besides the ${badGrouped} grouped above)` : ''}:`);
    for (const x of bad.slice(0, MAX_LISTED)) lines.push(`  ${x.status === 'error' ? 'ERROR' : 'FAIL '} ${x.name}\n        ${x.message ?? ''}${x.defined_at ? `\n        defined at ${x.defined_at}` : ''}`);
    if (bad.length > MAX_LISTED) lines.push(`  ... and ${bad.length - MAX_LISTED} more (see summary.md)`);
    if (!bad.length) lines.push('  none');
  }
  const warn = r.checks.filter((x) => x.status === 'warning' && !grouped.has(x.id));
  const warnGrouped = inGroups((s) => s === 'warning');
  if (warn.length || warnGrouped) {
    lines.push('', `warnings (${warn.length + warnGrouped}${warnGrouped ? `, ${warnGrouped} of them grouped above` : ''}; --strict makes them fail):`);
    for (const x of warn.slice(0, 5)) lines.push(`  WARN  ${x.name}\n        ${x.message ?? ''}`);
    if (warn.length > 5) lines.push(`  ... and ${warn.length - 5} more (see summary.md)`);
  }
  if (r.baseline) {
    const b = r.baseline;
    lines.push('', `baseline ${b.baseline.run_id}: ${newlyFailingCounts(b.newly_failing)}, ${b.fixed.length} fixed, ${b.added.length} added, ${b.removed.length} removed`);
    const flaky = intermittentLine(b);
    if (flaky) lines.push(flaky);
    const drift = b.drift?.findings ?? [];
    if (drift.length) lines.push(`behaviour drift (${drift.length}):`, ...drift.slice(0, MAX_LISTED).map((f) => `  ${describeDrift(f)}`), ...(drift.length > MAX_LISTED ? [`  ... and ${drift.length - MAX_LISTED} more (see summary.md)`] : []));
  }
  const rel = relative(process.cwd(), dir) || dir;
  lines.push('', `reports: ${rel}/ (summary.md, conformance.json, junit.xml, allure-results/, SHA256SUMS; written in ${(reportsMs / 1000).toFixed(1)} s)`);
  return lines.join('\n');
}
