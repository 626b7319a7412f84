/**
 * Reconciling the ledger with the service: one resource at a time (sync), and the inbox
 * recovery sweep. Jobs call these; the ledger below never calls the service.
 */
export { CredentialGuard, type CredentialCheck } from './credential-guard.ts';
export { fetchResourceState, type FetchedState, type FetchResult } from './fetch-resource-state.ts';
export {
  announceConsequences,
  bookConsequences,
  NO_CONSEQUENCES,
  type Consequences,
  type ConsequenceSettings,
} from './book-consequences.ts';
export { addFollowUps } from './follow-ups.ts';
export {
  runRecoverySweep,
  type RecoverySweepOptions,
  type RecoverySweepResult,
} from './recovery-sweep.ts';
export {
  resolveTransferReference,
  type ReferenceSource,
  type ResolvedReference,
} from './resolve-transfer-reference.ts';
export {
  resolveSyncDependencies,
  type FetchDependencies,
  type ResolvedSyncDependencies,
  type SyncDependencies,
} from './sync-dependencies.ts';
export { syncBatch, type SyncBatchResult } from './sync-batch.ts';
export {
  nextSyncBatchTry,
  retrySyncBatch,
  type RetrySyncBatchDependencies,
  type SyncBatchTry,
} from './sync-batch-retry.ts';
export { syncResource } from './sync-resource.ts';
export type { SyncAttempt, SyncResult } from './sync-result.ts';
export { UnknownResourceError } from './unknown-resource-error.ts';
