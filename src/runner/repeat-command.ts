import { relative } from 'node:path';
import { ALL_SUITES, type RunConfig } from '../config/run-config.js';
import { invocation } from '../invocation.js';
import { numericDefault } from '../config/variables.js';
import type { RunReport } from '../results/model.js';

/** The same-looking defaults of the settings a repeat must carry when they differ (src/config/variables.ts). */
const DEFAULT_IDEMPOTENCY_PARALLEL = 8;
const DEFAULT_REPLAY_DELAY_MS = 2000;
const DEFAULT_EXPLORE = numericDefault('FSAPI_EXPLORE');
const DEFAULT_EXPLORE_TOTAL = numericDefault('FSAPI_EXPLORE_TOTAL');

const shellArg = (s: string) => (/^[\w./:@,=+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
const shown = (path: string) => shellArg(relative(process.cwd(), path) || path);

/**
 * The command that repeats this run (same seed, groups, faults, document, shard, strictness), in the words the user
 * ran it with (src/invocation.ts); and, for the embedded sandbox, the command that starts a sandbox with the same
 * faults and writes the settings a reproduction needs (`--env`). Secrets stay out: a remote target's key is read
 * from the environment, as in the run.
 */
export function repeatOf(cfg: RunConfig, run = invocation('run'), sandbox = invocation('sandbox')): NonNullable<RunReport['run']['repeat']> {
  const flags: string[] = [`--seed ${cfg.seed}`];
  const all = new Set<string>(ALL_SUITES);
  if (cfg.groups.length !== all.size || cfg.groups.some((g) => !all.has(g))) flags.push(`--groups ${cfg.groups.join(',')}`);
  for (const f of cfg.sandboxFaults) flags.push(`--sandbox-fault ${shellArg(f)}`);
  if (cfg.sandboxFixtures) flags.push(`--sandbox-fixtures ${shown(cfg.sandboxFixtures)}`);
  if (cfg.target) flags.push(`--base-url ${shellArg(cfg.target.baseUrl)}`, `--tenant-id ${shellArg(cfg.target.credentials.tenantId)}`);
  if (cfg.target?.caFile) flags.push(`--ca-file ${shown(cfg.target.caFile)}`);
  if (cfg.environment !== 'sandbox') flags.push(`--environment ${cfg.environment}`);
  if (cfg.specPath) flags.push(`--spec ${shown(cfg.specPath)}`);
  if (cfg.bindingPath) flags.push(`--binding ${shown(cfg.bindingPath)}`);
  if (cfg.specPath && !cfg.target) flags.push('--embedded-sandbox');
  if (cfg.shard) flags.push(`--shard ${cfg.shard.index}/${cfg.shard.count}`);
  if (cfg.strict) flags.push('--strict');
  if (cfg.allowLiveWrites) flags.push('--allow-live-writes');
  if (cfg.idempotencyParallel !== DEFAULT_IDEMPOTENCY_PARALLEL) flags.push(`--idempotency-parallel ${cfg.idempotencyParallel}`);
  if (cfg.replayDelayMs !== DEFAULT_REPLAY_DELAY_MS) flags.push(`--replay-delay-ms ${cfg.replayDelayMs}`);
  if (cfg.explore !== DEFAULT_EXPLORE) flags.push(`--explore ${cfg.explore}`);
  if (cfg.exploreTotal !== DEFAULT_EXPLORE_TOTAL) flags.push(`--explore-total ${cfg.exploreTotal}`);
  const sandboxFlags = [...cfg.sandboxFaults.map((f) => `--fault ${shellArg(f)}`), ...(cfg.sandboxFixtures ? [`--fixtures ${shown(cfg.sandboxFixtures)}`] : [])];
  return {
    command: `${run} ${flags.join(' ')}`,
    ...(cfg.target ? {} : { sandbox: `${sandbox}${sandboxFlags.length ? ` ${sandboxFlags.join(' ')}` : ''} --env > sandbox.env` }),
  };
}
