import { chmodSync, existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  SqliteDialect,
  type SqliteDatabase,
  type KyselyPlugin,
  type LogEvent,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import type pg from 'pg';
import { hidePasswordInUrl } from '../config/index.ts';
import { reasonOf } from '../error-reason.ts';
import { createPrivateFile, createPrivateFolder, PRIVATE_FILE_MODE } from '../private-files.ts';
import type { Database } from './database.ts';
import { schemaPool, splitSearchPath } from './schema-pool.ts';

export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /** The URL with any password hidden, safe to print. */
  readonly displayUrl: string;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /**
   * PostgreSQL only: the schema to use (tests give each run its own), as a URL's
   * `options=-c search_path=<schema>` does; either way each transaction sets it itself.
   */
  searchPath?: string;
  /** PostgreSQL only: pool size. @defaultValue 10 */
  poolSize?: number;
  /** Base folder for relative SQLite paths. @defaultValue process.cwd() */
  cwd?: string;
  /**
   * SQLite only: how long a write waits for another process's write to finish before it fails
   * with SQLITE_BUSY. @defaultValue {@link DEFAULT_BUSY_TIMEOUT_MS}
   */
  busyTimeoutMs?: number;
}

/** The daemon's wait for another process's write: short, so a stuck job fails and is retried. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/**
 * The database named by a URL cannot be opened or created. `displayUrl` is safe to print;
 * callers name the variable the URL came from.
 */
export class DatabaseOpenError extends Error {
  override readonly name = 'DatabaseOpenError';
  constructor(
    readonly displayUrl: string,
    readonly reason: string,
  ) {
    super(`cannot open ${displayUrl}: ${reason}`);
  }
}

/**
 * Pages the WAL may hold before a commit copies them back into the database file (SQLite's
 * default is 1,000, about 4 MB). The copy runs inside the commit that crosses the mark, on the
 * one thread that also serves the receiver and the workers, and ends with a sync of the file; a
 * page written many times between two checkpoints is copied once. At 10,000 (about 40 MB of
 * WAL) the pipeline bench settled 8 % more items a second on an empty database and 18 % more on
 * a year of books (docs/performance.md, issue 22).
 */
export const WAL_AUTOCHECKPOINT_PAGES = 10_000;

/**
 * `PRAGMA synchronous` on every SQLite connection: FULL (2), so each commit syncs the WAL before
 * it returns and survives a power cut, not only a process crash. The receiver answers 2xx after
 * its inbox commit and a job's bookings are final once committed (issue 42, "durable before
 * 2xx"). NORMAL, which this replaced, syncs only at checkpoints; in SQLite's words
 * (https://www.sqlite.org/pragma.html#pragma_synchronous) "WAL mode is always consistent with
 * synchronous=NORMAL, but WAL mode does lose durability. A transaction committed in WAL mode
 * with synchronous=NORMAL might roll back following a power loss or system crash." Every
 * connection gets it, reads included: a read commits nothing, so it costs them nothing. The
 * cost on writes is measured in docs/performance.md ("Durable commits (issue 42.5)").
 */
export const SQLITE_SYNCHRONOUS = 'FULL';

/** Opens the SQLite file, or says in one line which path failed and why. */
function openSqlite(file: string, busyTimeoutMs: number): BetterSqlite3.Database {
  let sqlite: BetterSqlite3.Database | undefined;
  try {
    let created = false;
    if (file !== ':memory:') {
      createPrivateFolder(dirname(file));
      if (existsSync(file) && statSync(file).isDirectory()) {
        throw new Error('it is a folder, not a database file');
      }
      // Created 0600 before SQLite opens it: SQLite gives the -wal and -shm files the mode of
      // their database file, and they are set again below in case an older SQLite did not.
      created = createPrivateFile(file);
    }
    sqlite = new BetterSqlite3(file);
    sqlite.pragma('journal_mode = WAL');
    if (created) {
      for (const companion of [`${file}-wal`, `${file}-shm`]) {
        if (existsSync(companion)) chmodSync(companion, PRIVATE_FILE_MODE);
      }
    }
    sqlite.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma(`synchronous = ${SQLITE_SYNCHRONOUS}`);
    sqlite.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    sqlite.defaultSafeIntegers(true);
    return sqlite;
  } catch (error) {
    sqlite?.close();
    throw new DatabaseOpenError(`sqlite:${file}`, reasonOf(error));
  }
}

/** Raised instead of returning a 64-bit integer JavaScript cannot hold exactly. */
export class UnsafeIntegerError extends RangeError {
  override readonly name = 'UnsafeIntegerError';
  constructor(readonly text: string) {
    super(
      `the database returned ${text}, outside JavaScript's safe integer range (±${Number.MAX_SAFE_INTEGER}); refusing to round it`,
    );
  }
}

/** int8 → number, refusing anything that would lose precision. */
export function parseSafeInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new UnsafeIntegerError(text);
  return value;
}

/** numeric → number when it is a whole number (SUM of bigint is numeric); else left as text. */
export function parseNumeric(text: string): number | string {
  return /^-?\d+$/.test(text) ? parseSafeInt8(text) : text;
}

/**
 * better-sqlite3 would silently round integers past 2^53. It is told to return every integer
 * as a BigInt, and this plugin turns each into a number through the same guard as PostgreSQL.
 */
class SafeIntegerPlugin implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    for (const row of args.result.rows) {
      for (const key of Object.keys(row)) {
        const value = row[key];
        if (typeof value === 'bigint') row[key] = parseSafeInt8(value.toString());
      }
    }
    return args.result;
  }
}

const PG_INT8 = 20;
const PG_NUMERIC = 1700;

/**
 * `pg`, loaded on the first PostgreSQL URL: a SQLite process (the default, and every CLI read on
 * it) never pays its 15 MB of resident memory. `pg` is CommonJS, so `require` loads it in step.
 */
let pgModule: typeof pg | undefined;
function loadPg(): typeof pg {
  return (pgModule ??= createRequire(import.meta.url)('pg') as typeof pg);
}

function postgresTypes(): pg.CustomTypesConfig {
  const { types } = loadPg();
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
      if (oid === PG_INT8) return parseSafeInt8;
      if (oid === PG_NUMERIC) return parseNumeric;
      return format === 'binary'
        ? types.getTypeParser(oid, 'binary')
        : types.getTypeParser(oid, 'text');
    }) as pg.CustomTypesConfig['getTypeParser'],
  };
}

export function dialectOf(url: string): DialectName {
  if (url.startsWith('sqlite:')) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgres';
  throw new Error(
    `unsupported database URL scheme in "${url.split(':')[0]}:…": use sqlite:<file> or postgres://…`,
  );
}

/** How many prepared statements a SQLite connection keeps, newest used first. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * kysely's SQLite driver prepares every query again, and preparing was the largest single
 * cost of a sync job on SQLite in the pipeline profile (docs/performance.md). The same few
 * hundred statements run over and over, so keep them: a statement is reusable, and kysely
 * runs one query at a time per connection, so a cached statement is never busy twice.
 */
/** kysely's `rollback` when SQLite has no transaction left to roll back: nothing to do. */
const ROLLED_BACK = {
  reader: false,
  all: () => [],
  iterate: () => [][Symbol.iterator](),
  run: () => ({ changes: 0, lastInsertRowid: 0 }),
};

function withStatementCache(sqlite: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => {
      cache.clear();
      sqlite.close();
    },
    prepare(sqlText: string) {
      // Every paysync transaction writes: take the write lock at its start. A deferred one that
      // read first fails at its first write with SQLITE_BUSY at once, with no wait, whenever
      // another process (the daemon, a command) is writing (SQLite does not wait for a reader
      // to become a writer); an immediate one waits its turn for up to the busy timeout.
      const text = sqlText === 'begin' ? 'begin immediate' : sqlText;
      // SQLite has already rolled back a transaction whose commit failed (a full disk): kysely's
      // own rollback would then fail with "no transaction is active", and that error would
      // replace SQLITE_FULL in every log line and answer that quotes it.
      if (text === 'rollback' && !sqlite.inTransaction) return ROLLED_BACK;
      let statement = cache.get(text);
      if (statement) {
        cache.delete(text); // re-inserted below: most recently used last
      } else {
        statement = sqlite.prepare(text);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      cache.set(text, statement);
      return statement;
    },
  };
}

/** Receives the SQL and parameters of every query a watched database runs. */
export type QueryObserver = (query: {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}) => void;

const queryObservers = new Set<QueryObserver>();

/**
 * Hands every query of every database opened *after* this call to `observer`, until the returned
 * function is called (the query-plan test collects the statements the real code runs this way).
 * A database opened while no observer is registered gets no log hook at all, so production pays
 * nothing for it.
 */
export function observeQueries(observer: QueryObserver): () => void {
  queryObservers.add(observer);
  return () => queryObservers.delete(observer);
}

function observerLog(): { log?: (event: LogEvent) => void } {
  if (queryObservers.size === 0) return {};
  return {
    log: (event) => {
      for (const observer of queryObservers) observer(event.query);
    },
  };
}

/** The better-sqlite3 connection behind each SQLite Kysely instance this module made. */
const sqliteConnections = new WeakMap<object, BetterSqlite3.Database>();

/**
 * The better-sqlite3 connection behind `db`, for the rare reader that must skip Kysely's
 * per-row work (the accounting export's million-line reads); undefined on PostgreSQL and inside
 * a transaction. Use it only while holding Kysely's connection (`db.connection().execute(…)`),
 * so no other query of this process runs in between, and only for synchronous reads. Its
 * integers come back as BigInt unless the statement says `safeIntegers(false)`; check them
 * with `Number.isSafeInteger` (or {@link parseSafeInt8}) as the rest of the code does.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database type will do
export function sqliteConnectionOf(db: Kysely<any>): BetterSqlite3.Database | undefined {
  return db.isTransaction ? undefined : sqliteConnections.get(db);
}

/** A node-postgres pool for one server URL. */
function openPool(url: string, max: number): pg.Pool {
  const pool = new (loadPg().Pool)({ connectionString: url, max, types: postgresTypes() });
  // A client losing its connection (a terminated backend, a network cut) must not crash the
  // process. The pool listens only while a client is idle; one checked out between two queries
  // of a transaction emits 'error' on itself, unheard, which Node turns into a crash. With a
  // listener of its own, its next query fails, the job retries, and the pool drops the client.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * The only place a database connection is made. Throws {@link DatabaseOpenError} when the
 * SQLite file or its folder cannot be opened or created.
 */
export function createDatabase(url: string, options: DatabaseOptions = {}): DatabaseHandle {
  const dialect = dialectOf(url);
  if (dialect === 'sqlite') {
    const target = url.slice('sqlite:'.length);
    const file = target === ':memory:' ? target : resolve(options.cwd ?? process.cwd(), target);
    const sqlite = openSqlite(file, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
      plugins: [new SafeIntegerPlugin()],
      ...observerLog(),
    });
    sqliteConnections.set(db, sqlite);
    return { db, dialect, displayUrl: `sqlite:${file}`, close: () => db.destroy() };
  }
  const max = options.poolSize ?? 10;
  const target = options.searchPath
    ? { schema: options.searchPath, server: splitSearchPath(url)?.server ?? url }
    : splitSearchPath(url);
  // A schema's books share the process's pool for their server, each transaction naming the
  // schema (src/db/schema-pool.ts): what works through pgbouncer, and 50 tenants in one pool.
  const pool = target ? schemaPool(target, max, openPool) : openPool(url, max);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), ...observerLog() });
  const displayUrl = hidePasswordInUrl(url);
  return { db, dialect, displayUrl, close: () => db.destroy() };
}
