import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Books, exports and receipts name customers and amounts: the files paysync creates for them
 * are readable by their owner alone, and so are the folders it creates for them. The modes are
 * set with chmod after creation, so the process umask neither widens nor narrows them.
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_FOLDER_MODE = 0o700;

/**
 * Creates `folder` and its missing parents, each 0700; folders that already exist are left as
 * they are (a shared parent such as /var/lib is not paysync's to change). Each level is tried
 * once and its failure reported: Node's recursive mkdir loops for ever where mkdir answers
 * ENOENT under a parent that exists (`/proc/self/nope`).
 */
export function createPrivateFolder(folder: string): void {
  const missing: string[] = [];
  let current = folder;
  while (!existsSync(current)) {
    missing.unshift(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  if (existsSync(current) && !statSync(current).isDirectory()) {
    throw new Error(`${current} is a file, not a folder`);
  }
  for (const level of missing) {
    try {
      mkdirSync(level, { mode: PRIVATE_FOLDER_MODE });
    } catch (error) {
      if ((error as { code?: string }).code === 'EEXIST' && statSync(level).isDirectory()) continue;
      throw new Error(`cannot create the folder ${level} (${(error as Error).message})`, {
        cause: error,
      });
    }
    chmodSync(level, PRIVATE_FOLDER_MODE);
  }
}

/**
 * Creates `file` empty with mode 0600 when it does not exist yet, so that whatever opens it
 * next (SQLite, a write stream) finds it private; true when this call created it. An existing
 * file keeps its mode: the operator may have chosen one.
 */
export function createPrivateFile(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as { code?: string }).code === 'EEXIST') return false;
    throw error;
  }
  closeSync(fd);
  chmodSync(file, PRIVATE_FILE_MODE);
  return true;
}

/** Sets a file paysync wrote (a temporary export before its rename) to 0600. */
export function makePrivate(file: string): void {
  chmodSync(file, PRIVATE_FILE_MODE);
}
