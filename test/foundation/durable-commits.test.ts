import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/index.ts';
import { openMigratedDatabase } from '../../src/daemon/index.ts';
import { createDatabase, migrateToLatest, type DatabaseHandle } from '../../src/db/index.ts';

/**
 * Issue 42.5, durable before 2xx: on SQLite in WAL mode only `synchronous = FULL` syncs the WAL
 * at every commit; under NORMAL a commit already answered 2xx (an inbox row) or a booking may
 * roll back after a power cut (https://www.sqlite.org/pragma.html#pragma_synchronous). Each
 * connection is opened as its door opens it: the daemon's (its workers', and on SQLite its
 * receiver's too), the receiver's own pool (PostgreSQL gives it one; the options are the same
 * on SQLite), and a plain one, as the CLI's (`paysync adjust` books).
 */
const SYNCHRONOUS_FULL = 2;

let dir: string;
let config: Config;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paysync-durable-'));
  const url = `sqlite:${join(dir, 'paysync.db')}`;
  const migration = createDatabase(url);
  try {
    await migrateToLatest(migration.db);
  } finally {
    await migration.close();
  }
  config = loadConfig({ PAYSYNC_DATABASE_URL: url });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function durability(handle: DatabaseHandle) {
  const synchronous = await sql<{ synchronous: number }>`pragma synchronous`.execute(handle.db);
  const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(handle.db);
  return {
    synchronous: Number(synchronous.rows[0]?.synchronous),
    journalMode: mode.rows[0]?.journal_mode,
  };
}

describe('every SQLite connection that commits before a 2xx or books runs WAL with synchronous = FULL', () => {
  it.each([
    {
      door: "the daemon's (workers, and the receiver on SQLite)",
      open: () => openMigratedDatabase(config, { poolSize: config.processing.concurrency * 2 + 4 }),
    },
    { door: "the receiver's own pool", open: () => openMigratedDatabase(config, { poolSize: 5 }) },
    // The CLI's (`paysync adjust` books) opens it with createDatabase and no options.
    { door: "any other (the CLI's)", open: async () => createDatabase(config.databaseUrl) },
  ])('$door', async ({ open }) => {
    const handle = await open();
    try {
      expect(handle.dialect).toBe('sqlite');
      expect(await durability(handle)).toEqual({
        synchronous: SYNCHRONOUS_FULL,
        journalMode: 'wal',
      });
    } finally {
      await handle.close();
    }
  });
});
