import type { CommandSpec } from '../command.js';
import { runCommand } from './run.js';

/** Every command of the CLI, in the order `--help` lists them. Each lives in its own module here. */
export const COMMANDS: CommandSpec[] = [runCommand];
