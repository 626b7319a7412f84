import { sql, type Kysely } from 'kysely';

/**
 * Issue 22 (cost flat in data size): the indexes the query-plan test
 * (test/foundation/query-plans.db.test.ts) found missing, each for a statement that otherwise
 * reads a whole table that grows with traffic. The statement each one serves is named beside it.
 */
const INDEXES: readonly (readonly [
  name: string,
  table: string,
  columns: readonly string[],
  /** Only the rows where this column is set: the index stays small when most rows lack it. */
  onlyWhereSet?: string,
])[] = [
  // The daily report's "created that day" counts and the balance snapshot's oldest item.
  ['payment_intents_created_at', 'payment_intents', ['created_at']],
  ['transfers_created_at', 'transfers', ['created_at']],
  ['refunds_created_at', 'refunds', ['created_at']],
  // `list intents|transfers` and /api/v1/payment-intents, /transfers: newest changes first.
  ['payment_intents_updated_at', 'payment_intents', ['updated_at']],
  ['transfers_updated_at', 'transfers', ['updated_at']],
  // The daily report's open refunds of both kinds (status in the open set, oldest change first).
  ['refunds_status_updated_at', 'refunds', ['status', 'updated_at']],
  // /api/v1/alerts and the open-alert list, newest first; the alert runtime's due notifications
  // and wake-ups (both branches of its OR start with the status).
  ['alerts_created_at', 'alerts', ['created_at', 'id']],
  ['alerts_status_notified_at', 'alerts', ['status', 'notified_at']],
  ['alert_digests_status_due_at', 'alert_digests', ['status', 'due_at']],
  // /api/v1/runs and `paysync runs`: newest runs first.
  ['scheduled_runs_started_at', 'scheduled_runs', ['started_at', 'id']],
  // SQLite checks journals.reverses_journal_id (a foreign key to journals) on every journal
  // insert; without an index on the child key that check reads every journal.
  ['journals_reverses_journal_id', 'journals', ['reverses_journal_id']],
  // The ledger's adjustments of one account in a window (balance snapshots and drift). With no
  // index on them, the planner walks every journal to join the few adjustments.
  [
    'ledger_adjustments_environment_account_effective_at',
    'ledger_adjustments',
    ['environment', 'account', 'effective_at'],
  ],
  // An item's inbox events (`show`, /api/v1/items/{id}, the dashboard's item page) match its id
  // of any kind, or one of its references: `webhook_inbox_resource` (kind, id) cannot serve the
  // id alone on PostgreSQL, and nothing served the reference, so each read every inbox row of
  // the kind (found by bench:big-books: 120 ms at 150,000 inbox rows on SQLite).
  ['webhook_inbox_resource_id', 'webhook_inbox', ['resource_id']],
  [
    'webhook_inbox_resource_reference',
    'webhook_inbox',
    ['resource_reference'],
    'resource_reference',
  ],
  // The pipeline page's "processed in the last hour".
  ['webhook_inbox_status_processed_at', 'webhook_inbox', ['status', 'processed_at']],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, table, columns, onlyWhereSet] of INDEXES) {
    const index = db.schema
      .createIndex(name)
      .on(table)
      .columns([...columns]);
    await (onlyWhereSet ? index.where(sql.ref(onlyWhereSet), 'is not', null) : index).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name] of [...INDEXES].reverse()) await db.schema.dropIndex(name).execute();
}
