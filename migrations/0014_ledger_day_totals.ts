import { sql, type Kysely } from 'kysely';
import { columnTypes } from './schema-helpers.ts';

/**
 * Per-day totals of the journal (issue 22, docs/ledger.md "Day totals"): for each UTC day of a
 * journal's `effective_at`, account and currency, the sum of its lines. The ledger keeps them in
 * the same transaction as every line it books, so a balance is a sum over days (a few thousand
 * rows a year) instead of over every line ever booked. A row exists exactly where lines exist,
 * even when they sum to zero. Backfilled here from the lines already booked.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { money } = columnTypes(db);
  await db.schema
    .createTable('ledger_day_totals')
    .addColumn('day', 'text', (col) => col.notNull())
    .addColumn('account', 'text', (col) => col.notNull())
    .addColumn('currency', 'text', (col) => col.notNull())
    .addColumn('amount', money, (col) => col.notNull())
    .addPrimaryKeyConstraint('ledger_day_totals_pkey', ['day', 'account', 'currency'])
    .execute();
  await sql`insert into ledger_day_totals (day, account, currency, amount)
    select substr(j.effective_at, 1, 10), l.account, l.currency, sum(l.amount)
    from journal_lines l join journals j on j.id = l.journal_id
    group by substr(j.effective_at, 1, 10), l.account, l.currency`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ledger_day_totals').execute();
}
