import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  SqliteDialect,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import pg from 'pg';
import { hidePasswordInUrl } from '../config.ts';
import type { Database } from './database.ts';

export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /** The URL with any password hidden, safe to print. */
  readonly displayUrl: string;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL only: schema to use (tests give each run its own). */
  searchPath?: string;
  /** PostgreSQL only: pool size. @defaultValue 10 */
  poolSize?: number;
  /** Base folder for relative SQLite paths. @defaultValue process.cwd() */
  cwd?: string;
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

function postgresTypes(): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
      if (oid === PG_INT8) return parseSafeInt8;
      if (oid === PG_NUMERIC) return parseNumeric;
      return format === 'binary'
        ? pg.types.getTypeParser(oid, 'binary')
        : pg.types.getTypeParser(oid, 'text');
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

/** The only place a database connection is made. */
export function createDatabase(url: string, options: DatabaseOptions = {}): DatabaseHandle {
  const dialect = dialectOf(url);
  if (dialect === 'sqlite') {
    const target = url.slice('sqlite:'.length);
    const file = target === ':memory:' ? target : resolve(options.cwd ?? process.cwd(), target);
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const sqlite = new BetterSqlite3(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.defaultSafeIntegers(true);
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: sqlite }),
      plugins: [new SafeIntegerPlugin()],
    });
    return { db, dialect, displayUrl: `sqlite:${file}`, close: () => db.destroy() };
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    types: postgresTypes(),
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const displayUrl = hidePasswordInUrl(url);
  return { db, dialect, displayUrl, close: () => db.destroy() };
}
