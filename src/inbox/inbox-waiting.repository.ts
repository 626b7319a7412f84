import type { Executor } from '../db/index.ts';

/** A resource with open inbox rows: what a window read may cover. */
export interface WaitingResource {
  readonly id: string | undefined;
  readonly reference: string | undefined;
  /** When its earliest open row arrived (UTC ISO 8601): its creation time is before it. */
  readonly firstReceivedAt: string;
}

/**
 * The resources of one kind that wait to be synced (open rows: `received` or `processing`),
 * one per way the events named them, earliest first, at most `atMost`. The planner of window
 * reads asks this before choosing between per-item reads and a creation window's pages. Served
 * by the `(status, received_at)` index: a range per open status, bounded by the backlog.
 */
export async function waitingResourcesOf(
  db: Executor,
  kind: string,
  atMost: number,
): Promise<WaitingResource[]> {
  const rows = await db
    .selectFrom('webhook_inbox')
    .select((eb) => [
      'resource_id',
      'resource_reference',
      eb.fn.min('received_at').as('first_received_at'),
    ])
    .where('status', 'in', ['received', 'processing'])
    .where('resource_kind', '=', kind)
    .groupBy(['resource_id', 'resource_reference'])
    .orderBy('first_received_at')
    .limit(atMost)
    .execute();
  return rows.map((row) => ({
    id: row.resource_id ?? undefined,
    reference: row.resource_reference ?? undefined,
    firstReceivedAt: String(row.first_received_at),
  }));
}
