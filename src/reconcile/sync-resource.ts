import { closeCoveredInboxRows, latestInboxId } from '../inbox/index.ts';
import { recordFetchCoverage, type ApplyOutcome } from '../ledger/index.ts';
import type { SyncJobData } from '../queues/index.ts';
import { applyFetchedState } from './apply-fetched-state.ts';
import { fetchResourceState, itemOfFetched } from './fetch-resource-state.ts';
import { notifyOutbox } from '../outbox/index.ts';
import { emitRelayEvents, itemEventsOf, notifyRelay } from '../relay/index.ts';
import { addFollowUps, followUpsFor, justSettled } from './follow-ups.ts';
import { matchSettledItems } from '../expectations/index.ts';
import { handleSyncFailure } from './handle-sync-failure.ts';
import { skipCoveredFetch } from './skip-covered-fetch.ts';
import { tenantLabel } from '../metrics/index.ts';
import { syncAttemptsTotal } from './reconcile-metrics.ts';
import {
  resolveSyncDependencies,
  type ResolvedSyncDependencies,
  type SyncDependencies,
} from './sync-dependencies.ts';
import { syncPaymentLink } from './sync-payment-link.ts';
import type { SyncAttempt, SyncResult } from './sync-result.ts';

/**
 * One sync: fetch the resource's authoritative state, then in ONE transaction apply it to the
 * ledger, write the follow-ups it calls for to the outbox and close the inbox rows it covers.
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
  const result = await runSync(resolveSyncDependencies(deps), data, attempt);
  syncAttemptsTotal.inc({
    kind: data.kind,
    outcome: result.outcome,
    ...tenantLabel(deps.tenant),
  });
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
  const observedAt = deps.now().toISOString();
  const observation = {
    via: data.via,
    observedAt,
    ...(data.inboxId !== undefined ? { inboxId: data.inboxId } : {}),
    ...(deps.pollPlan ? { pollPlan: deps.pollPlan } : {}),
  };
  let committed: { outcomes: ApplyOutcome[]; closedRows: number; deliveries: number };
  try {
    committed = await deps.db.transaction().execute(async (trx) => {
      const outcomes: ApplyOutcome[] = [];
      for (const state of fetched.states) {
        outcomes.push(await applyFetchedState(trx, state, observation));
        await recordFetchCoverage(trx, itemOfFetched(state), {
          upToInboxId: upToId,
          fetchStartedAt,
        });
      }
      await addFollowUps(trx, followUpsFor(outcomes), observedAt);
      // Items that settled here pay their expectations in the same transaction, as in a batch.
      await matchSettledItems(trx, justSettled(outcomes), observedAt, {
        environment: deps.environment,
        allExpected: deps.expectations.allExpected,
      });
      const emitted = await emitRelayEvents(
        trx,
        itemEventsOf(outcomes, deps.environment),
        observedAt,
      );
      const closedRows = await closeCoveredInboxRows(trx, fetched.handle, {
        upToId,
        status: 'processed',
        at: observedAt,
      });
      return { outcomes, closedRows, deliveries: emitted.deliveries };
    });
  } catch (error) {
    return handleSyncFailure(deps, data, attempt, upToId, error);
  }
  notifyOutbox();
  if (committed.deliveries > 0) notifyRelay();
  return { outcome: 'synced', outcomes: committed.outcomes, closedRows: committed.closedRows };
}
