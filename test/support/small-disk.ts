import { execFileSync } from 'node:child_process';
import { closeSync, copyFileSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real file system of its own, small enough to fill: a tmpfs mounted for one test. */
export interface SmallDisk {
  /** Where it is mounted. */
  readonly dir: string;
  /** Writes a filler file until the disk answers ENOSPC: every write that needs a block fails. */
  fill(): void;
  /** Removes the filler: the disk takes writes again. */
  free(): void;
  /** Unmounts it and removes its folder. */
  remove(): void;
}

/**
 * Mounts a tmpfs of `bytes` (root only: mounting needs CAP_SYS_ADMIN); undefined where this
 * process may not mount, and the test that needs a full disk says it is skipped. A full disk is
 * made for real: SQLite gets ENOSPC from the kernel and answers SQLITE_FULL, as on a server.
 */
export function mountSmallDisk(bytes = 16 * 1024 * 1024): SmallDisk | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'paysync-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], {
      stdio: 'ignore',
    });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      try {
        // Big blocks first, then single pages, until nothing more fits.
        for (const size of [1024 * 1024, 4096, 512, 1]) {
          const block = Buffer.alloc(size, 1);
          for (;;) {
            try {
              writeSync(fd, block);
            } catch (error) {
              if ((error as { code?: string }).code === 'ENOSPC') break;
              throw error;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    remove() {
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Whether this process may mount a small disk (tried once, then unmounted). */
export function canMountSmallDisk(): boolean {
  const disk = mountSmallDisk(1024 * 1024);
  disk?.remove();
  return disk !== undefined;
}

/**
 * A migrated SQLite test database copied onto a small disk of its own, for a test that fills
 * the disk under a running paysync: its URL, and the disk (removed by `cleanups`). Closing the
 * database first checkpoints its WAL, so the copy holds every migration.
 */
export async function sqliteOnSmallDisk(
  database: { readonly url: string; close(): Promise<void> },
  cleanups: Array<() => Promise<void> | void>,
): Promise<{ url: string; disk: SmallDisk }> {
  const disk = mountSmallDisk()!;
  cleanups.push(() => disk.remove());
  await database.close();
  const file = join(disk.dir, 'paysync.db');
  copyFileSync(database.url.slice('sqlite:'.length), file);
  return { url: `sqlite:${file}`, disk };
}
