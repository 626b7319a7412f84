import { sql, type Kysely } from 'kysely';

/**
 * `mirror_polls`: one row per mirrored item, holding what the janitor and the webhook path need
 * beside the mirror itself. `next_poll_at` is set while the item is non-terminal (null once it
 * is terminal), so the janitor's query is one range scan of its index. `covered_inbox_id` is the
 * highest inbox id received before the last applied fetch began: open events at or below it are
 * already covered, and a sync may close them without fetching again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mirror_polls')
    .addColumn('resource_kind', 'text', (col) => col.notNull())
    .addColumn('resource_id', 'text', (col) => col.notNull())
    .addColumn('reference', 'text')
    .addColumn('next_poll_at', 'text')
    .addColumn('poll_step', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('poll_requested_at', 'text')
    .addColumn('stuck_discrepancy_id', 'bigint')
    .addColumn('covered_inbox_id', 'bigint', (col) => col.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('mirror_polls_pkey', ['resource_kind', 'resource_id'])
    .execute();
  await db.schema
    .createIndex('mirror_polls_next_poll_at')
    .on('mirror_polls')
    .column('next_poll_at')
    .execute();
  await db.schema
    .createIndex('mirror_polls_reference')
    .on('mirror_polls')
    .columns(['resource_kind', 'reference'])
    .execute();

  // Items mirrored before this migration: non-terminal ones are due at once, so the janitor
  // picks them up on its first run; terminal ones only get their row.
  const terminal = sql`status in ('successful', 'failed', 'canceled')`;
  const due = sql`case when ${terminal} then null else updated_at end`;
  await sql`insert into mirror_polls (resource_kind, resource_id, reference, next_poll_at)
    select 'payment_intent', id, purchase_reference, ${due} from payment_intents`.execute(db);
  await sql`insert into mirror_polls (resource_kind, resource_id, reference, next_poll_at)
    select 'transfer', id, reference, ${due} from transfers`.execute(db);
  await sql`insert into mirror_polls (resource_kind, resource_id, reference, next_poll_at)
    select kind, id, null, ${due} from refunds`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mirror_polls').execute();
}
