import type { Logger } from 'pino';
import {
  enqueueSyncBatch,
  JOB_ATTEMPTS,
  type Queues,
  type SyncJobData,
} from '../queues/enqueue.ts';

/** The next try of a sync batch's failed references: its number and how long it waits. */
export interface SyncBatchTry {
  readonly attempt: number;
  readonly delayMs: number;
}

/**
 * The retry policy of a sync batch's references (docs/processing.md, "Batches of resources"):
 * after try `attempt` they wait 1 s, 2 s, 4 s … before the next, as BullMQ's exponential
 * back-off of the other jobs does, for {@link JOB_ATTEMPTS} tries in all; undefined after the
 * last, when the inbox recovery sweep takes their rows over.
 */
export function nextSyncBatchTry(attempt: number): SyncBatchTry | undefined {
  if (attempt >= JOB_ATTEMPTS) return undefined;
  return { attempt: attempt + 1, delayMs: 1000 * 2 ** (attempt - 1) };
}

export interface RetrySyncBatchDependencies {
  readonly queues: Queues;
  readonly logger: Logger;
  /** References per batch (`PAYSYNC_SYNC_BATCH_SIZE`, `config.processing.syncBatchSize`). */
  readonly syncBatchSize: number;
}

/**
 * Hands the references that failed in a way a later try may fix back as new batches of
 * `syncBatchSize`, after the policy's back-off ({@link nextSyncBatchTry}); the others are done,
 * so a retry never fetches them again. After the last try the rows stay open and the inbox
 * recovery sweep hands them out again.
 */
export async function retrySyncBatch(
  deps: RetrySyncBatchDependencies,
  retry: readonly SyncJobData[],
  attempt: number,
): Promise<void> {
  if (retry.length === 0) return;
  const next = nextSyncBatchTry(attempt);
  if (next) {
    await enqueueSyncBatch(deps.queues, retry, { ...next, batchSize: deps.syncBatchSize });
    return;
  }
  deps.logger.error(
    { refs: retry.length, attempts: attempt },
    'sync batch: references still failing after the last try; the inbox recovery sweep will hand their rows out again',
  );
}
