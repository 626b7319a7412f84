import { sql, type Kysely } from 'kysely';
import { dialectOfDb } from './dialect-of-db.ts';

/**
 * Where the roles and rights paysync needs on PostgreSQL are written down, for the one-line
 * messages that send an operator there.
 */
export const POSTGRES_RIGHTS_DOC = 'docs/operations.md, "PostgreSQL: rights and upkeep"';

/**
 * PostgreSQL refused a statement for the role's lack of a right (SQLSTATE 42501,
 * insufficient_privilege): the server answered, the role may not do that.
 */
export function isPermissionDenied(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === '42501';
}

/** What a PostgreSQL connection's role may do with paysync's schema. */
export interface SchemaAccess {
  readonly role: string;
  /** The connection's search_path, as the server shows it. */
  readonly searchPath: string;
  /** The first schema of the search_path that exists and the role may use; undefined if none. */
  readonly schema: string | undefined;
  /**
   * Whether the role may create in that schema (or, with none, create a schema in the
   * database): false for the runtime role of the least-privilege set-up, which cannot migrate.
   */
  readonly canMigrate: boolean;
}

/**
 * The connection's role, search_path and rights on its schema, to say why a database looks
 * unmigrated or who must migrate it; undefined on SQLite.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database type will do
export async function schemaAccess(db: Kysely<any>): Promise<SchemaAccess | undefined> {
  if (dialectOfDb(db) !== 'postgres') return undefined;
  const { rows } = await sql<{
    role: string;
    search_path: string;
    schema: string | null;
    can_migrate: boolean;
  }>`
    select current_user as role, current_setting('search_path') as search_path,
      current_schema() as schema,
      case when current_schema() is null
        then has_database_privilege(current_database(), 'CREATE')
        else has_schema_privilege(current_schema(), 'CREATE') end as can_migrate`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    role: row.role,
    searchPath: row.search_path,
    schema: row.schema ?? undefined,
    canMigrate: row.can_migrate,
  };
}

/**
 * The end of a "migration(s) pending" line, from the role's access to its schema: `run paysync
 * migrate` unless the role sees no schema (it lacks USAGE, or search_path is wrong) or may not
 * migrate (the least-privilege runtime role), which the hint then says.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database type will do
export async function pendingMigrationsHint(db: Kysely<any>): Promise<string> {
  const access = await schemaAccess(db).catch(() => undefined);
  if (access && access.schema === undefined) {
    return `role ${access.role} sees no schema it may use on its search_path (${access.searchPath}): grant it USAGE on paysync's schema and point its search_path there, or run \`paysync migrate\` (${POSTGRES_RIGHTS_DOC})`;
  }
  if (access && !access.canMigrate) {
    return `run \`paysync migrate\` as the schema's owner first: role ${access.role} may not change schema ${access.schema} (${POSTGRES_RIGHTS_DOC})`;
  }
  return 'run `paysync migrate` first';
}
