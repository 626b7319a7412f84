import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/index.ts';
import { inboxRowsAwaitingRecovery } from '../inbox/index.ts';
import { enqueueIngest, ingestJobId, type Queues } from '../queues/index.ts';
import { inboxRecoveredTotal } from './reconcile-metrics.ts';

export interface RecoverySweepOptions {
  readonly db: Kysely<Database>;
  readonly queues: Queues;
  readonly logger: Logger;
  /** Rows received longer ago than this and still open are enqueued again. */
  readonly olderThanMs: number;
  /** Rows per sweep; the next sweep takes the rest. @defaultValue 1000 */
  readonly limit?: number;
  /** The clock, resolved where the process is assembled. */
  readonly now: () => Date;
}

export interface RecoverySweepResult {
  /** Open rows found. */
  readonly found: number;
  /** Ingest jobs added (a row whose job still waits adds nothing: same job id). */
  readonly enqueued: number;
  /** Ingest jobs that had failed for good and were sent back for another try. */
  readonly retried: number;
}

/**
 * Enqueues the ingest job of every inbox row that sat unprocessed too long: after Redis lost
 * its data, after the receiver could not reach Redis, after a worker gave up. Idempotent: the
 * job id is `inbox-<id>`, so a row whose job is still queued is not queued twice, and a
 * second sweep right after the first changes nothing.
 */
export async function runRecoverySweep(
  options: RecoverySweepOptions,
): Promise<RecoverySweepResult> {
  const now = options.now();
  const rows = await inboxRowsAwaitingRecovery(options.db, {
    olderThan: new Date(now.getTime() - options.olderThanMs),
    limit: options.limit ?? 1000,
  });
  let enqueued = 0;
  let retried = 0;
  for (const row of rows) {
    const existing = await options.queues.ingest.getJob(ingestJobId(row.id));
    if (!existing) {
      await enqueueIngest(options.queues, row.id);
      enqueued += 1;
    } else if (await existing.isFailed()) {
      // A job kept after its last failed try would make the add a no-op: retry it instead.
      await existing.retry('failed');
      retried += 1;
    }
  }
  inboxRecoveredTotal.inc(enqueued + retried);
  if (enqueued + retried > 0) {
    options.logger.info(
      { found: rows.length, enqueued, retried },
      'inbox recovery: enqueued events that sat unprocessed',
    );
  }
  return { found: rows.length, enqueued, retried };
}
