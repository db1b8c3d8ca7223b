import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import type { CommandSpec } from '../command.js';

export const DEFAULT_REPORT_DIR = 'reports/latest';

export const reportCommand: CommandSpec = {
  name: 'report',
  summary: 'build the HTML report (Allure) of a run and refresh its SHA256SUMS',
  usage: 'fsapi-conformance report [DIR]',
  description: `
Builds DIR/allure-report/index.html, one self-contained file (it opens from disk, needs no server and makes no
request), from DIR/allure-results, which the run wrote. Then rewrites DIR/SHA256SUMS so that it covers the HTML
too (check it with: cd DIR && sha256sum -c SHA256SUMS). Prints the path of the HTML. Nothing else in DIR changes.
\`npm run report\` runs this on reports/latest.`,
  positionals: { name: 'DIR', description: `a report directory written by \`run\` or \`merge\` (default: ${DEFAULT_REPORT_DIR})`, max: 1 },
  options: [],
  exitCodes: [
    { code: 0, meaning: 'the HTML report was built' },
    { code: 2, meaning: 'DIR is not a report directory (no valid conformance.json, or no allure-results/)' },
    { code: 3, meaning: 'internal error (Allure could not build the report)' },
  ],
  async run(args) {
    const [{ ALLURE_REPORT_DIR, buildAllureHtml, loadReport, writeChecksums }, { htmlReportName }] = await Promise.all([import('../../reports/index.js'), import('../../reports/text.js')]);
    const given = args.positionals[0] ?? DEFAULT_REPORT_DIR;
    let dir: string;
    try {
      dir = realpathSync(given);
    } catch {
      throw new UsageError(`no report directory at ${given}`, {
        fix: args.positionals[0] ? 'give a report directory such as reports/<run-id>' : 'run `fsapi-conformance run` first, or give a report directory',
      });
    }
    // A line per phase on stderr (the HTML's path, the result, on stdout).
    const progress = (line: string) => console.error(line);
    const report = loadReport(dir);
    progress(`report: read ${join(given, 'conformance.json')} (run ${report.run.id}, ${report.verdict})`);
    await buildAllureHtml(dir, { name: htmlReportName(report), progress });
    progress('report: rewriting SHA256SUMS to cover the HTML');
    await writeChecksums(dir);
    console.log(join(given, ALLURE_REPORT_DIR, 'index.html'));
    return 0;
  },
};
