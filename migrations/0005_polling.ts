import { sql, type Kysely } from 'kysely';
import { dialectOfDb, withIdColumn } from '../src/db/schema-helpers.ts';

// Frozen copies: a migration must not change when the code's lists do later.
const OLD_VIA = "('webhook', 'poll', 'replay')";
const NEW_VIA = ['webhook', 'poll', 'replay', 'sweep'];
const OUTCOMES = ['running', 'succeeded', 'partial', 'failed'];

function inList(column: string, values: readonly string[]) {
  return sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql.lit(v)))})`;
}

/**
 * Polling: one record per scheduled run (`scheduled_runs`), the checkpoints of sweeps and
 * backfills (`polling_checkpoints`), and `via = 'sweep'` on status history and journals, so an
 * item first learned from a list sweep says so.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('scheduled_runs'))
    .addColumn('task', 'text', (col) => col.notNull())
    .addColumn('slot', 'text', (col) => col.notNull())
    .addColumn('attempt', 'integer', (col) => col.notNull())
    .addColumn('trigger', 'text', (col) =>
      col.notNull().check(inList('trigger', ['schedule', 'manual'])),
    )
    .addColumn('started_at', 'text', (col) => col.notNull())
    .addColumn('heartbeat_at', 'text', (col) => col.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('outcome', 'text', (col) => col.notNull().check(inList('outcome', OUTCOMES)))
    .addColumn('items_seen', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('items_changed', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('items_missed', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('pages_read', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('upstream_calls', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('checkpoint', 'text')
    .addColumn('error', 'text')
    // Two schedulers (or a retried job) reaching one slot: the second insert is refused.
    .addUniqueConstraint('scheduled_runs_task_slot_attempt', ['task', 'slot', 'attempt'])
    .execute();
  await db.schema
    .createIndex('scheduled_runs_task_started')
    .on('scheduled_runs')
    .columns(['task', 'started_at'])
    .execute();
  await db.schema
    .createIndex('scheduled_runs_outcome')
    .on('scheduled_runs')
    .columns(['outcome', 'heartbeat_at'])
    .execute();

  await db.schema
    .createTable('polling_checkpoints')
    .addColumn('stream', 'text', (col) => col.primaryKey())
    .addColumn('position', 'text', (col) => col.notNull())
    .addColumn('detail', 'text')
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();

  for (const table of ['status_history', 'journals']) await widenVia(db, table);
}

/** Lets `via` hold `sweep`: a new check constraint on PostgreSQL, a table rebuild on SQLite. */
async function widenVia(db: Kysely<unknown>, table: string): Promise<void> {
  if (dialectOfDb(db) === 'postgres') {
    const found = await sql<{ name: string }>`
      select conname as name from pg_constraint
      where conrelid = to_regclass(${table}) and contype = 'c'
        and pg_get_constraintdef(oid) like '%via%'`.execute(db);
    for (const { name } of found.rows) {
      await sql`alter table ${sql.table(table)} drop constraint ${sql.id(name)}`.execute(db);
    }
    await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_via_check`)}
      check (${inList('via', NEW_VIA)})`.execute(db);
    return;
  }
  // SQLite cannot alter a check constraint: rebuild the table under the same name, the
  // documented way (new table, copy, drop, rename, then its indexes and triggers again).
  const objects = await sql<{ type: string; name: string; sql: string | null }>`
    select type, name, sql from sqlite_master where tbl_name = ${table}`.execute(db);
  const create = objects.rows.find((row) => row.type === 'table')?.sql;
  if (!create || !create.includes(`"via" in ${OLD_VIA}`)) {
    throw new Error(`${table}: unexpected schema, cannot widen its via column`);
  }
  const rebuilt = create
    .replace(`CREATE TABLE "${table}"`, `CREATE TABLE "${table}__rebuilt"`)
    .replace(`"via" in ${OLD_VIA}`, `"via" in (${NEW_VIA.map((v) => `'${v}'`).join(', ')})`);
  const extras = objects.rows.filter(
    (row) => (row.type === 'index' || row.type === 'trigger') && row.sql !== null,
  );
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await sql`begin`.execute(db);
    await sql.raw(rebuilt).execute(db);
    await sql`insert into ${sql.table(`${table}__rebuilt`)} select * from ${sql.table(table)}`.execute(
      db,
    );
    await sql`drop table ${sql.table(table)}`.execute(db);
    await sql`alter table ${sql.table(`${table}__rebuilt`)} rename to ${sql.table(table)}`.execute(
      db,
    );
    for (const extra of extras) await sql.raw(extra.sql!).execute(db);
    const broken = await sql`pragma foreign_key_check`.execute(db);
    if (broken.rows.length > 0) throw new Error(`${table}: foreign keys broken by the rebuild`);
    await sql`commit`.execute(db);
  } catch (error) {
    await sql`rollback`.execute(db).catch(() => undefined);
    throw error;
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
