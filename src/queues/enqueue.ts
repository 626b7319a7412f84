/**
 * The queues' light entry: job names and payloads, the enqueue helpers and the job-id rules,
 * without BullMQ and ioredis, which the index loads (createQueues, the connections, the
 * workers). For code on the CLI's read paths, which must not load BullMQ (issue 39): the outbox,
 * reached through balances and reports, and the sweeps' and syncs' helpers reached through
 * polling and reconcile. Everything here is in the index too. .dependency-cruiser.cjs names
 * this file as an entry of its own.
 */
export * from './job-types.ts';
export {
  DEFAULT_QUEUE_PREFIX,
  enqueueSyncBatch,
  enqueueIngest,
  enqueueScheduledTick,
  enqueueSync,
  ingestJobId,
  JOB_ATTEMPTS,
  KEEP_COMPLETED_JOBS,
  KEEP_QUEUE_EVENTS,
  KEEP_FAILED_JOBS,
  newestPerResource,
  syncKey,
  type Queues,
  type QueueSettings,
  type SyncBatchOptions,
} from './queues.ts';
export { DEFAULT_SYNC_BATCH_SIZE } from './sync-batch.defaults.ts';
