import type { Kysely } from 'kysely';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Database } from '../db/index.ts';
import { latestInboxId } from '../inbox/index.ts';
import {
  newestPerResource,
  syncKey,
  type SyncBatchJobData,
  type SyncJobData,
} from '../queues/enqueue.ts';
import { reasonOf } from '../error-reason.ts';
import { fetchResourceState, type FetchedState } from './fetch-resource-state.ts';
import { applyFetched, type Fetched } from './apply-fetched.ts';
import { addConsequences, announceConsequences, NO_CONSEQUENCES } from './book-consequences.ts';
import { handleSyncFailure } from './handle-sync-failure.ts';
import { syncAttemptsTotal } from './reconcile-metrics.ts';
import { skipCoveredFetches } from './skip-covered-fetch.ts';
import {
  DEFAULT_FETCH_CONCURRENCY,
  resolveSyncDependencies,
  type ResolvedSyncDependencies,
  type SyncDependencies,
} from './sync-dependencies.ts';
import { syncResource } from './sync-resource.ts';
import { coverByWindow, type WindowKind } from './window-reads.ts';
import type { SyncAttempt, SyncResult } from './sync-result.ts';
import {
  continueTrace,
  inSpan,
  itemAttributes,
  ROOT_CONTEXT,
  traced,
  TRACE_ATTRIBUTES,
} from '../tracing/index.ts';

/** What one batch came to: a count per outcome, and the references to try again. */
export interface SyncBatchResult {
  readonly counts: Readonly<Record<SyncResult['outcome'], number>>;
  /** References whose fetch or apply failed in a way a later try may fix. */
  readonly retry: readonly SyncJobData[];
  /** True when the batch's one transaction failed and its items were applied one by one. */
  readonly split: boolean;
}

type LedgerRef = SyncJobData & { kind: FetchedState['kind'] };

/**
 * Resources a batch in this process is syncing now, per database. A batch that names one of
 * them waits for that sync to end, then checks coverage: the earlier fetch usually covers its
 * events, and the second fetch is skipped. (Across processes the ledger's unique keys and
 * the mirror's `updatedAt` guard keep concurrent applies harmless; this only saves calls.)
 */
const inFlight = new WeakMap<Kysely<Database>, Map<string, Promise<void>>>();

/**
 * Fetch slots per database, shared by the batches of a process: a fetch reads the highest
 * inbox id only once it has a slot, right before its request goes out, so it covers every
 * event that arrived while it queued behind the others (fewer second fetches).
 */
const fetchSlots = new WeakMap<Kysely<Database>, LimitFunction>();

function fetchSlot(db: Kysely<Database>, concurrency: number): LimitFunction {
  let limit = fetchSlots.get(db);
  if (!limit) fetchSlots.set(db, (limit = pLimit(concurrency)));
  return limit;
}

function claim(db: Kysely<Database>, keys: readonly string[]) {
  let syncing = inFlight.get(db);
  if (!syncing) inFlight.set(db, (syncing = new Map()));
  const running = syncing;
  const waitFor = keys.map((key) => running.get(key)).filter((p): p is Promise<void> => !!p);
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  for (const key of keys) running.set(key, done);
  return {
    ready: Promise.all(waitFor),
    release: () => {
      for (const key of keys) if (running.get(key) === done) running.delete(key);
      release();
    },
  };
}

/**
 * A batch of resources (docs/processing.md, "Batches of resources"): fetched concurrently
 * under the client's shared rate limit and concurrency cap, then applied together in ONE
 * transaction: every state, its fetch coverage, the follow-ups and the inbox rows each fetch
 * covered. The coverage rule of a single sync holds per item: each fetch reads the highest
 * inbox id right before its request goes out, and only rows at or below it are closed.
 *
 * A resource whose fetch failed is handled as a single sync's failure (retry, give up, stop)
 * and never blocks the others. If the one transaction fails, each item is applied again in a
 * transaction of its own, so one bad item cannot hold the batch back and no item is ever
 * half-booked. Payment links (which enqueue syncs of their intents) run as single syncs.
 */
export async function syncBatch(
  deps: SyncDependencies,
  data: SyncBatchJobData,
  attempt: SyncAttempt,
): Promise<SyncBatchResult> {
  const resolved = resolveSyncDependencies(deps);
  const counts: Record<SyncResult['outcome'], number> = {
    synced: 0,
    linked: 0,
    skipped: 0,
    retry: 0,
    gave_up: 0,
    stop: 0,
  };
  const retry: SyncJobData[] = [];
  const note = (ref: SyncJobData, result: SyncResult) => {
    counts[result.outcome] += 1;
    resolved.metrics.inc(syncAttemptsTotal, { kind: ref.kind, outcome: result.outcome });
    if (result.outcome === 'retry') retry.push(ref);
  };

  // The newest inbox row of each resource stands for its others (the fetch covers them all).
  const refs = newestPerResource(data.refs);
  const links = refs.filter((ref) => ref.kind === 'payment_link');
  const ledgerRefs = refs.filter((ref): ref is LedgerRef => ref.kind !== 'payment_link');
  for (const ref of links) {
    const result = await syncResource(resolved, ref, attempt);
    counts[result.outcome] += 1;
    if (result.outcome === 'retry') retry.push(ref);
  }
  if (ledgerRefs.length === 0) return { counts, retry, split: false };

  const claimed = claim(resolved.db, ledgerRefs.map(syncKey));
  try {
    await claimed.ready;
    const upToId = await latestInboxId(resolved.db);
    const fetched: Fetched[] = [];
    const fetchStartedAt = resolved.now().toISOString();
    let skips: (SyncResult | undefined)[];
    try {
      skips = await skipCoveredFetches(resolved, ledgerRefs, fetchStartedAt);
    } catch {
      skips = ledgerRefs.map(() => undefined);
    }
    skips = await afterWindowReads(resolved, ledgerRefs, skips);
    const slot = fetchSlot(resolved.db, resolved.fetchConcurrency ?? DEFAULT_FETCH_CONCURRENCY);
    await Promise.all(
      ledgerRefs.map(async (ref, index) => {
        const skipped = skips[index];
        if (skipped) return note(ref, skipped);
        let fetchUpToId = upToId;
        try {
          await slot(async () => {
            fetchUpToId = await latestInboxId(resolved.db);
            const startedAt = resolved.now().toISOString();
            // The item's own span, in its webhook's trace (docs/observability.md).
            const result = await inSpan(
              'paysync.sync.item',
              {
                ...continueTrace(ref.traceparent, resolved.trace ?? ROOT_CONTEXT),
                attributes: itemAttributes({
                  kind: ref.kind,
                  id: ref.id,
                  tenant: resolved.tenant,
                }),
              },
              (_span, item) => fetchResourceState(traced(resolved, item), ref),
            );
            fetched.push({ ref, result, fetchStartedAt: startedAt, upToId: fetchUpToId });
          });
        } catch (error) {
          note(ref, await handleSyncFailure(resolved, ref, attempt, fetchUpToId, error));
        }
      }),
    );
    if (fetched.length === 0) return { counts, retry, split: false };
    let split = false;
    let consequences = NO_CONSEQUENCES;
    try {
      ({ consequences } = await applyInSpan(resolved, fetched));
      for (const item of fetched)
        note(item.ref, { outcome: 'synced', outcomes: [], closedRows: 0 });
    } catch (error) {
      // One bad item must not hold the others: apply each alone, retrying only what fails.
      split = true;
      resolved.logger.warn(
        { items: fetched.length, reason: reasonOf(error) },
        'a sync batch did not commit; applying its items one by one',
      );
      for (const item of fetched) {
        try {
          consequences = addConsequences(
            consequences,
            (await applyInSpan(resolved, [item])).consequences,
          );
          note(item.ref, { outcome: 'synced', outcomes: [], closedRows: 0 });
        } catch (itemError) {
          note(
            item.ref,
            await handleSyncFailure(resolved, item.ref, attempt, item.upToId, itemError),
          );
        }
      }
    }
    announceConsequences(consequences);
    return { counts, retry, split };
  } finally {
    claimed.release();
  }
}

/** {@link applyFetched} in its span: the one transaction that books the fetched items. */
function applyInSpan(resolved: ResolvedSyncDependencies, fetched: readonly Fetched[]) {
  const only = fetched.length === 1 ? fetched[0]!.ref : undefined;
  return inSpan(
    'paysync.apply',
    {
      parent: resolved.trace,
      attributes: {
        [TRACE_ATTRIBUTES.booked]: fetched.length,
        [TRACE_ATTRIBUTES.itemIds]: fetched.map((item) => item.ref.id ?? item.ref.kind),
        'db.operation.name': 'transaction',
        ...(only ? itemAttributes({ kind: only.kind, id: only.id, tenant: resolved.tenant }) : {}),
      },
    },
    (_span, apply) => applyFetched(traced(resolved, apply), fetched),
  );
}

/** Window reads a batch may start or join before it reads what is left one by one. */
const WINDOW_ROUNDS = 3;

/**
 * Before the per-item reads: where transfers or payment intents still need a fetch, the window
 * reads of their kinds (`window-reads.ts`) may cover them, and every other waiting item of the
 * kind, with a few list pages. The references a read covered are then skipped as any covered
 * fetch is; the rest are read one by one.
 */
async function afterWindowReads(
  deps: ResolvedSyncDependencies,
  refs: readonly LedgerRef[],
  skips: (SyncResult | undefined)[],
): Promise<(SyncResult | undefined)[]> {
  if (deps.windowReads === false) return skips;
  const settings = deps.windowReads || undefined;
  let current = skips;
  // A read covers the events received before its pages were asked for; in a burst more keep
  // coming while it runs. While reads still cover something, the events that came meanwhile
  // get one more (started now, or joined), rather than a read per item.
  for (let round = 0; round < WINDOW_ROUNDS; round += 1) {
    const kinds = new Set<WindowKind>();
    for (const [index, ref] of refs.entries()) {
      if (!current[index] && (ref.kind === 'transfer' || ref.kind === 'payment_intent'))
        kinds.add(ref.kind);
    }
    if (kinds.size === 0) return current;
    const reads = await Promise.all([...kinds].map((kind) => coverByWindow(deps, kind, settings)));
    // A read that found none of the waiting items covered none of this batch's.
    if (reads.every((read) => read.found === 0)) return current;
    const open = refs.map((ref, index) => ({ ref, index })).filter(({ index }) => !current[index]);
    let again: (SyncResult | undefined)[];
    try {
      again = await skipCoveredFetches(
        deps,
        open.map(({ ref }) => ref),
        deps.now().toISOString(),
      );
    } catch {
      return current;
    }
    const merged = [...current];
    for (const [at, { index }] of open.entries()) merged[index] = again[at];
    current = merged;
  }
  return current;
}
