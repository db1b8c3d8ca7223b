import { cp, mkdir, rename, rm, symlink } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Points reportRoot/latest at a run's report directory: a relative symbolic link, swapped in atomically (made
 * under a temporary name, then renamed over the old one). Where links cannot be made (Windows without developer
 * mode), a copy. Returns the path of `latest`.
 */
export async function refreshLatest(reportRoot: string, dir: string): Promise<string> {
  const latest = join(reportRoot, 'latest');
  const target = resolve(dir);
  if (resolve(latest) === target) return latest;
  await mkdir(reportRoot, { recursive: true });
  const link = relative(resolve(reportRoot), target) || '.';
  const tmp = join(reportRoot, `.latest-${process.pid}-${Date.now()}`);
  try {
    await symlink(link, tmp, 'dir');
    try {
      await rename(tmp, latest);
    } catch {
      // `latest` is a real directory (an earlier copy): rename cannot replace it.
      await rm(latest, { recursive: true, force: true });
      await rename(tmp, latest);
    }
    return latest;
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => {});
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'EACCES' && code !== 'ENOTSUP' && code !== 'EINVAL') throw e;
  }
  await rm(latest, { recursive: true, force: true });
  await mkdir(dirname(latest), { recursive: true });
  await cp(target, latest, { recursive: true });
  return latest;
}
