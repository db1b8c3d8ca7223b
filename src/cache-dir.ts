import { lstatSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A cache folder in the temporary directory that only this user can write: `<tmp>/<name>-<uid>`, made with mode
 * 0700. The temporary directory is shared on a multi-user machine, and what a cache holds is trusted when read (a
 * parsed spec, say), so a folder that another user owns or could write to, or a symbolic link in its place, is
 * not used: the answer is undefined, and the caller does without a cache. (Where there are no user ids, on
 * Windows, the temporary directory is the user's own.)
 */
export function privateCacheDir(name: string): string | undefined {
  const uid = process.getuid?.();
  const dir = join(tmpdir(), uid === undefined ? name : `${name}-${uid}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory()) return undefined;
    if (uid !== undefined && (st.uid !== uid || (st.mode & 0o022) !== 0)) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}
