import { EXIT } from '../../results/verdict.js';
import type { CommandSpec } from '../command.js';
import { MARKDOWN_OPTION, writeMarkdownOption } from '../markdown-option.js';

export const specDiffCommand: CommandSpec = {
  name: 'spec-diff',
  summary: 'compare two OpenAPI documents: what changed, and which changes break clients',
  usage: 'fsapi-conformance spec-diff OLD NEW [--json] [--all] [--markdown FILE]',
  description: `
OLD and NEW are OpenAPI 3.0 or 3.1 documents (YAML or JSON). Their effective schemas are compared ($refs
followed with their siblings, allOf merged, oneOf/anyOf as the union of their alternatives), every change
classified breaking or not (api-smart-diff's classification, two calls turned round), and sorted by kind: removed
operations and responses, new required parameters and members, request alternatives removed, enum values
changed, type changes, removed response members, security changed, validation constraints changed, added
operations and responses, other changes. The values of one enum fold into one change. (To compare two runs, not two documents: fsapi-conformance diff.)`,
  positionals: { name: 'OLD NEW', description: 'the two documents: OpenAPI 3.0 or 3.1, YAML or JSON', min: 2, max: 2 },
  options: [
    { name: 'json', type: 'boolean', description: 'print the diff as JSON (the shape of `baseline.spec_diff` in conformance.json)', default: 'false' },
    { name: 'all', type: 'boolean', description: 'list every change (by default 50 of each class)', default: 'false' },
    MARKDOWN_OPTION,
  ],
  exitCodes: [
    { code: EXIT.conformant, meaning: 'no breaking change' },
    { code: EXIT.nonConformant, meaning: 'at least one breaking change' },
    { code: EXIT.usage, meaning: 'a document cannot be read or is not OpenAPI 3.0/3.1, or FILE cannot be written' },
    { code: EXIT.internal, meaning: 'internal error of the suite' },
  ],
  async run(args) {
    const [{ diffDocuments }, { renderSpecDiffMarkdown, renderSpecDiffText }] = await Promise.all([import('../../regression/spec-diff.js'), import('../../reports/regression-render.js')]);
    const [oldPath, newPath] = args.positionals as [string, string];
    const diff = diffDocuments(oldPath, newPath);
    if (args.values['json']) console.log(JSON.stringify(diff, null, 2));
    else console.log(renderSpecDiffText(diff, args.values['all'] ? { cap: Infinity } : {}));
    writeMarkdownOption(args.values['markdown'], () => renderSpecDiffMarkdown(diff));
    return diff.breaking ? EXIT.nonConformant : EXIT.conformant;
  },
};
