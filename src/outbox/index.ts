/**
 * The transactional outbox: follow-ups (alerts, receipts, later kinds) written in the same
 * transaction as the change that calls for them, then handed to the BullMQ follow-up queue by
 * a dispatcher in the workers. See docs/processing.md, "Follow-ups and the outbox".
 */
export {
  addToOutbox,
  notifyOutbox,
  type AddedOutboxEntry,
  type NewOutboxEntry,
} from './add-to-outbox.ts';
export {
  isOutboxConsumed,
  markOutboxConsumed,
  openOutboxEntries,
  type OpenOutboxEntry,
} from './outbox-consumption.ts';
export {
  consumeOutboxBatch,
  type OutboxBatchDependencies,
  type OutboxBatchResult,
  type OutboxRowConsumer,
  type OutboxRowsConsumer,
} from './consume-outbox-batch.ts';
export { DEFAULT_OUTBOX_BATCH_SIZE } from './outbox.defaults.ts';
export {
  dispatchOutbox,
  OutboxHandOutTimeout,
  outboxBatchJobId,
  outboxJobData,
  outboxJobId,
  type DispatchDependencies,
  type DispatchResult,
} from './dispatch-outbox.ts';
export {
  createOutboxDispatcher,
  type OutboxDispatcher,
  type OutboxDispatcherOptions,
} from './outbox-dispatcher.ts';
export type { OutboxRow, OutboxTable } from './outbox.table.ts';
export { OUTBOX_RETENTION, outboxRowsPrunable, pruneOutboxRows } from './outbox-retention.ts';
export { outboxBacklog, type OutboxBacklog } from './outbox-backlog.ts';
