import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Frozen copies: a migration must not change when the code's lists do later.
const ACCOUNT_ROOTS = [
  'service',
  'income',
  'payouts',
  'expenses',
  'refunds',
  'equity',
  'adjustments',
];
const ENTRY_TYPES = ['settlement', 'reversal', 'opening', 'adjustment'];
// How a journal came to be: the earlier ways, plus `manual` for opening balances and adjustments
// booked by a person or a snapshot. A superset of every list before it.
const JOURNAL_VIA = ['webhook', 'poll', 'replay', 'sweep', 'backfill', 'manual'];

function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

function inList(column: string, values: readonly string[]) {
  return sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql.lit(v)))})`;
}

/**
 * Balances: snapshots of the service's accounts, opening balances and manual adjustments
 * (new journal entry types booked against `equity:*` and `adjustments:*` accounts), low-balance
 * crossings and daily verdicts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await widenJournalChecks(db);
  const postgres = isPostgres(db);
  const id = (table: string) =>
    postgres
      ? db.schema
          .createTable(table)
          .addColumn('id', 'bigint', (col) => col.primaryKey().generatedByDefaultAsIdentity())
      : db.schema
          .createTable(table)
          .addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement());

  await id('balance_snapshots')
    .addColumn('environment', 'text', (col) => col.notNull())
    .addColumn('account_type', 'text', (col) => col.notNull())
    .addColumn('currency', 'text', (col) => col.notNull())
    .addColumn('amount', 'bigint', (col) => col.notNull())
    .addColumn('as_of', 'text', (col) => col.notNull())
    .addColumn('taken_at', 'text', (col) => col.notNull())
    .addColumn('kind', 'text', (col) =>
      col.notNull().check(inList('kind', ['scheduled', 'end_of_day', 'manual'])),
    )
    .addColumn('raw', 'text', (col) => col.notNull())
    .addUniqueConstraint('balance_snapshots_account_instant', [
      'environment',
      'account_type',
      'currency',
      'as_of',
    ])
    .execute();
  await db.schema
    .createIndex('balance_snapshots_as_of')
    .on('balance_snapshots')
    .columns(['environment', 'as_of'])
    .execute();

  await db.schema
    .createTable('ledger_adjustments')
    .addColumn('journal_id', 'bigint', (col) => col.primaryKey().references('journals.id'))
    .addColumn('kind', 'text', (col) =>
      col.notNull().check(inList('kind', ['opening', 'adjustment'])),
    )
    .addColumn('environment', 'text', (col) => col.notNull())
    .addColumn('account', 'text', (col) => col.notNull())
    .addColumn('counter_account', 'text', (col) => col.notNull())
    .addColumn('currency', 'text', (col) => col.notNull())
    .addColumn('amount', 'bigint', (col) => col.notNull())
    .addColumn('reason', 'text', (col) => col.notNull())
    .addColumn('booked_by', 'text', (col) => col.notNull())
    .addColumn('effective_at', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('low_balance_state')
    .addColumn('environment', 'text', (col) => col.notNull())
    .addColumn('account_type', 'text', (col) => col.notNull())
    .addColumn('currency', 'text', (col) => col.notNull())
    .addColumn('below', 'integer', (col) => col.notNull().check(sql`below in (0, 1)`))
    .addColumn('threshold', 'bigint', (col) => col.notNull())
    .addColumn('amount', 'bigint', (col) => col.notNull())
    .addColumn('changed_at', 'text', (col) => col.notNull())
    .addColumn('crossings', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('low_balance_state_pkey', ['environment', 'account_type', 'currency'])
    .execute();

  await db.schema
    .createTable('daily_verdicts')
    .addColumn('environment', 'text', (col) => col.notNull())
    .addColumn('day', 'text', (col) => col.notNull())
    .addColumn('time_zone', 'text', (col) => col.notNull())
    .addColumn('verdict', 'text', (col) =>
      col
        .notNull()
        .check(
          inList('verdict', ['RECONCILED', 'RECONCILED_WITH_PENDING', 'BREAKS', 'INCOMPLETE']),
        ),
    )
    .addColumn('report', 'text', (col) => col.notNull())
    .addColumn('computed_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('daily_verdicts_pkey', ['environment', 'day'])
    .execute();
}

/**
 * Opening balances and adjustments need new accounts and entry types. PostgreSQL swaps the
 * checks in place; SQLite cannot alter a check, so the two journal tables are rebuilt from their
 * own stored definitions with only the check clauses replaced (same columns, keys, rows).
 */
async function widenJournalChecks(db: Kysely<unknown>): Promise<void> {
  const accountCheck = sql`substr(account, 1, instr(account, ':') - 1) in (${sql.join(
    ACCOUNT_ROOTS.map((r) => sql.lit(r)),
  )}) and length(account) > instr(account, ':')`;
  if (isPostgres(db)) {
    await sql`alter table journal_lines drop constraint journal_lines_account_check`.execute(db);
    await sql`alter table journal_lines add constraint journal_lines_account_check check (split_part(account, ':', 1) in (${sql.join(
      ACCOUNT_ROOTS.map((r) => sql.lit(r)),
    )}) and split_part(account, ':', 2) <> '')`.execute(db);
    await sql`alter table journals drop constraint if exists journals_via_check`.execute(db);
    await sql`alter table journals add constraint journals_via_check check (${inList(
      'via',
      JOURNAL_VIA,
    )})`.execute(db);
    await sql`alter table journals drop constraint journals_entry_type_check`.execute(db);
    await sql`alter table journals add constraint journals_entry_type_check check (${inList(
      'entry_type',
      ENTRY_TYPES,
    )})`.execute(db);
    return;
  }
  const compiledAccount = accountCheck.compile(db).sql;
  const quoted = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');
  // Foreign keys off (outside any transaction, where SQLite honours the pragma) so the parent
  // table can be swapped; the transaction makes the swap all or nothing.
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      await rebuildSqliteTable(trx, 'journal_lines', (ddl) =>
        replaceOnce(ddl, /check \("account" in \([^)]*\)\)/, `check (${compiledAccount})`),
      );
      await rebuildSqliteTable(trx, 'journals', (ddl) =>
        replaceOnce(
          replaceOnce(
            ddl,
            /check \("entry_type" in \([^)]*\)\)/,
            `check ("entry_type" in (${quoted(ENTRY_TYPES)}))`,
          ),
          /check \("via" in \([^)]*\)\)/,
          `check ("via" in (${quoted(JOURNAL_VIA)}))`,
        ),
      );
      const violations = await sql`pragma foreign_key_check`.execute(trx);
      if (violations.rows.length > 0) throw new Error('foreign keys broken by the rebuild');
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

function replaceOnce(ddl: string, pattern: RegExp, replacement: string): string {
  if (!pattern.test(ddl)) throw new Error(`unexpected table definition: ${ddl}`);
  return ddl.replace(pattern, replacement);
}

/** Recreates a table under a changed definition, keeping its rows, indexes and triggers. */
async function rebuildSqliteTable(
  db: Kysely<unknown>,
  table: string,
  change: (ddl: string) => string,
): Promise<void> {
  const objects = await sql<{ type: string; name: string; sql: string | null }>`
    select type, name, sql from sqlite_master where tbl_name = ${table}`.execute(db);
  const definition = objects.rows.find((o) => o.type === 'table')?.sql;
  if (!definition) throw new Error(`table ${table} not found`);
  const temporary = `${table}_rebuild`;
  const changed = change(definition).replace(
    /^CREATE TABLE "?[A-Za-z_]+"?/i,
    `create table "${temporary}"`,
  );
  await sql.raw(changed).execute(db);
  await sql.raw(`insert into "${temporary}" select * from "${table}"`).execute(db);
  await sql.raw(`drop table "${table}"`).execute(db);
  await sql.raw(`alter table "${temporary}" rename to "${table}"`).execute(db);
  for (const object of objects.rows) {
    if ((object.type === 'index' || object.type === 'trigger') && object.sql) {
      await sql.raw(object.sql).execute(db);
    }
  }
}
