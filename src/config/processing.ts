import { cronOrOff, nonNegativeInt, positiveInt, type Parsed } from './fields.ts';
import { z } from 'zod';
import { DEFAULT_OUTBOX_BATCH_SIZE } from '../outbox/outbox.defaults.ts';
import { DEFAULT_SYNC_BATCH_SIZE } from '../queues/sync-batch.defaults.ts';

// How workers and the scheduler process events (docs/processing.md). The batch sizes default to
// their components' constants (src/outbox/outbox.defaults.ts, src/queues/sync-batch.defaults.ts).

export const PROCESSING_VARIABLES = {
  /** BullMQ key prefix; processes of one deployment share it. @defaultValue `paysync` */
  PAYSYNC_QUEUE_PREFIX: z
    .string()
    .trim()
    .default('paysync')
    .refine((value) => /^[\w.:-]{1,100}$/.test(value), {
      message: 'must be letters, digits, and . _ : - only, for example paysync',
    }),
  /** Jobs one worker process runs at once, per queue. @defaultValue 8 */
  PAYSYNC_WORKER_CONCURRENCY: positiveInt(8, 256),
  /** A job's lock; a worker that dies mid-job has it retried after this long. @defaultValue 30000 */
  PAYSYNC_JOB_LOCK_MS: positiveInt(30_000, 600_000).refine((value) => value >= 1000, {
    message: 'must be at least 1000',
  }),
  /** How long SIGTERM waits for in-flight jobs before exiting anyway. @defaultValue 30000 */
  PAYSYNC_SHUTDOWN_TIMEOUT_MS: positiveInt(30_000, 600_000),
  /** Inbox rows not processed this long after arrival are enqueued again. @defaultValue 300 */
  PAYSYNC_RECOVERY_AFTER_SECONDS: positiveInt(300, 86_400),
  /** When the inbox recovery sweep runs (cron, optional seconds field, or `off`). @defaultValue every minute */
  PAYSYNC_RECOVERY_CRON: cronOrOff('* * * * *', 'every minute'),
  /**
   * An outbox row (alert, receipt) handed to the queue this long ago and still not consumed is
   * handed out again: Redis may have lost its job. @defaultValue 300
   */
  PAYSYNC_OUTBOX_REDISPATCH_SECONDS: positiveInt(300, 86_400),
  /** Outbox rows (alerts, receipts) one follow-up job carries. @defaultValue 100 (`DEFAULT_OUTBOX_BATCH_SIZE`) */
  PAYSYNC_OUTBOX_BATCH_SIZE: positiveInt(DEFAULT_OUTBOX_BATCH_SIZE, 1000),
  /** How far back a transfer known only by id is searched for. @defaultValue 72 */
  PAYSYNC_TRANSFER_SEARCH_HOURS: positiveInt(72, 24 * 366),
  /**
   * Resources per `sync-batch` job, fetched together and applied in one transaction.
   * @defaultValue 100 (`DEFAULT_SYNC_BATCH_SIZE`)
   */
  PAYSYNC_SYNC_BATCH_SIZE: positiveInt(DEFAULT_SYNC_BATCH_SIZE, 1000),
  /**
   * How long a batch waits in the queue before it may run, so that the events that follow an
   * item's first within that time are covered by one fetch. @defaultValue 250
   */
  PAYSYNC_SYNC_BATCH_WAIT_MS: nonNegativeInt(250, 60_000),
  /**
   * Fault injection for the crash tests: a sync batch holds this long between its commit and
   * its acknowledgement to BullMQ. Never set it in production. @defaultValue 0
   */
  PAYSYNC_SYNC_BATCH_HOLD_AFTER_COMMIT_MS: nonNegativeInt(0, 600_000),
  /**
   * `on`: a sync batch covers waiting transfers and payment intents with the pages of a creation
   * window when that is cheaper than a read per item (docs/processing.md, "Window reads");
   * `off`: every item is read by itself. @defaultValue `on`
   */
  PAYSYNC_WINDOW_READS: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
};

export interface ProcessingSettings {
  /** @defaultValue `paysync` */
  readonly queuePrefix: string;
  /** @defaultValue 8 */
  readonly concurrency: number;
  /** @defaultValue 30000 */
  readonly jobLockMs: number;
  /** @defaultValue 30000 */
  readonly shutdownTimeoutMs: number;
  /** @defaultValue 300000 */
  readonly recoveryAfterMs: number;
  /** A cron expression or `off`. @defaultValue `* * * * *` */
  readonly recoveryCron: string;
  /** Outbox rows handed out this long ago and not consumed go out again. @defaultValue 300000 */
  readonly outboxRedispatchMs: number;
  /** Outbox rows one follow-up job carries. @defaultValue `DEFAULT_OUTBOX_BATCH_SIZE` (100) */
  readonly outboxBatchSize: number;
  /** @defaultValue 72 */
  readonly transferSearchHours: number;
  /** @defaultValue `DEFAULT_SYNC_BATCH_SIZE` (100) */
  readonly syncBatchSize: number;
  /** @defaultValue 250 */
  readonly syncBatchWaitMs: number;
  /** Crash tests only. @defaultValue 0 */
  readonly syncBatchHoldAfterCommitMs: number;
  /** @defaultValue true */
  readonly windowReads: boolean;
}

export function processingSettings(e: Parsed<typeof PROCESSING_VARIABLES>): ProcessingSettings {
  return Object.freeze({
    queuePrefix: e.PAYSYNC_QUEUE_PREFIX,
    concurrency: e.PAYSYNC_WORKER_CONCURRENCY,
    jobLockMs: e.PAYSYNC_JOB_LOCK_MS,
    shutdownTimeoutMs: e.PAYSYNC_SHUTDOWN_TIMEOUT_MS,
    recoveryAfterMs: e.PAYSYNC_RECOVERY_AFTER_SECONDS * 1000,
    recoveryCron: e.PAYSYNC_RECOVERY_CRON,
    outboxRedispatchMs: e.PAYSYNC_OUTBOX_REDISPATCH_SECONDS * 1000,
    outboxBatchSize: e.PAYSYNC_OUTBOX_BATCH_SIZE,
    transferSearchHours: e.PAYSYNC_TRANSFER_SEARCH_HOURS,
    syncBatchSize: e.PAYSYNC_SYNC_BATCH_SIZE,
    syncBatchWaitMs: e.PAYSYNC_SYNC_BATCH_WAIT_MS,
    syncBatchHoldAfterCommitMs: e.PAYSYNC_SYNC_BATCH_HOLD_AFTER_COMMIT_MS,
    windowReads: e.PAYSYNC_WINDOW_READS === 'on',
  });
}
