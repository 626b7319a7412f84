import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/index.ts';
import { inboxRowsAwaitingRecovery } from '../inbox/index.ts';
import { enqueueIngest, ingestJobId, type Queues } from '../queues/enqueue.ts';
import { soleTenantMetrics, type TenantMetrics } from '../metrics/index.ts';
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
  /**
   * The metrics handle of the tenant whose inbox this is: in a process serving several, the
   * count carries the tenant's label. @defaultValue the handle of a process of one tenant
   */
  readonly metrics?: TenantMetrics;
}

export interface RecoverySweepResult {
  /** Open rows found. */
  readonly found: number;
  /** Ingest jobs added (a row whose job still waits adds nothing: same job id). */
  readonly enqueued: number;
  /** Ingest jobs that had failed for good and were sent back for another try. */
  readonly retried: number;
}

/** When the oldest job still waiting, delayed or running on the sync queue was added (ms). */
async function oldestQueuedSyncJob(queues: Queues): Promise<number | undefined> {
  const jobs = await Promise.all(
    (['active', 'wait', 'delayed', 'prioritized'] as const).map((state) =>
      queues.sync.getJobs([state], 0, 0, true),
    ),
  );
  const times = jobs.flat().map((job) => job.timestamp);
  return times.length > 0 ? Math.min(...times) : undefined;
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
  // A row classified at intake has no job of its own to look up: its work is a sync batch,
  // added just after the row's commit. While the sync queue still holds a job added before
  // that (the row's own batch, or one ahead of it), the row is in a backlog, not lost: leave
  // it. Otherwise Redis lost its batch; enqueue it again.
  const slackMs = Math.min(60_000, options.olderThanMs / 2);
  const oldestQueued = rows.some((row) => row.awaitsBatch)
    ? await oldestQueuedSyncJob(options.queues)
    : undefined;
  for (const row of rows) {
    if (
      row.awaitsBatch &&
      oldestQueued !== undefined &&
      oldestQueued <= Date.parse(row.receivedAt) + slackMs
    ) {
      continue;
    }
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
  (options.metrics ?? soleTenantMetrics).inc(inboxRecoveredTotal, {}, enqueued + retried);
  if (enqueued + retried > 0) {
    options.logger.info(
      { found: rows.length, enqueued, retried },
      'inbox recovery: enqueued events that sat unprocessed',
    );
  }
  return { found: rows.length, enqueued, retried };
}
