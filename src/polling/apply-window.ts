import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import type { AllExpectedOption } from '../expectations/index.ts';
import type { ApplyOutcome } from '../ledger/index.ts';
import type { ObservedVia } from '../resources/index.ts';
import {
  walkWindowPages,
  type PaymentIntent,
  type Transfer,
  type UpstreamClient,
} from '../upstream/index.ts';
import { inSpan, TRACE_ATTRIBUTES, type TraceContext } from '../tracing/index.ts';
import { applyListedItems } from './apply-list-page.ts';
import { advanceCheckpoint } from './checkpoint.repository.ts';
import type { ListStream } from './list-streams.ts';
import { addTally, emptyTally, type PageTally } from './page-tally.ts';
import {
  announceConsequences,
  bookConsequences,
  NO_CONSEQUENCES,
  type Consequences,
} from '../reconcile/index.ts';

type ListedItem = PaymentIntent | Transfer;

export interface WindowApplyOptions {
  readonly db: Kysely<Database>;
  /** The client the walk reads with (wrap it with `countingClient` to count calls). */
  readonly client: UpstreamClient;
  readonly stream: ListStream;
  /** Inclusive bounds on `createdAt`. */
  readonly from: Date;
  readonly to: Date;
  readonly perPage: number;
  /** The checkpoint row this walk advances. */
  readonly checkpointStream: string;
  readonly via: ObservedVia;
  /** `live` or `sandbox`: stamped on the relay events of what the walk changes. */
  readonly environment: string;
  readonly now: () => Date;
  /**
   * Which settled items no expectation claims are `unexpected` breaks
   * (`PAYSYNC_EXPECTATIONS_ALL_EXPECTED`). @defaultValue `off`
   */
  readonly allExpected?: AllExpectedOption;
  /** Apply in a transaction that is rolled back, and write no checkpoint. @defaultValue false */
  readonly dryRun?: boolean;
  /** Stored with the checkpoint, from the totals committed so far by this walk. */
  readonly detailOf?: (committed: PageTally) => unknown;
  /**
   * Write the follow-ups (alerts, receipts) of what each page changed to the outbox, in the
   * page's transaction. @defaultValue false
   */
  readonly followUps?: boolean;
  /** After each commit (progress, run counts). */
  readonly onCommit?: (commit: WindowCommit) => Promise<void> | void;
  /** After each page read, before anything is applied. */
  readonly onPage?: () => void;
  readonly signal?: AbortSignal;
  /**
   * The span of the walk (a sweep's tick, a backfill): each commit is a `paysync.window.page`
   * span under it, its follow-ups and relay deliveries in that trace. @defaultValue none: each
   * page's span starts a trace of its own
   */
  readonly trace?: TraceContext | undefined;
}

export interface WindowCommit {
  readonly tally: PageTally;
  readonly outcomes: readonly ApplyOutcome[];
  /** The checkpoint now committed (exclusive). */
  readonly position: string;
}

export interface WindowResult {
  readonly tally: PageTally;
  readonly pages: number;
  /** The last position committed: `to` + 1 ms when the walk finished. */
  readonly position: string;
}

class DryRunRollback extends Error {
  constructor(readonly result: { tally: PageTally; outcomes: ApplyOutcome[] }) {
    super('dry run');
  }
}

const createdMs = (item: ListedItem) => Date.parse(item.createdAt);

/**
 * Walks one frozen creation-time window with the client's window walker and applies what it
 * lists, committing as the walk goes.
 *
 * The walker visits sub-windows oldest first, so when it yields a page of the sub-window
 * starting at `s`, everything created before `s` has been yielded. Items are held until the
 * position passes them, then applied in one transaction together with the new checkpoint
 * `s`. So the committed ledger holds exactly the items created before the checkpoint: a
 * crash resumes from it and reads nothing committed again, and the last page commits in the
 * same transaction as the final checkpoint (`to` + 1 ms).
 */
export async function applyWindow(options: WindowApplyOptions): Promise<WindowResult> {
  const total = emptyTally();
  let position = options.from.getTime();
  let pages = 0;
  let held: ListedItem[] = [];

  // One span per commit (docs/observability.md): the page's items, and the position it reached.
  const commit = (ready: ListedItem[], nextPosition: number) =>
    inSpan(
      'paysync.window.page',
      {
        parent: options.trace,
        attributes: {
          [TRACE_ATTRIBUTES.windowStream]: options.stream.operationId,
          [TRACE_ATTRIBUTES.windowItems]: ready.length,
          [TRACE_ATTRIBUTES.windowPosition]: new Date(nextPosition).toISOString(),
        },
      },
      (_span, page) => commitPage(ready, nextPosition, page),
    );
  const commitPage = async (ready: ListedItem[], nextPosition: number, trace: TraceContext) => {
    const at = options.now().toISOString();
    const observation = { via: options.via, observedAt: at };
    const positionIso = new Date(nextPosition).toISOString();
    let result: { tally: PageTally; outcomes: ApplyOutcome[] };
    let consequences: Consequences = NO_CONSEQUENCES;
    if (options.dryRun) {
      try {
        await options.db.transaction().execute(async (trx) => {
          throw new DryRunRollback(await applyListedItems(trx, options.stream, ready, observation));
        });
        throw new Error('unreachable');
      } catch (error) {
        if (!(error instanceof DryRunRollback)) throw error;
        result = error.result;
      }
    } else {
      result = await options.db.transaction().execute(async (trx) => {
        const applied = await applyListedItems(trx, options.stream, ready, observation);
        // Backfilled or swept alike: the one path from a booking to its consequences.
        consequences = await bookConsequences(trx, applied.outcomes, at, {
          environment: options.environment,
          allExpected: options.allExpected ?? 'off',
          followUps: options.followUps ?? false,
          trace,
        });
        const committed = addTally(structuredClone(total), applied.tally);
        await advanceCheckpoint(trx, {
          stream: options.checkpointStream,
          position: positionIso,
          ...(options.detailOf ? { detail: options.detailOf(committed) } : {}),
          at,
        });
        return applied;
      });
    }
    addTally(total, result.tally);
    announceConsequences(consequences);
    position = nextPosition;
    await options.onCommit?.({ ...result, position: positionIso });
  };

  const walk = walkWindowPages(options.client, options.stream.operationId, {
    from: options.from,
    to: options.to,
    perPage: options.perPage,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  // One page of read-ahead: the next page is fetched while this one is applied, so the
  // service's time and ours overlap. What commits, and with which checkpoint, is unchanged.
  for await (const page of readAhead(walk)) {
    pages += 1;
    options.onPage?.();
    held.push(...(page.items as ListedItem[]));
    const reached = Math.max(position, Date.parse(page.from));
    const ready = held.filter((item) => createdMs(item) < reached);
    if (ready.length === 0 && reached === position) continue;
    held = held.filter((item) => !(createdMs(item) < reached));
    await commit(ready, reached);
  }
  await commit(held, options.to.getTime() + 1);
  held = [];
  return { tally: total, pages, position: new Date(position).toISOString() };
}

/**
 * Yields what `source` yields, asking it for the next item as soon as one is handed over, so
 * the source works on item n + 1 while the consumer works on item n. A failure of the
 * read-ahead surfaces when the consumer reaches it, never as an unhandled rejection.
 */
async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let next = iterator.next();
  try {
    for (;;) {
      const result = await next;
      if (result.done) return;
      next = iterator.next();
      next.catch(() => undefined);
      yield result.value;
    }
  } finally {
    // Settle the read-ahead first: an async generator queues return() behind it.
    await next.catch(() => undefined);
    await iterator.return?.();
  }
}
