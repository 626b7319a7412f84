import type { Kysely } from 'kysely';

/**
 * Issue 43, traces: the OpenTelemetry trace id of the request that stored each webhook, when
 * tracing was on and the trace sampled (docs/observability.md). The item's sync and booking run
 * in that trace, so `paysync show` prints it beside the item's inbox events and ops can open the
 * trace from the CLI. Null for rows stored with tracing off or not sampled.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_inbox').addColumn('trace_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_inbox').dropColumn('trace_id').execute();
}
