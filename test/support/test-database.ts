import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import {
  createDatabase,
  migrateToLatest,
  type DatabaseHandle,
  type DialectName,
} from '../../src/db/index.ts';

export interface TestDatabase extends DatabaseHandle {
  /** The URL a child process can use to reach the same database (sqlite file or pg). */
  readonly url: string;
  /** PostgreSQL schema for this test, or undefined on SQLite. */
  readonly schema: string | undefined;
  /** Closes the connection and deletes everything the test created. */
  cleanup(): Promise<void>;
}

/** The dialect the current vitest project runs on (`sqlite` unless the project says otherwise). */
export function testDialect(): DialectName {
  return process.env.PAYSYNC_TEST_DIALECT === 'postgres' ? 'postgres' : 'sqlite';
}

export function testPostgresUrl(): string {
  return process.env.PAYSYNC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}

/**
 * One migrated SQLite file per worker, made on first use: each migrated test database is a copy
 * of it, which costs a file copy instead of running every migration again. The migration tests
 * ask for `migrate: false` and run the real migrations themselves.
 */
let sqliteTemplate: Promise<string> | undefined;

function migratedSqliteTemplate(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paysync-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'paysync.db');
    const template = createDatabase(`sqlite:${file}`);
    try {
      await migrateToLatest(template.db);
    } finally {
      // Closing the only connection checkpoints the WAL into the file, so a copy is complete.
      await template.close();
    }
    return file;
  })();
  sqliteTemplate.catch(() => (sqliteTemplate = undefined));
  return sqliteTemplate;
}

/**
 * A database of the current dialect with nothing in it: a temp SQLite file, or a PostgreSQL
 * schema of its own. Migrated unless `migrate: false` (on SQLite, a copy of a file migrated
 * once per worker; on PostgreSQL, migrated in place).
 */
export async function freshDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const dialect = testDialect();
  let handle: DatabaseHandle;
  let url: string;
  let schema: string | undefined;
  let dropStorage: () => Promise<void>;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'paysync-test-'));
    const file = join(dir, 'paysync.db');
    if (options.migrate !== false) copyFileSync(await migratedSqliteTemplate(), file);
    url = `sqlite:${file}`;
    handle = createDatabase(url);
    dropStorage = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = createDatabase(testPostgresUrl(), { poolSize: 1 });
    await sql`create schema ${sql.id(schema)}`.execute(admin.db);
    await admin.close();
    const base = new URL(testPostgresUrl());
    base.searchParams.set('options', `-c search_path=${schema}`);
    url = base.toString();
    handle = createDatabase(testPostgresUrl(), { searchPath: schema, poolSize: 4 });
    const dropSchema = schema;
    dropStorage = async () => {
      const cleaner = createDatabase(testPostgresUrl(), { poolSize: 1 });
      await sql`drop schema if exists ${sql.id(dropSchema)} cascade`.execute(cleaner.db);
      await cleaner.close();
    };
  }
  if (options.migrate !== false && dialect === 'postgres') {
    try {
      await migrateToLatest(handle.db);
    } catch (error) {
      await handle.close().catch(() => undefined);
      await dropStorage();
      throw error;
    }
  }
  return {
    ...handle,
    url,
    schema,
    async cleanup() {
      await handle.close().catch(() => undefined);
      await dropStorage();
    },
  };
}
