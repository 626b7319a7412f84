import { latestInboxId } from '../inbox/index.ts';
import type { SyncJobData } from '../queues/index.ts';
import { applyFetched } from './apply-fetched.ts';
import { announceConsequences } from './book-consequences.ts';
import { fetchResourceState } from './fetch-resource-state.ts';
import { handleSyncFailure } from './handle-sync-failure.ts';
import { skipCoveredFetch } from './skip-covered-fetch.ts';
import { syncAttemptsTotal } from './reconcile-metrics.ts';
import {
  resolveSyncDependencies,
  type ResolvedSyncDependencies,
  type SyncDependencies,
} from './sync-dependencies.ts';
import { syncPaymentLink } from './sync-payment-link.ts';
import type { SyncAttempt, SyncResult } from './sync-result.ts';

/**
 * One sync: fetch the resource's authoritative state, then apply it as a batch of one
 * (`apply-fetched.ts`: the ledger, the booking's consequences and the inbox rows it covers, in
 * ONE transaction). It exists beside `syncBatch` for payment links (whose sync enqueues the
 * syncs of their intents) and for the single-resource jobs of events the receiver could not
 * classify; it has no apply of its own (docs/processing.md, "One path from a booking to its
 * consequences").
 *
 * "Covers" means received before the fetch began: the highest inbox id is read first, and
 * only rows at or below it are closed. An event that lands mid-fetch stays open, and its own
 * (deduplicated) sync fetches again. Before fetching, a sync whose events an earlier fetch
 * already covered, with no poll due, closes them and skips the fetch (`skip-covered-fetch.ts`).
 */
export async function syncResource(
  deps: SyncDependencies,
  data: SyncJobData,
  attempt: SyncAttempt,
): Promise<SyncResult> {
  const resolved = resolveSyncDependencies(deps);
  const result = await runSync(resolved, data, attempt);
  resolved.metrics.inc(syncAttemptsTotal, { kind: data.kind, outcome: result.outcome });
  return result;
}

async function runSync(
  deps: ResolvedSyncDependencies,
  data: SyncJobData,
  attempt: SyncAttempt,
): Promise<SyncResult> {
  const upToId = await latestInboxId(deps.db);
  if (data.kind === 'payment_link') {
    try {
      return await syncPaymentLink(deps, data, upToId);
    } catch (error) {
      return handleSyncFailure(deps, data, attempt, upToId, error);
    }
  }
  const target = { ...data, kind: data.kind };
  const now = deps.now;
  const fetchStartedAt = now().toISOString();
  const skipped = await skipCoveredFetch(deps, target, fetchStartedAt);
  if (skipped) return skipped;
  let fetched;
  try {
    fetched = await fetchResourceState(deps, target);
  } catch (error) {
    return handleSyncFailure(deps, data, attempt, upToId, error);
  }
  let applied;
  try {
    applied = await applyFetched(deps, [{ ref: data, result: fetched, fetchStartedAt, upToId }]);
  } catch (error) {
    return handleSyncFailure(deps, data, attempt, upToId, error);
  }
  announceConsequences(applied.consequences);
  return { outcome: 'synced', outcomes: applied.outcomes, closedRows: applied.closedRows };
}
