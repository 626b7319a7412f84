import { closeCoveredInboxRowsOf } from '../inbox/index.ts';
import {
  applyBatch,
  recordFetchCoverages,
  type ApplyOutcome,
  type BatchEntry,
} from '../ledger/index.ts';
import type { SyncJobData } from '../queues/index.ts';
import { bookConsequences, type Consequences } from './book-consequences.ts';
import { itemOfFetched, type FetchResult } from './fetch-resource-state.ts';
import type { ResolvedSyncDependencies } from './sync-dependencies.ts';

/** One covering fetch, ready to apply: what was asked, what came back, and what it covers. */
export interface Fetched {
  readonly ref: SyncJobData;
  readonly result: FetchResult;
  readonly fetchStartedAt: string;
  /** The highest inbox id, read just before this fetch began: the rows it covers. */
  readonly upToId: number;
}

/** What one transaction of fetched states came to. */
export interface AppliedFetches {
  readonly outcomes: readonly ApplyOutcome[];
  /** Inbox rows the fetches covered and closed. */
  readonly closedRows: number;
  readonly consequences: Consequences;
}

/**
 * Applies covering fetches in ONE transaction, the same whether a sync batch, a single sync or
 * a window read fetched them: the ledger's batch apply (multi-row reads and writes, the same
 * books as one by one), their fetch coverage in one upsert, the booking's consequences
 * ({@link bookConsequences}), and the inbox rows each fetch covered, closed in one statement.
 */
export async function applyFetched(
  deps: ResolvedSyncDependencies,
  fetched: readonly Fetched[],
): Promise<AppliedFetches> {
  const observedAt = deps.now().toISOString();
  const entries: BatchEntry[] = [];
  const items = new Map<string, ReturnType<typeof itemOfFetched> & { upToInboxId: number }>();
  for (const { ref, result, upToId } of fetched) {
    const observation = {
      via: ref.via,
      observedAt,
      ...(ref.inboxId !== undefined ? { inboxId: ref.inboxId } : {}),
      ...(deps.pollPlan ? { pollPlan: deps.pollPlan } : {}),
    };
    for (const state of result.states) {
      entries.push({ fetched: state, observation });
      const item = itemOfFetched(state);
      items.set(`${item.kind} ${item.id}`, { ...item, upToInboxId: upToId });
    }
  }
  // The earliest start stands for all: a poll asked for before it is answered by every fetch.
  const fetchStartedAt = fetched.map((item) => item.fetchStartedAt).sort()[0]!;
  return deps.db.transaction().execute(async (trx) => {
    const outcomes = await applyBatch(trx, entries);
    // Each item carries its own fetch's inbox id; the batch-wide one is only a fallback.
    const lowest = Math.min(...fetched.map((item) => item.upToId));
    await recordFetchCoverages(trx, [...items.values()], { upToInboxId: lowest, fetchStartedAt });
    const consequences = await bookConsequences(trx, outcomes, observedAt, {
      environment: deps.environment,
      allExpected: deps.expectations.allExpected,
      trace: deps.trace,
    });
    const closedRows = await closeCoveredInboxRowsOf(
      trx,
      fetched.map(({ result, upToId }) => ({ resource: result.handle, upToId })),
      { status: 'processed', at: observedAt },
    );
    return { outcomes, closedRows, consequences };
  });
}
