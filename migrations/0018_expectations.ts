import type { Kysely } from 'kysely';
import { withIdColumn } from './schema-helpers.ts';

/**
 * Expectations (issue 24, docs/expectations.md): what the merchant expected to be paid and to
 * pay, matched against what settled.
 *
 * - `expectations`: one row per merchant expectation id and environment; an import or an API
 *   call that changes a row bumps `version` and writes the old content to the history.
 * - `expectation_history`: every change of an expectation (created, updated, cancelled,
 *   matched, resolved), with who, when, where from, and the content before and after.
 * - `expectation_matches`: which settled item pays which expectation, and how much of it, by
 *   which rule. One item pays one expectation, unless a many-to-one group shares it.
 * - `expectation_breaks`: what did not match as expected, each with its explanation and the
 *   suggested action; resolved by hand with who, when and why.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withIdColumn(db, db.schema.createTable('expectations'))
    .addColumn('environment', 'text', (col) => col.notNull())
    // The merchant's own id: imports are idempotent by it.
    .addColumn('expectation_id', 'text', (col) => col.notNull())
    // `in` (to be received) or `out` (to be paid).
    .addColumn('direction', 'text', (col) => col.notNull())
    // JSON array of item kinds that may pay it; null: every kind of its direction.
    .addColumn('item_kinds', 'text')
    .addColumn('currency', 'text', (col) => col.notNull())
    // Integer minor units; an exact amount has min = max.
    .addColumn('amount_min', 'bigint', (col) => col.notNull())
    .addColumn('amount_max', 'bigint', (col) => col.notNull())
    .addColumn('window_from', 'text', (col) => col.notNull())
    .addColumn('window_to', 'text', (col) => col.notNull())
    // Optional fields to match on.
    .addColumn('reference', 'text')
    .addColumn('item_id', 'text')
    .addColumn('counterparty', 'text')
    .addColumn('purchase_reference', 'text')
    .addColumn('description_pattern', 'text')
    // 1: may be paid by several items (one-to-many).
    .addColumn('allow_split', 'integer', (col) => col.notNull().defaultTo(0))
    // Expectations sharing a group may be paid together by one item (many-to-one).
    .addColumn('match_group', 'text')
    // JSON object: the merchant's own metadata, kept and echoed.
    .addColumn('metadata', 'text', (col) => col.notNull())
    // `open`, `matched`, `partially_matched`, `overdue`, `cancelled`, `resolved_manually`.
    .addColumn('state', 'text', (col) => col.notNull())
    .addColumn('matched_amount', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('version', 'integer', (col) => col.notNull())
    // A hash of the merchant's content: an import of the same row changes nothing.
    .addColumn('content_hash', 'text', (col) => col.notNull())
    .addColumn('resolved_by', 'text')
    .addColumn('resolved_at', 'text')
    .addColumn('resolution_reason', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addUniqueConstraint('expectations_environment_expectation_id', [
      'environment',
      'expectation_id',
    ])
    .execute();
  // Open expectations a settled item may pay, by currency and direction.
  await db.schema
    .createIndex('expectations_candidates')
    .on('expectations')
    .columns(['environment', 'currency', 'direction', 'state', 'window_to'])
    .execute();
  // The overdue check and the lists: by state, oldest window first.
  await db.schema
    .createIndex('expectations_state_window')
    .on('expectations')
    .columns(['environment', 'state', 'window_to', 'id'])
    .execute();
  await db.schema
    .createIndex('expectations_item_id')
    .on('expectations')
    .column('item_id')
    .execute();
  await db.schema
    .createIndex('expectations_reference')
    .on('expectations')
    .columns(['environment', 'reference'])
    .execute();

  await withIdColumn(db, db.schema.createTable('expectation_history'))
    // expectations.id
    .addColumn('expectation', 'bigint', (col) => col.notNull())
    .addColumn('version', 'integer', (col) => col.notNull())
    // `created`, `updated`, `cancelled`, `matched`, `unmatched`, `overdue`, `resolved`.
    .addColumn('change', 'text', (col) => col.notNull())
    // Where it came from: `import:<file name>`, `api`, `cli`, `matching`, `dashboard`.
    .addColumn('source', 'text', (col) => col.notNull())
    .addColumn('actor', 'text')
    // JSON: the merchant content before (null when created) and after.
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .addColumn('at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('expectation_history_expectation')
    .on('expectation_history')
    .columns(['expectation', 'id'])
    .execute();

  await withIdColumn(db, db.schema.createTable('expectation_matches'))
    // expectations.id
    .addColumn('expectation', 'bigint', (col) => col.notNull())
    // `payment_intent`, `transfer`, `refund`, `payment_refund`, `payment_link`.
    .addColumn('item_kind', 'text', (col) => col.notNull())
    .addColumn('item_id', 'text', (col) => col.notNull())
    // The part of the item's amount that pays this expectation (minor units).
    .addColumn('amount', 'bigint', (col) => col.notNull())
    // `id`, `reference`, `amount_window`.
    .addColumn('rule', 'text', (col) => col.notNull())
    // 1: the item settled after the expectation's window.
    .addColumn('late', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('settled_at', 'text', (col) => col.notNull())
    .addColumn('matched_at', 'text', (col) => col.notNull())
    .addUniqueConstraint('expectation_matches_expectation_item', [
      'expectation',
      'item_kind',
      'item_id',
    ])
    .execute();
  await db.schema
    .createIndex('expectation_matches_item')
    .on('expectation_matches')
    .columns(['item_kind', 'item_id'])
    .execute();

  await withIdColumn(db, db.schema.createTable('expectation_breaks'))
    .addColumn('environment', 'text', (col) => col.notNull())
    // expectations.id; null for an `unexpected` item no expectation claims.
    .addColumn('expectation', 'bigint')
    .addColumn('item_kind', 'text')
    .addColumn('item_id', 'text')
    // `missing`, `amount_mismatch`, `currency_mismatch`, `duplicate`, `unexpected`,
    // `reversed_after_match`, `late`.
    .addColumn('kind', 'text', (col) => col.notNull())
    // Signed minor units (settled minus expected) where the break is about an amount.
    .addColumn('difference', 'bigint')
    .addColumn('currency', 'text')
    .addColumn('explanation', 'text', (col) => col.notNull())
    .addColumn('suggested_action', 'text', (col) => col.notNull())
    // `open` or `resolved` (by hand, or `cleared` when matching no longer finds it).
    .addColumn('state', 'text', (col) => col.notNull())
    .addColumn('resolved_by', 'text')
    .addColumn('resolved_at', 'text')
    .addColumn('resolution_reason', 'text')
    // One break per (kind, expectation, item): matching run twice finds the same row.
    .addColumn('dedupe_key', 'text', (col) => col.notNull().unique())
    .addColumn('detected_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('expectation_breaks_state')
    .on('expectation_breaks')
    .columns(['environment', 'state', 'kind', 'detected_at'])
    .execute();
  await db.schema
    .createIndex('expectation_breaks_expectation')
    .on('expectation_breaks')
    .columns(['expectation', 'state'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('expectation_breaks').execute();
  await db.schema.dropTable('expectation_matches').execute();
  await db.schema.dropTable('expectation_history').execute();
  await db.schema.dropTable('expectations').execute();
}
