import type { CommandSpec } from '../command.js';
import { runCommand } from './run.js';
import { reportCommand } from './report.js';
import { bindCommand } from './bind.js';
import { diffCommand } from './diff.js';
import { specDiffCommand } from './spec-diff.js';
import { mergeCommand } from './merge.js';
import { requirementsCommand } from './requirements.js';
import { sandboxCommand } from './sandbox.js';
import { selfcheckCommand } from './selfcheck.js';
import { keygenCommand } from './keygen.js';
import { certifyCommand } from './certify.js';
import { verifyCommand } from './verify.js';

/** Every command of the CLI, in the order `--help` lists them. Each lives in its own module here. */
export const COMMANDS: CommandSpec[] = [runCommand, bindCommand, reportCommand, diffCommand, specDiffCommand, mergeCommand, requirementsCommand, sandboxCommand, selfcheckCommand, keygenCommand, certifyCommand, verifyCommand];
