import { statusTally } from '../../reports/text.js';
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { cp, mkdir } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { settingDefault } from '../../config/variables.js';
import { UsageError } from '../../errors.js';
import { EXIT, EXIT_CODE_HELP, exitCodeOf } from '../../results/verdict.js';
import type { CommandSpec } from '../command.js';

// The run's own default report directory (FSAPI_REPORT_DIR), so a merged report lands beside the runs.
export const DEFAULT_REPORT_ROOT = settingDefault('FSAPI_REPORT_DIR');

/** The report directory of an input: the directory itself, or the one holding the conformance.json. */
function reportDirOf(input: string): string {
  try {
    return statSync(input).isDirectory() ? input : dirname(input);
  } catch {
    return dirname(input);
  }
}

/**
 * A folder that holds runs (a shard's --report-dir: shard1/<run-id>/ and shard1/latest) stands for its latest run;
 * the note says so. Anything else is taken as it is, and loadReport says what is wrong with it.
 */
export function shardInput(input: string): { path: string; note?: string } {
  const latest = join(input, 'latest');
  if (!existsSync(join(input, 'conformance.json')) && existsSync(join(latest, 'conformance.json'))) {
    const run = relative(process.cwd(), realpathSync(latest)) || latest;
    return { path: latest, note: `${input}: a folder of runs; merging its latest run, ${run}` };
  }
  return { path: input };
}

/** The copy of the document a shard kept in its report directory (`stem`.*), if any: the merged report keeps it too. */
function documentCopyOf(dir: string, stem: string): string | undefined {
  const copy = existsSync(dir) && statSync(dir).isDirectory() ? readdirSync(dir).find((f) => f.startsWith(`${stem}.`)) : undefined;
  return copy ? join(dir, copy) : undefined;
}

export const mergeCommand: CommandSpec = {
  name: 'merge',
  summary: 'merge the shard reports of one run (run --shard=i/n) into one report',
  usage: 'fsapi-conformance merge FILE_OR_DIR... [--out DIR] [--html] [--baseline FILE]',
  description: `
Each input is a shard's conformance.json or report directory, or the folder a shard wrote its runs in (its
--report-dir: the run its latest points at is taken, and merge says so); every shard of the run must be given once. The
merged report holds every check, with counts, gap report and verdict recomputed and run.merged_from naming the
shard runs. It is written to a new directory like a run's (conformance.json, summary.md, junit.xml, SHA256SUMS;
the shards' allure-results/ and the copy of the document are gathered there too), and <parent of DIR>/latest points
at it (merge says so).
Refused: shards of different runs (suite version, spec, requirements, target, seed, --strict or shard count
differ), a shard given twice or missing, a check present in two shards.`,
  positionals: { name: 'FILE_OR_DIR...', description: 'the shard reports: conformance.json files, report directories, or folders holding a shard\'s runs (their latest)', min: 1 },
  options: [
    { name: 'out', type: 'string', value: 'DIR', description: 'the new report directory; must not exist or be empty', default: `${DEFAULT_REPORT_ROOT}/<merged run id>` },
    { name: 'html', type: 'boolean', description: 'also build the Allure HTML report (needs the shards\' report directories)', default: 'false' },
    { name: 'baseline', type: 'string', value: 'FILE', description: 'compare the merged report with this baseline conformance.json (exit 4 on regression)', default: 'none' },
  ],
  exitCodes: EXIT_CODE_HELP.map((x) =>
    x.code === EXIT.usage
      ? { code: x.code, meaning: 'an input is not a shard report, or the shards are not one complete run (the message says which)' }
      : x.code === EXIT.incomplete
        ? { code: x.code, meaning: 'incomplete: a shard run was interrupted; the merged report holds what was learnt' }
        : x,
  ),
  async run(args) {
    const { ALLURE_RESULTS_DIR, loadReport, mergeReports, writeReports } = await import('../../reports/index.js');
    const resolved = args.positionals.map(shardInput);
    for (const r of resolved) if (r.note) console.error(r.note);
    const inputs = resolved.map((r) => r.path);
    const reports = inputs.map((p) => loadReport(p));
    const merged = mergeReports(reports, { names: inputs });
    const out = resolve(typeof args.values['out'] === 'string' ? args.values['out'] : join(DEFAULT_REPORT_ROOT, merged.run.id));
    if (existsSync(out) && (!statSync(out).isDirectory() || readdirSync(out).length > 0)) {
      throw new UsageError('the output directory already exists and is not empty', { file: out, fix: 'give a new directory with --out, or remove this one' });
    }
    const resultDirs = inputs.map((p) => join(reportDirOf(p), ALLURE_RESULTS_DIR)).filter((d) => existsSync(d) && statSync(d).isDirectory());
    const html = args.values['html'] === true;
    if (html && resultDirs.length < inputs.length) {
      throw new UsageError(`--html needs every shard's ${ALLURE_RESULTS_DIR}/: ${inputs.length - resultDirs.length} of ${inputs.length} inputs have none`, {
        fix: 'give the shards\' report directories (not copies of conformance.json alone), or leave out --html',
      });
    }
    await mkdir(out, { recursive: true });
    for (const d of resultDirs) {
      // Allure names its files by UUID, so the shards' results never collide.
      await cp(d, join(out, ALLURE_RESULTS_DIR), { recursive: true, force: false, errorOnExist: false });
    }
    const baseline = args.values['baseline'];
    // Loaded here, not with the CLI: `--help` stays light.
    const { DOCUMENT_COPY } = await import('../../regression/baseline-compare.js');
    const document = inputs.map((p) => documentCopyOf(reportDirOf(p), DOCUMENT_COPY)).find((d) => d !== undefined);
    const written = await writeReports(merged, {
      dir: out,
      reportRoot: dirname(out),
      html,
      ...(typeof baseline === 'string' ? { baselinePath: baseline } : {}),
      ...(document ? { documentPath: document } : {}),
      progress: (line) => console.error(line),
    });
    const s = written.report.counts.by_status;
    const code = exitCodeOf(written.report);
    console.log(
      `merged ${reports.length} shard reports (runs ${merged.run.merged_from!.join(', ')}) into ${out}\n` +
        `${join(dirname(out), 'latest')} now points at it\n` +
        `${statusTally(s)}\n` +
        `verdict: ${written.report.verdict}${written.regression ? ' (regression against the baseline)' : ''} (exit ${code})` +
        `${written.report.headline ? `\n${written.report.headline}` : ''}`,
    );
    return code;
  },
};
