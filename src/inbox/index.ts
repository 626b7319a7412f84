export { eventIdentity, eventKey, type EventIdentity } from './event-identity.ts';
export type {
  InboxEvent,
  InsertInboxResult,
  NewInboxEvent,
  StoredInboxEvent,
} from './inbox-event.ts';
export {
  createInboxIntake,
  InboxUnavailableError,
  type AcceptResult,
  type InboxIntake,
  type InboxIntakeSettings,
} from './inbox-intake.ts';
export {
  findInboxEvent,
  inboxRowsAwaitingRecovery,
  insertInboxEvent,
  insertInboxEvents,
  markInboxStatus,
  type InboxRecoveryCandidate,
  type FinalInboxStatusChange,
  type InboxStatusChange,
} from './inbox.repository.ts';
export {
  closeCoveredInboxRows,
  closeCoveredInboxRowsOf,
  latestInboxId,
  latestOpenInboxIdsFor,
  noteInboxError,
  recordInboxResource,
  referenceFromInbox,
  type CoveredRowsUpdate,
  type ResourceHandle,
} from './inbox-progress.repository.ts';
export {
  countInboxEvents,
  inboxCountSince,
  inboxEventsAbout,
  inboxEventsAfter,
  inboxStatusCounts,
  type InboxEventSummary,
  type InboxResourceName,
  type InboxSelection,
} from './inbox-queries.ts';
export type { InboxStatus, WebhookInboxRow } from './inbox.table.ts';
export { splitBatch, type BatchElement } from './split-batch.ts';
export { inboxLiveness, type InboxLiveness } from './inbox-liveness.ts';
export { openInboxBacklog } from './inbox-backlog.repository.ts';
export { waitingResourcesOf, type WaitingResource } from './inbox-waiting.repository.ts';
export { probeInboxWrite } from './probe-inbox-write.ts';
export {
  inboxMentionedResources,
  inboxMentionsResource,
  type MentionedResource,
} from './inbox-mentions.repository.ts';
export { STORED_HEADERS, storedHeaders } from './stored-headers.ts';
export {
  INBOX_BODIES_RETENTION,
  inboxBodiesPrunable,
  pruneInboxBodies,
} from './inbox-retention.repository.ts';
