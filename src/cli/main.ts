import { loadCatalogue } from '../catalogue/index.js';
import { isUsageError } from '../errors.js';

/** Runs the CLI and returns the exit code. Usage errors print one message; nothing prints a stack trace. */
export async function main(argv: string[]): Promise<number> {
  const [command = 'run'] = argv;
  try {
    if (command === 'run') {
      const cat = await loadCatalogue();
      console.log(
        `contract valid: ${cat.spec.operations.length} operations in 12 groups, ${cat.requirements.all.length} requirements.\n` +
          'The harness is not built yet: no target was tested and no verdict is given.',
      );
      return 0;
    }
    console.error(`unknown command: ${command}`);
    return 2;
  } catch (e) {
    if (isUsageError(e)) {
      console.error(`error: ${e.describe()}`);
      return 2;
    }
    console.error(`internal error: ${(e as Error).message}`);
    return 3;
  }
}
