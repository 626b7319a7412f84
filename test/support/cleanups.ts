import { afterEach } from 'vitest';

/** Something a test opened and must close: a server, a disk, a database. */
export type Cleanup = () => Promise<void> | void;

/**
 * A list a test file pushes its cleanups to: after each test they run, the last pushed first,
 * and one that fails does not keep the others from running.
 */
export function cleanupsAfterEach(): Cleanup[] {
  const cleanups: Cleanup[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await Promise.resolve(cleanup()).catch(() => undefined);
    }
  });
  return cleanups;
}
