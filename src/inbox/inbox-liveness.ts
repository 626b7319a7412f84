import type { Executor } from '../db/index.ts';

/** What the alerts' watcher needs to know about the inbox: is anything arriving, is anything not understood. */
export interface InboxLiveness {
  /** `received_at` of the newest row (UTC ISO 8601), or null when the inbox is empty. */
  readonly lastReceivedAt: string | null;
  /** Rows the ingest could not classify (status `unclassified`), kept with their raw body. */
  readonly unclassified: number;
}

/** Two indexed reads: the newest arrival and the number of unclassified rows. */
export async function inboxLiveness(db: Executor): Promise<InboxLiveness> {
  // The newest id rather than max(received_at): the primary key answers it without a scan,
  // and the receiver stamps received_at as it inserts, so they agree.
  const newest = await db
    .selectFrom('webhook_inbox')
    .select('received_at')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const unclassified = await db
    .selectFrom('webhook_inbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'unclassified')
    .executeTakeFirst();
  return {
    lastReceivedAt: newest?.received_at ?? null,
    unclassified: Number(unclassified?.n ?? 0),
  };
}
