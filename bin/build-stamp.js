// Whether the compiled build is current: dist/.build-stamp newer than every .ts of src, sandbox, fixtures and
// suites. The bin decides by it whether to run dist/ or the sources; benchmarks and tests ask it too.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestSource(dir) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

export function buildIsCurrent(root) {
  const stamp = join(root, 'dist', '.build-stamp');
  if (!existsSync(stamp)) return false;
  const built = statSync(stamp).mtimeMs;
  return ['src', 'sandbox', 'fixtures', 'suites'].every((d) => newestSource(join(root, d)) <= built);
}
