import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
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
 * PostgreSQL has no schema copy: each worker migrates one template schema once, takes it as SQL
 * with `pg_dump` (tables, indexes, functions, triggers and the migration bookkeeping rows) and
 * drops it; a migrated test schema is that SQL replayed under the test's own schema name, in one
 * round trip. Without `pg_dump` (or if it fails) each test schema is migrated in place.
 */
let postgresTemplate: Promise<string | undefined> | undefined;
const SCHEMA_PLACEHOLDER = '__paysync_test_schema__';

function migratedPostgresTemplate(): Promise<string | undefined> {
  postgresTemplate ??= (async () => {
    const schema = `tpl_${randomBytes(6).toString('hex')}`;
    const admin = createDatabase(testPostgresUrl(), { poolSize: 1 });
    try {
      await sql`create schema ${sql.id(schema)}`.execute(admin.db);
      const template = createDatabase(testPostgresUrl(), { searchPath: schema, poolSize: 1 });
      try {
        await migrateToLatest(template.db);
      } finally {
        await template.close();
      }
      const { stdout } = await promisify(execFile)(
        'pg_dump',
        [
          `--dbname=${testPostgresUrl()}`,
          `--schema=${schema}`,
          '--no-owner',
          '--no-privileges',
          '--inserts',
        ],
        { maxBuffer: 64 * 1024 * 1024 },
      );
      return (
        stdout
          .split('\n')
          // psql meta-commands (\restrict) are not SQL.
          .filter((line) => !line.startsWith('\\'))
          .join('\n')
          // The schema's name is random, so a plain replace finds only it.
          .replaceAll(schema, SCHEMA_PLACEHOLDER)
      );
    } catch {
      return undefined;
    } finally {
      await sql`drop schema if exists ${sql.id(schema)} cascade`
        .execute(admin.db)
        .catch(() => undefined);
      await admin.close();
    }
  })();
  return postgresTemplate;
}

/**
 * A database of the current dialect with nothing in it: a temp SQLite file, or a PostgreSQL
 * schema of its own. Migrated unless `migrate: false`: a copy of a file migrated once per worker
 * on SQLite, the replayed template schema on PostgreSQL.
 */
export async function freshDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const dialect = testDialect();
  let handle: DatabaseHandle;
  let url: string;
  let schema: string | undefined;
  let dropStorage: () => Promise<void>;
  let migrated = false;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'paysync-test-'));
    const file = join(dir, 'paysync.db');
    if (options.migrate !== false) copyFileSync(await migratedSqliteTemplate(), file);
    url = `sqlite:${file}`;
    handle = createDatabase(url);
    dropStorage = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    schema = `t_${randomBytes(6).toString('hex')}`;
    const template = options.migrate === false ? undefined : await migratedPostgresTemplate();
    const admin = createDatabase(testPostgresUrl(), { poolSize: 1 });
    try {
      if (template === undefined) {
        await sql`create schema ${sql.id(schema)}`.execute(admin.db);
      } else {
        // One simple query of many statements (no parameters), the template's `create schema` first.
        await sql.raw(template.replaceAll(SCHEMA_PLACEHOLDER, schema)).execute(admin.db);
        migrated = true;
      }
    } finally {
      await admin.close();
    }
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
  if (options.migrate !== false) {
    try {
      if (dialect === 'postgres' && !migrated) await migrateToLatest(handle.db);
      // Use the handle once, as migrating through it did: kysely's destroy() does nothing to a
      // handle that never ran a query, and tests close it to see the database go away.
      else await sql`select 1`.execute(handle.db);
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
