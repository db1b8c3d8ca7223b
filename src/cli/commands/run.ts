import { loadCatalogue } from '../../catalogue/index.js';
import type { CommandSpec } from '../command.js';

export const runCommand: CommandSpec = {
  name: 'run',
  summary: 'run the conformance suites against a target (today: validates the contract only)',
  usage: 'fsapi-conformance run',
  options: [],
  exitCodes: [
    { code: 0, meaning: 'the contract is valid' },
    { code: 2, meaning: 'the contract files are invalid' },
  ],
  async run() {
    const cat = await loadCatalogue();
    console.log(
      `contract valid: ${cat.spec.operations.length} operations in 12 groups, ${cat.requirements.all.length} requirements.\n` +
        'The harness is not built yet: no target was tested and no verdict is given.',
    );
    return 0;
  },
};
