import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, migrateToLatest, type DatabaseHandle } from '../../src/db/index.ts';
import { runDailyExport, writeExportFile } from '../../src/exports/index.ts';
import { archiveReceipt } from '../../src/receipts/index.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
const WINDOW = { from: '2026-11-20T00:00:00.000Z', to: '2026-11-21T00:00:00.000Z' };

let root: string;
let handle: DatabaseHandle;
let databaseFile: string;
let umask: number;

// A umask of 0 would leave every file paysync creates 0666 and every folder 0777 unless paysync
// sets the modes itself; the commands run in this process (runCliInProcess) under it.
beforeAll(async () => {
  umask = process.umask(0);
  root = mkdtempSync(join(tmpdir(), 'paysync-modes-'));
  databaseFile = join(root, 'data', 'books', 'paysync.db');
  handle = createDatabase(`sqlite:${databaseFile}`);
  await migrateToLatest(handle.db);
});
afterAll(async () => {
  await handle?.close();
  process.umask(umask);
});

describe('issue 38.8: the books at rest are readable by their owner alone, whatever the umask', () => {
  it('the SQLite database, its -wal and -shm are 0600, the folders made for them 0700', async () => {
    await sql`select count(*) from journals`.execute(handle.db);
    expect(mode(databaseFile)).toBe('600');
    expect(mode(`${databaseFile}-wal`)).toBe('600');
    expect(mode(`${databaseFile}-shm`)).toBe('600');
    expect(mode(join(root, 'data', 'books'))).toBe('700');
    expect(mode(join(root, 'data'))).toBe('700');
  });

  it('an export file is 0600 and the folders made for it 0700', async () => {
    const file = join(root, 'exports', '2026', 'x.csv');
    await writeExportFile(
      { db: handle.db, format: 'csv', window: WINDOW, environment: 'sandbox', timeZone: 'UTC' },
      file,
    );
    expect(mode(file)).toBe('600');
    expect(mode(join(root, 'exports', '2026'))).toBe('700');
    expect(mode(join(root, 'exports'))).toBe('700');
  });

  it('the daily folder: files and manifest 0600, folders 0700', async () => {
    const dir = join(root, 'daily');
    await runDailyExport({
      db: handle.db,
      environment: 'sandbox',
      timeZone: 'UTC',
      formats: ['csv', 'jsonl'],
      dir,
      day: '2026-11-20',
      now: new Date('2026-11-21T02:00:00.000Z'),
    });
    for (const name of ['paysync-2026-11-20.csv', 'paysync-2026-11-20.jsonl', 'manifest.json']) {
      expect(mode(join(dir, '2026', '11', name)), name).toBe('600');
    }
    for (const folder of [dir, join(dir, '2026'), join(dir, '2026', '11')]) {
      expect(mode(folder), folder).toBe('700');
    }
  });

  it('paysync export --out writes a 0600 file', async () => {
    const out = join(root, 'cli-export.csv');
    // In this process (issue 39), under the same umask; other tests spawn export and migrate.
    const result = await runCliInProcess(
      ['export', '--from', '2026-11-20', '--to', '2026-11-21', '--format', 'csv', '--out', out],
      { env: { PAYSYNC_DATABASE_URL: `sqlite:${databaseFile}`, PAYSYNC_LOG_LEVEL: 'silent' } },
    );
    expect(result.stderr).toMatch(/0 lines/);
    expect(mode(out)).toBe('600');
  });

  it('paysync migrate creates a new database 0600 in a 0700 folder', async () => {
    const file = join(root, 'fresh', 'books.db');
    const result = await runCliInProcess(['migrate'], {
      env: { PAYSYNC_DATABASE_URL: `sqlite:${file}`, PAYSYNC_LOG_LEVEL: 'silent' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(mode(file)).toBe('600');
    expect(mode(join(root, 'fresh'))).toBe('700');
  });

  it('a receipt is 0600 and its folder 0700', async () => {
    const dir = join(root, 'receipts');
    const archived = await archiveReceipt(handle.db, dir, {
      resourceKind: 'transfer',
      resourceId: 'tr_modes',
      html: '<html><body>receipt</body></html>',
      fetchedAt: '2026-11-20T10:00:00.000Z',
    });
    expect(mode(archived.path)).toBe('600');
    expect(mode(dir)).toBe('700');
  });
});
