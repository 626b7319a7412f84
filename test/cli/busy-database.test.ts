import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase, migrateToLatest } from '../../src/db/index.ts';
import { runCli } from '../support/run-cli.ts';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/**
 * A command that writes while the daemon is writing (SQLite) waits its turn: it once failed
 * "SQLITE_BUSY: database is locked" after the daemon's 5 s, as `paysync expect import` did in
 * the README's getting-started under a loaded CI machine.
 */
describe('a command and a busy daemon on one SQLite file', () => {
  it('a write waits for another process’s write to finish, past 5 s, and then succeeds', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'paysync-busy-'));
    folders.push(folder);
    const file = join(folder, 'books.sqlite');
    const handle = createDatabase(`sqlite:${file}`);
    await migrateToLatest(handle.db);
    await handle.close();

    // Another process's long write (the daemon's), holding the write lock for 7 s.
    const daemon = new BetterSqlite3(file);
    daemon.exec('begin immediate');
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        daemon.exec('commit');
        resolve();
      }, 7_000),
    );
    const started = Date.now();
    const added = await runCli(
      'expect add --id pay-busy --direction out --currency XOF --amount 50000 --from 2030-01-10 --to 2030-01-11'.split(
        ' ',
      ),
      {
        env: {
          PAYSYNC_DATABASE_URL: `sqlite:${file}`,
          PAYSYNC_UPSTREAM_URL: 'http://127.0.0.1:9',
          PAYSYNC_API_KEY: 'sk_test_busy',
          PAYSYNC_MERCHANT_ID: 'mch_busy',
          PAYSYNC_LOG_LEVEL: 'silent',
        },
        timeoutMs: 60_000,
      },
    );
    await released;
    daemon.close();
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('expect add: created pay-busy');
    expect(Date.now() - started).toBeGreaterThanOrEqual(6_500);
  }, 60_000);
});
