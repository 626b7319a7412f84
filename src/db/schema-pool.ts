import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/*
 * How a set of books on PostgreSQL finds its schema (a tenant's `postgres_schema`, a test's own
 * schema), in a way a connection pooler cannot undo (issue 42, items 3 and 4).
 *
 * - Each transaction names its schema itself: `begin; set local search_path to "<schema>"` in one
 *   round trip, and a statement outside a transaction runs inside one of its own. A
 *   `search_path` startup parameter (`options=-c search_path=…`) is refused by pgbouncer
 *   (`08P01: unsupported startup parameter: options`), and a session-level `set` would leak to
 *   whichever client pgbouncer's transaction pooling hands that server connection next, mixing
 *   two tenants' books. `set local` lasts exactly one transaction, in session and transaction
 *   pooling alike, and on a direct connection.
 * - So a server connection carries no schema between transactions, and the sets of books of one
 *   process on one server share one pool of connections: 50 tenants hold what one busy tenant
 *   holds, not 50 pools.
 */

/** A PostgreSQL URL that names its schema with `options=-c search_path=<schema>`. */
export interface SchemaUrl {
  readonly schema: string;
  /** The URL without the schema: the server and database, with any other `options` kept. */
  readonly server: string;
}

const SEARCH_PATH_OPTION = /(?:^|\s)-c\s*search_path=([a-z_][a-z0-9_]*)/;

/**
 * A PostgreSQL URL that puts a schema first with `options=-c search_path=<schema>`, split into
 * that schema and the server's URL without it; undefined for SQLite or a URL without one.
 */
export function splitSearchPath(url: string): SchemaUrl | undefined {
  if (!/^postgres(ql)?:\/\//.test(url) || !URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  const options = parsed.searchParams.get('options') ?? '';
  const schema = SEARCH_PATH_OPTION.exec(options)?.[1];
  if (!schema) return undefined;
  // Other settings of `options` (`-c statement_timeout=…`) stay the server's to apply.
  const rest = options.replace(SEARCH_PATH_OPTION, ' ').trim();
  if (rest) parsed.searchParams.set('options', rest);
  else parsed.searchParams.delete('options');
  return { schema, server: parsed.toString() };
}

/** Statements that open a transaction, as kysely sends them (`begin`, `start transaction …`). */
const OPENS = /^\s*(begin|start\s+transaction)\b/i;
/** Statements that end one; `rollback to <savepoint>` does not. */
const ENDS = /^\s*(commit|end|abort|rollback)\s*;?\s*$/i;

interface Shared {
  readonly pool: pg.Pool;
  users: number;
}

/** One pool per server URL and size, for every set of books of this process on that server. */
const sharedPools = new Map<string, Shared>();

/**
 * The pool for one schema's books: connections borrowed from the process's pool for `server`
 * and `max` (made by `makePool` for its first user; each purpose asks its own size: the
 * workers' pool, the receiver's, a command's one connection), each transaction opened with
 * `set local search_path`. `end()` gives the pool back; the last user ends it.
 */
export function schemaPool(
  target: SchemaUrl,
  max: number,
  makePool: (server: string, max: number) => pg.Pool,
): PostgresPool {
  if (!/^[a-z_][a-z0-9_]*$/.test(target.schema)) {
    throw new Error(`schema "${target.schema}": use lower-case letters, digits and _ only`);
  }
  const key = `${target.server} ${max}`;
  let shared = sharedPools.get(key);
  if (!shared) {
    shared = { pool: makePool(target.server, max), users: 0 };
    sharedPools.set(key, shared);
  }
  shared.users += 1;
  const { pool } = shared;
  const setPath = `set local search_path to "${target.schema}"`;
  let ended = false;
  return {
    async connect() {
      return new SchemaClient(await pool.connect(), setPath) as unknown as PostgresPoolClient;
    },
    async end() {
      if (ended) return;
      ended = true;
      const entry = sharedPools.get(key);
      if (!entry) return;
      entry.users -= 1;
      if (entry.users > 0) return;
      sharedPools.delete(key);
      await entry.pool.end();
    },
  };
}

/**
 * A pooled client whose every statement runs in a transaction that has set the schema: kysely's
 * own transactions get `set local` with their `begin`; a lone statement is wrapped in
 * `begin; set local …` and `commit` (one simple query when it has no parameters). kysely's
 * connection calls only `query(sql, parameters)` here: paysync never streams with a cursor.
 */
class SchemaClient {
  private inTransaction = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly setPath: string,
  ) {}

  async query(sql: string, parameters: ReadonlyArray<unknown>): Promise<pg.QueryResult> {
    if (typeof sql !== 'string') throw new TypeError('a schema pool does not stream with cursors');
    const values = [...parameters];
    if (this.inTransaction) {
      if (ENDS.test(sql)) this.inTransaction = false;
      return this.client.query(sql, values);
    }
    if (OPENS.test(sql) && values.length === 0) {
      const [opened] = await this.many(`${sql}; ${this.setPath}`);
      this.inTransaction = true;
      return opened!;
    }
    try {
      if (values.length === 0)
        return (await this.many(`begin; ${this.setPath}; ${sql}; commit`))[2]!;
      await this.client.query(`begin; ${this.setPath}`);
      const result = await this.client.query(sql, values);
      await this.client.query('commit');
      return result;
    } catch (error) {
      // Whatever failed left this connection inside an aborted transaction: end it.
      await this.client.query('rollback').catch(() => undefined);
      throw error;
    }
  }

  release(): void {
    this.inTransaction = false;
    this.client.release();
  }

  /** A simple query of several statements: node-postgres answers one result per statement. */
  private async many(text: string): Promise<pg.QueryResult[]> {
    return (await this.client.query(text)) as unknown as pg.QueryResult[];
  }
}
