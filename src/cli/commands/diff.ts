import { EXIT } from '../../results/verdict.js';
import type { CommandSpec } from '../command.js';
import { MARKDOWN_OPTION, writeMarkdownOption } from '../markdown-option.js';

export const diffCommand: CommandSpec = {
  name: 'diff',
  summary: 'compare a run with a baseline run, check by check',
  usage: 'fsapi-conformance diff BASELINE CURRENT [--json] [--markdown FILE]',
  description: `
BASELINE and CURRENT are conformance.json files or report directories. Checks are matched on their id.
  newly failing  failed, error or warning now; passed, skipped or absent in the baseline
  fixed          passed now; failed, error or warning in the baseline
  added/removed  only in CURRENT / only in BASELINE (a new check that fails is also newly failing)
A regression is a check that PASSED in the baseline and now errors, or now fails at a level that blocks the
verdict (any level but INFO). passed -> warning is listed but is not a regression; neither is a check that was
absent or skipped in the baseline.`,
  positionals: { name: 'BASELINE CURRENT', description: 'the two reports: conformance.json files or report directories', min: 2, max: 2 },
  options: [
    { name: 'json', type: 'boolean', description: 'print the diff as JSON (the shape of `baseline` in conformance.json) instead of text', default: 'false' },
    MARKDOWN_OPTION,
  ],
  exitCodes: [
    { code: EXIT.conformant, meaning: 'no regression' },
    { code: EXIT.usage, meaning: 'an input is not a conformance.json this suite can read, or FILE cannot be written' },
    { code: EXIT.internal, meaning: 'internal error of the suite' },
    { code: EXIT.regression, meaning: 'regression: a check that passed in BASELINE now fails at a blocking level or errors' },
  ],
  async run(args) {
    const { diffReports, loadReport, renderDiffMarkdown, renderDiffText } = await import('../../reports/index.js');
    const [basePath, currentPath] = args.positionals as [string, string];
    const baseline = loadReport(basePath);
    const current = loadReport(currentPath);
    const diff = diffReports(baseline, current, basePath);
    if (args.values['json']) console.log(JSON.stringify(diff, null, 2));
    else {
      console.log(renderDiffText(diff, current, currentPath));
      const notes: string[] = [];
      if (baseline.spec.sha256 !== current.spec.sha256) notes.push('the two runs used different specs');
      const target = (r: typeof current) => (r.target.embedded ? 'embedded' : r.target.base_url);
      if (target(baseline) !== target(current)) notes.push('the two runs tested different targets');
      if (baseline.suite.version !== current.suite.version) notes.push(`suite versions differ (${baseline.suite.version} vs ${current.suite.version})`);
      if (notes.length) console.log(`note: ${notes.join('; ')}`);
    }
    writeMarkdownOption(args.values['markdown'], () => renderDiffMarkdown(diff));
    return diff.regression ? EXIT.regression : EXIT.conformant;
  },
};
