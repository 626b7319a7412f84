export * from './job-types.ts';
export {
  createQueues,
  DEFAULT_QUEUE_PREFIX,
  enqueueFollowUp,
  enqueueIngest,
  enqueueScheduledTick,
  enqueueSync,
  followUpJobId,
  ingestJobId,
  syncKey,
  type Queues,
  type QueueSettings,
} from './queues.ts';
export {
  assertRedisNoEviction,
  createRedisConnection,
  RedisPolicyError,
} from './redis-connection.ts';
