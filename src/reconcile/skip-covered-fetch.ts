import {
  closeCoveredInboxRows,
  latestOpenInboxIdsFor,
  type ResourceHandle,
} from '../inbox/index.ts';
import { fetchCoverages } from '../ledger/index.ts';
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
  const [skipped] = await skipCoveredFetches(deps, [target], now);
  return skipped;
}

/**
 * {@link skipCoveredFetch} for the resources of one sync batch: the coverage of all of them in
 * one query, their open events in another, then one close per skipped resource. The answer
 * for each target, in order, is the skip result, or undefined when it must fetch.
 */
export async function skipCoveredFetches(
  deps: SyncDependencies,
  targets: readonly LedgerTarget[],
  now: string,
): Promise<(SyncResult | undefined)[]> {
  const results: (SyncResult | undefined)[] = targets.map(() => undefined);
  const candidates = targets
    .map((target, index) => ({ target, index }))
    .filter(
      ({ target }) =>
        (target.via === 'webhook' && target.inboxId !== undefined) || target.via === 'poll',
    );
  if (candidates.length === 0) return results;
  const coverages = await fetchCoverages(
    deps.db,
    candidates.map(({ target }) => target),
    now,
  );
  const covered = candidates
    .map((candidate, at) => ({ ...candidate, coverage: coverages[at] }))
    .filter(
      ({ target, coverage }) =>
        coverage !== undefined &&
        !coverage.pollCalledFor &&
        (target.inboxId === undefined || target.inboxId <= coverage.coveredInboxId),
    );
  if (covered.length === 0) return results;
  const handles: ResourceHandle[] = covered.map(({ target, coverage }) => ({
    kind: target.kind,
    id: target.id,
    reference: target.reference ?? coverage!.reference,
  }));
  const latestOpen = await latestOpenInboxIdsFor(deps.db, handles);
  for (const [at, { index, coverage }] of covered.entries()) {
    const latest = latestOpen[at]!;
    if (latest > coverage!.coveredInboxId) continue;
    const closedRows =
      latest === 0
        ? 0
        : await closeCoveredInboxRows(deps.db, handles[at]!, {
            upToId: coverage!.coveredInboxId,
            status: 'processed',
            at: now,
          });
    results[index] = { outcome: 'skipped', closedRows };
  }
  return results;
}
