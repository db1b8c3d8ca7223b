/**
 * Where a run's settings come from and how one is read: a flag before the environment before `.env`, secrets only
 * from the environment or `.env`, and a malformed value refused naming where it came from (`--seed` or FSAPI_SEED).
 */
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { nearest } from '../nearest.js';
import { readDotenv } from './dotenv-file.js';
import { KNOWN_ENV, numericDefault, SETTINGS } from './variables.js';

export type Flags = Record<string, string | boolean | string[] | undefined>;

export interface SettingReader {
  /** A setting's value (flag, then environment), trimmed; undefined when unset or blank. */
  raw(envName: string): string | undefined;
  /** How the user gave it: the flag when one was given, else the variable's name. */
  where(envName: string): string;
  bool(envName: string): boolean;
  int(envName: string, min: number, max: number, dflt?: number): number;
  /** A ratio above 1 (how many times slower than the baseline counts as drift). */
  ratio(envName: string, dflt: number): number;
  /** A secret, from the environment or `.env` only (never a flag); undefined when unset or blank. */
  secret(envName: string): string | undefined;
}

/**
 * The environment a run reads: `.env` in `cwd` under the process environment. A misspelt FSAPI_ variable is a
 * setting silently ignored, so it is refused, naming its nearest known spelling.
 */
export function runEnvironment(cwd: string, processEnv: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const fileEnv = readDotenv(resolve(cwd, '.env'));
  const env: Record<string, string | undefined> = { ...fileEnv, ...processEnv };
  for (const name of Object.keys(env)) {
    if (name.startsWith('FSAPI_') && !KNOWN_ENV.has(name)) {
      const near = nearest(name, [...KNOWN_ENV]);
      throw new UsageError(`unknown setting ${name}${name in fileEnv ? ' (in .env)' : ''}${near ? `; did you mean ${near}?` : ''}`, {
        fix: 'use one of the variables listed by `fsapi-conformance run --help`, or remove it',
      });
    }
  }
  return env;
}

export function settingReader(flags: Flags, env: Record<string, string | undefined>): SettingReader {
  const raw = (envName: string): string | undefined => {
    const s = SETTINGS.find((x) => x.env === envName)!;
    const flag = s.flag ? flags[s.flag] : undefined;
    if (Array.isArray(flag)) return flag.length ? flag.join(',') : undefined;
    if (typeof flag === 'boolean') return flag ? 'true' : undefined;
    if (typeof flag === 'string') return flag;
    const v = env[envName];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const where = (envName: string): string => {
    const s = SETTINGS.find((x) => x.env === envName)!;
    return s.flag && flags[s.flag] !== undefined ? `--${s.flag}` : envName;
  };
  return {
    raw,
    where,
    bool(envName) {
      const v = raw(envName);
      if (v === undefined) return false;
      if (/^(1|true|yes|on)$/i.test(v)) return true;
      if (/^(0|false|no|off)$/i.test(v)) return false;
      throw new UsageError(`${where(envName)} must be true or false, not "${v}"`, { fix: `set ${envName}=true or false` });
    },
    int(envName, min, max, dflt = numericDefault(envName)) {
      const v = raw(envName);
      if (v === undefined) return dflt;
      if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
        throw new UsageError(`${where(envName)} must be a whole number from ${min} to ${max}, not "${v}"`, { fix: `set ${envName} to a number in that range` });
      }
      return Number(v);
    },
    ratio(envName, dflt) {
      const v = raw(envName);
      if (v === undefined) return dflt;
      if (!/^\d+(\.\d+)?$/.test(v) || Number(v) <= 1 || Number(v) > 1000) {
        throw new UsageError(`${where(envName)} must be a ratio above 1 (e.g. 1.5 or 2), not "${v}"`, { fix: `set ${envName} to how many times slower than the baseline counts as drift` });
      }
      return Number(v);
    },
    secret: (envName) => env[envName]?.trim() || undefined,
  };
}
