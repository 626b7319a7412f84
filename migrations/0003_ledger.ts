import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import { columnTypes, dialectOfDb, withIdColumn } from './schema-helpers.ts';

// Frozen copies: a migration must not change when the code's lists do later.
const ACCOUNTS = [
  'service:collection',
  'service:transfer',
  'service:transfer-irt',
  'service:cross-border',
  'income:payments',
  'payouts:recipients',
  'expenses:transfer-fees',
  'refunds:customers',
];
const VIA = ['webhook', 'poll', 'replay'];

function inList(column: string, values: readonly string[]) {
  return sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql.lit(v)))})`;
}

/** Columns every mirror table shares: the service's times, its raw JSON and our sync times. */
function withMirrorColumns<T extends string, C extends string>(
  table: CreateTableBuilder<T, C>,
): CreateTableBuilder<T, C> {
  return table
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addColumn('raw', 'text', (col) => col.notNull())
    .addColumn('first_seen_at', 'text', (col) => col.notNull())
    .addColumn('last_synced_at', 'text', (col) => col.notNull());
}

/**
 * Mirror tables, status history, the double-entry journal and discrepancies. Money is bigint
 * on both dialects; times are UTC ISO 8601 text with milliseconds.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { money } = columnTypes(db);

  await withMirrorColumns(
    db.schema
      .createTable('payment_intents')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('merchant_id', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('upstream_status', 'text', (col) => col.notNull())
      .addColumn('amount', money, (col) => col.notNull())
      .addColumn('currency', 'text', (col) => col.notNull())
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('purchase_reference', 'text', (col) => col.notNull())
      .addColumn('customer_reference', 'text', (col) => col.notNull())
      .addColumn('sub_merchant_id', 'text')
      .addColumn('failure_code', 'text')
      .addColumn('failure_message', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull()),
  ).execute();
  await db.schema
    .createIndex('payment_intents_purchase_reference')
    .on('payment_intents')
    .column('purchase_reference')
    .execute();
  await db.schema
    .createIndex('payment_intents_status_updated_at')
    .on('payment_intents')
    .columns(['status', 'updated_at'])
    .execute();

  await withMirrorColumns(
    db.schema
      .createTable('transfers')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('merchant_id', 'text', (col) => col.notNull())
      .addColumn('reference', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('upstream_status', 'text', (col) => col.notNull())
      .addColumn('amount', money, (col) => col.notNull())
      .addColumn('currency', 'text', (col) => col.notNull())
      .addColumn('mode', 'text', (col) => col.notNull())
      .addColumn('is_irt', 'integer', (col) => col.notNull().check(sql`is_irt in (0, 1)`))
      .addColumn('is_delegated', 'integer', (col) =>
        col.notNull().check(sql`is_delegated in (0, 1)`),
      )
      .addColumn('fees', 'text', (col) => col.notNull())
      .addColumn('destination', 'text', (col) => col.notNull())
      .addColumn('description', 'text', (col) => col.notNull())
      .addColumn('provider_reference', 'text', (col) => col.notNull())
      .addColumn('failure_code', 'text')
      .addColumn('failure_message', 'text')
      .addColumn('created_at', 'text', (col) => col.notNull()),
  ).execute();
  await db.schema.createIndex('transfers_reference').on('transfers').column('reference').execute();
  await db.schema
    .createIndex('transfers_status_updated_at')
    .on('transfers')
    .columns(['status', 'updated_at'])
    .execute();

  await withMirrorColumns(
    db.schema
      .createTable('refunds')
      .addColumn('kind', 'text', (col) =>
        col.notNull().check(inList('kind', ['refund', 'payment_refund'])),
      )
      .addColumn('id', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull())
      .addColumn('upstream_status', 'text', (col) => col.notNull())
      .addColumn('amount', money, (col) => col.notNull())
      .addColumn('currency', 'text', (col) => col.notNull())
      .addColumn('original_id', 'text')
      .addColumn('mode', 'text')
      .addColumn('reason', 'text')
      .addColumn('payment_method', 'text')
      .addColumn('failure_code', 'text')
      .addColumn('failure_message', 'text')
      .addColumn('created_at', 'text')
      .addPrimaryKeyConstraint('refunds_pkey', ['kind', 'id']),
  ).execute();
  await db.schema.createIndex('refunds_original_id').on('refunds').column('original_id').execute();
  await db.schema
    .createIndex('refunds_kind_status_updated_at')
    .on('refunds')
    .columns(['kind', 'status', 'updated_at'])
    .execute();

  await withIdColumn(db, db.schema.createTable('status_history'))
    .addColumn('resource_kind', 'text', (col) => col.notNull())
    .addColumn('resource_id', 'text', (col) => col.notNull())
    .addColumn('from_status', 'text')
    .addColumn('to_status', 'text', (col) => col.notNull())
    .addColumn('observed_at', 'text', (col) => col.notNull())
    .addColumn('via', 'text', (col) => col.notNull().check(inList('via', VIA)))
    .addColumn('inbox_id', 'bigint')
    .addColumn('service_updated_at', 'text', (col) => col.notNull())
    // One change per service version: a replay of the same state cannot add a second row.
    .addUniqueConstraint('status_history_resource_version', [
      'resource_kind',
      'resource_id',
      'service_updated_at',
    ])
    .execute();

  await withIdColumn(db, db.schema.createTable('journals'))
    .addColumn('resource_kind', 'text', (col) => col.notNull())
    .addColumn('resource_id', 'text', (col) => col.notNull())
    .addColumn('settlement_key', 'text', (col) => col.notNull())
    .addColumn('entry_type', 'text', (col) =>
      col.notNull().check(inList('entry_type', ['settlement', 'reversal'])),
    )
    .addColumn('reverses_journal_id', 'bigint', (col) => col.references('journals.id'))
    .addColumn('description', 'text', (col) => col.notNull())
    .addColumn('effective_at', 'text', (col) => col.notNull())
    .addColumn('posted_at', 'text', (col) => col.notNull())
    .addColumn('via', 'text', (col) => col.notNull().check(inList('via', VIA)))
    .addColumn('inbox_id', 'bigint')
    // The idempotency key of the whole ledger: one journal per (resource, settlement).
    .addUniqueConstraint('journals_resource_settlement', [
      'resource_kind',
      'resource_id',
      'settlement_key',
    ])
    .execute();
  await db.schema
    .createIndex('journals_effective_at')
    .on('journals')
    .column('effective_at')
    .execute();

  await withIdColumn(db, db.schema.createTable('journal_lines'))
    .addColumn('journal_id', 'bigint', (col) => col.notNull().references('journals.id'))
    .addColumn('line_no', 'integer', (col) => col.notNull())
    .addColumn('account', 'text', (col) => col.notNull().check(inList('account', ACCOUNTS)))
    .addColumn('currency', 'text', (col) => col.notNull())
    .addColumn('amount', money, (col) => col.notNull().check(sql`amount <> 0`))
    .addUniqueConstraint('journal_lines_journal_line', ['journal_id', 'line_no'])
    .execute();
  await db.schema
    .createIndex('journal_lines_account_currency')
    .on('journal_lines')
    .columns(['account', 'currency'])
    .execute();

  await withIdColumn(db, db.schema.createTable('discrepancies'))
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('resource_kind', 'text')
    .addColumn('resource_id', 'text')
    .addColumn('detail', 'text', (col) => col.notNull())
    .addColumn('raw_body', 'text')
    .addColumn('inbox_id', 'bigint')
    .addColumn('dedupe_key', 'text', (col) => col.notNull().unique())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('resolved_at', 'text')
    .execute();
  await db.schema
    .createIndex('discrepancies_resource')
    .on('discrepancies')
    .columns(['resource_kind', 'resource_id'])
    .execute();
  await db.schema
    .createIndex('discrepancies_open')
    .on('discrepancies')
    .columns(['resolved_at', 'created_at'])
    .execute();

  await refuseJournalEdits(db);
}

/** The journal is append-only: a correction is a new (reversing) journal, never an edit. */
async function refuseJournalEdits(db: Kysely<unknown>): Promise<void> {
  if (dialectOfDb(db) === 'postgres') {
    await sql`create function paysync_journal_is_append_only() returns trigger
      language plpgsql as $$
      begin
        raise exception 'the journal is append-only: % on % refused', tg_op, tg_table_name;
      end $$`.execute(db);
    for (const table of ['journals', 'journal_lines']) {
      await sql`create trigger ${sql.id(`${table}_append_only`)}
        before update or delete on ${sql.table(table)}
        for each row execute function paysync_journal_is_append_only()`.execute(db);
    }
    return;
  }
  for (const table of ['journals', 'journal_lines']) {
    for (const op of ['update', 'delete']) {
      await sql`create trigger ${sql.id(`${table}_no_${op}`)}
        before ${sql.raw(op)} on ${sql.table(table)}
        begin select raise(abort, ${sql.lit(`the journal is append-only: ${op} on ${table} refused`)}); end`.execute(
        db,
      );
    }
  }
}
