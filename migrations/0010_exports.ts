import { sql, type Kysely } from 'kysely';
import { withIdColumn } from './schema-helpers.ts';

/**
 * Period close (issue 11): closed months with the sha256 of their frozen exports, a log of
 * every close and reopen, and the late changes: journals that touched a closed month and were
 * booked in the first open one instead.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('closed_periods')
    .addColumn('environment', 'text', (col) => col.notNull())
    .addColumn('period', 'text', (col) => col.notNull())
    .addColumn('window_from', 'text', (col) => col.notNull())
    .addColumn('window_to', 'text', (col) => col.notNull())
    .addColumn('closed_at', 'text', (col) => col.notNull())
    .addColumn('closed_by', 'text', (col) => col.notNull())
    .addColumn('forced', 'integer', (col) => col.notNull().check(sql`forced in (0, 1)`))
    .addColumn('reason', 'text')
    .addColumn('exports', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('closed_periods_pkey', ['environment', 'period'])
    .execute();
  await db.schema
    .createIndex('closed_periods_window')
    .on('closed_periods')
    .columns(['window_from', 'window_to'])
    .execute();

  await withIdColumn(db, db.schema.createTable('period_events'))
    .addColumn('environment', 'text', (col) => col.notNull())
    .addColumn('period', 'text', (col) => col.notNull())
    .addColumn('action', 'text', (col) => col.notNull().check(sql`action in ('close', 'reopen')`))
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('by', 'text', (col) => col.notNull())
    .addColumn('reason', 'text')
    .addColumn('detail', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('late_changes')
    .addColumn('journal_id', 'bigint', (col) => col.primaryKey().references('journals.id'))
    .addColumn('closed_period', 'text', (col) => col.notNull())
    .addColumn('original_effective_at', 'text', (col) => col.notNull())
    .addColumn('booked_effective_at', 'text', (col) => col.notNull())
    .execute();
}
