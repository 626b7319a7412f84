import type { Executor } from '../db/index.ts';

/** Follow-ups of one kind not consumed yet: the work the books left for later. */
export interface OutboxBacklog {
  readonly kind: string;
  readonly waiting: number;
  /** When the oldest of them was written (UTC ISO 8601), or null when none waits. */
  readonly oldestAt: string | null;
}

/**
 * The follow-ups waiting, by kind (`alert`, `receipt`): handed out or not, not yet consumed.
 * Receipts wait behind the books for the service's budget, so their backlog is what the
 * pipeline page, `paysync receipts backlog` and `paysync_follow_ups_waiting` show. Served by
 * the `outbox_unconsumed` index.
 */
export async function outboxBacklog(db: Executor): Promise<OutboxBacklog[]> {
  const rows = await db
    .selectFrom('outbox')
    .select((eb) => [
      'kind',
      eb.fn.countAll<number>().as('waiting'),
      eb.fn.min('created_at').as('oldest_at'),
    ])
    .where('consumed_at', 'is', null)
    .groupBy('kind')
    .orderBy('kind')
    .execute();
  return rows.map((row) => ({
    kind: row.kind,
    waiting: Number(row.waiting),
    oldestAt: row.oldest_at === null ? null : String(row.oldest_at),
  }));
}
