export * from './job-types.ts';
export { createQueues } from './create-queues.ts';
export {
  DEFAULT_QUEUE_PREFIX,
  DEFAULT_SYNC_BATCH_SIZE,
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
export {
  assertRedisNoEviction,
  createRedisConnection,
  RedisPolicyError,
} from './redis-connection.ts';
export { ClosableRedisConnection, ClosableWorker } from './closable.ts';
