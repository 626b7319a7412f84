import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import {
  countInboxEvents,
  inboxEventsAfter,
  markInboxStatus,
  type InboxSelection,
  type InboxStatus,
} from '../inbox/index.ts';
import { enqueueIngest, ingestJobId, type Queues } from '../queues/index.ts';

/** Which inbox rows to run again: one by id, or every one received since a time. */
export type ReplaySelection = InboxSelection;

export interface ReplayProgress {
  readonly done: number;
  readonly total: number;
}

export interface ReplayOptions {
  /** Count and report, change nothing. @defaultValue false */
  readonly dryRun?: boolean;
  /** Rows read and queued per round trip. @defaultValue 500 */
  readonly batchSize?: number;
  /** Called after each batch. */
  readonly onProgress?: (progress: ReplayProgress) => void;
}

export interface ReplayResult {
  /** Inbox rows the selection matched. */
  readonly matched: number;
  /** Ingest jobs added (or re-added after a failed or finished one). */
  readonly queued: number;
  /** Rows whose ingest job was already waiting or running: left as they were. */
  readonly alreadyQueued: number;
  /** Rows moved from a final status (processed, unclassified, failed) back to received. */
  readonly reopened: number;
}

const FINAL_STATUSES: readonly InboxStatus[] = ['processed', 'unclassified', 'failed'];
const PENDING_JOB_STATES = new Set([
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
]);

const PARALLEL_ROWS = 25;

/** Reopens one row when it is final and queues its ingest job unless one is already pending. */
async function replayRow(
  db: Kysely<Database>,
  queues: Queues,
  row: { readonly id: number; readonly status: InboxStatus },
): Promise<{ reopened: boolean; queued: boolean }> {
  const reopened = FINAL_STATUSES.includes(row.status);
  if (reopened) await markInboxStatus(db, row.id, 'received');
  const job = await queues.ingest.getJob(ingestJobId(row.id));
  const state = job ? await job.getState() : undefined;
  // A pending job will read the reopened row; one finishing right now leaves it to the
  // recovery sweep.
  if (state !== undefined && PENDING_JOB_STATES.has(state)) return { reopened, queued: false };
  // A finished or failed job keeps its id and would swallow the new one.
  if (job) await job.remove();
  await enqueueIngest(queues, row.id, 'replay');
  return { reopened, queued: true };
}

/** Number of inbox rows a selection matches. */
export async function countReplaySelection(
  db: Kysely<Database>,
  selection: ReplaySelection,
): Promise<number> {
  return countInboxEvents(db, selection);
}

/**
 * Runs inbox events through the workers again: each row is reopened (a final status goes
 * back to `received`, so the ingest job does not skip it) and its ingest job queued under the
 * usual deterministic id. The worker fetches the resource's authoritative state once more; the
 * ledger's unique keys make that a no-op when nothing changed, so replaying twice is harmless.
 * Rows are taken in id order, in batches, so a large window never sits in memory.
 */
export async function replayInboxEvents(
  deps: { readonly db: Kysely<Database>; readonly queues: Queues },
  selection: ReplaySelection,
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  const { db, queues } = deps;
  const batchSize = options.batchSize ?? 500;
  const total = await countReplaySelection(db, selection);
  const result = { matched: total, queued: 0, alreadyQueued: 0, reopened: 0 };
  if (options.dryRun) return result;
  let afterId = 0;
  let done = 0;
  for (;;) {
    const rows = await inboxEventsAfter(db, selection, { afterId, limit: batchSize });
    if (rows.length === 0) break;
    // A few rows at a time: Redis and the database answer in parallel, order does not matter.
    for (let start = 0; start < rows.length; start += PARALLEL_ROWS) {
      const outcomes = await Promise.all(
        rows.slice(start, start + PARALLEL_ROWS).map((row) => replayRow(db, queues, row)),
      );
      for (const outcome of outcomes) {
        if (outcome.reopened) result.reopened += 1;
        if (outcome.queued) result.queued += 1;
        else result.alreadyQueued += 1;
      }
    }
    done += rows.length;
    afterId = rows.at(-1)!.id;
    options.onProgress?.({ done, total: Math.max(total, done) });
    if (rows.length < batchSize) break;
  }
  return result;
}
