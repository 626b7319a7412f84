import {
  closeCoveredInboxRows,
  latestOpenInboxIdFor,
} from '../ingest/inbox-progress.repository.ts';
import { fetchCoverage } from '../ledger/index.ts';
import type { SyncJobData } from '../queues/index.ts';
import type { FetchedState } from './fetch-resource-state.ts';
import type { SyncDependencies } from './sync-dependencies.ts';
import type { SyncResult } from './sync-result.ts';

type LedgerTarget = SyncJobData & { kind: FetchedState['kind'] };

/**
 * The fetch economy of docs/processing.md. A sync skips its fetch only when nothing still
 * calls for it: an earlier applied fetch began after every open event about the item arrived
 * (their inbox ids are at or below the id it read first), no poll is asked for or due, and the
 * job was queued for an event or a poll. It then closes those events as that fetch covered
 * them. A replay, a sync queued by another sync (payment links) and an item never fetched
 * always fetch.
 */
export async function skipCoveredFetch(
  deps: SyncDependencies,
  target: LedgerTarget,
  now: string,
): Promise<SyncResult | undefined> {
  const queuedForEvent = target.via === 'webhook' && target.inboxId !== undefined;
  if (!queuedForEvent && target.via !== 'poll') return undefined;
  const coverage = await fetchCoverage(deps.db, target, now);
  if (!coverage || coverage.pollCalledFor) return undefined;
  if (target.inboxId !== undefined && target.inboxId > coverage.coveredInboxId) return undefined;
  const handle = {
    kind: target.kind,
    id: target.id,
    reference: target.reference ?? coverage.reference,
  };
  const latestOpen = await latestOpenInboxIdFor(deps.db, handle);
  if (latestOpen > coverage.coveredInboxId) return undefined;
  const closedRows =
    latestOpen === 0
      ? 0
      : await closeCoveredInboxRows(deps.db, handle, {
          upToId: coverage.coveredInboxId,
          status: 'processed',
          at: now,
        });
  return { outcome: 'skipped', closedRows };
}
