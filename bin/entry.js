// Which code `paysync` runs: the compiled dist/ when it is at least as new as every file under
// src/, jobs/ and migrations/ (and PAYSYNC_RUN_SOURCES is not 1), the TypeScript sources
// through tsx otherwise. So an edited source is never shadowed by a stale build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const SOURCE_DIRS = ['src', 'jobs', 'migrations'];

/** The newest modification time (ms) of any file below `dir`; 0 when there is none. */
function newestBelow(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const time = entry.isDirectory() ? newestBelow(path) : statSync(path).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
}

/** `'dist'` or `'sources'` for the project folder `root`. */
export function chooseEntry(root, env = process.env) {
  if (env.PAYSYNC_RUN_SOURCES === '1') return 'sources';
  const stamp = join(root, 'dist', '.build-stamp');
  if (!existsSync(stamp) || !existsSync(join(root, 'dist', 'src', 'cli', 'main.js'))) {
    return 'sources';
  }
  const built = statSync(stamp).mtimeMs;
  for (const dir of SOURCE_DIRS) {
    const path = join(root, dir);
    if (existsSync(path) && newestBelow(path) > built) return 'sources';
  }
  return 'dist';
}
