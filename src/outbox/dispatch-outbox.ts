import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { createHash } from 'node:crypto';
// The queues' light entry, not the index, which loads BullMQ (src/queues/enqueue.ts).
import {
  followUpQueueOf,
  FOLLOW_UP_BATCH_JOB_NAME,
  type FollowUpBatchJobData,
  type FollowUpQueueData,
  type FollowUpRowData,
  type Queues,
} from '../queues/enqueue.ts';
import { outboxDispatchedTotal, outboxDispatchFailuresTotal } from './outbox-metrics.ts';
import type { OutboxRow } from './outbox.table.ts';
import { reasonOf } from '../error-reason.ts';
import { soleTenantMetrics, type TenantMetrics } from '../metrics/index.ts';
import { DEFAULT_OUTBOX_BATCH_SIZE } from './outbox.defaults.ts';

export interface DispatchDependencies {
  readonly db: Kysely<Database>;
  readonly queues: Queues;
  /**
   * Rows one follow-up job carries, and rows handed out per pass (`PAYSYNC_OUTBOX_BATCH_SIZE`).
   * @defaultValue {@link DEFAULT_OUTBOX_BATCH_SIZE}
   */
  readonly batchSize?: number;
  /**
   * How long a hand-out may wait for Redis before the pass gives up (the worker connection
   * queues commands while Redis is away; they may still land later, under the same job ids).
   * @defaultValue 5000
   */
  readonly timeoutMs?: number;
  /**
   * A row handed out this long ago and still not consumed is handed out again, alone: its job
   * may have been lost with Redis (a flush, a restart without persistence). While a job of that
   * row alone still exists, BullMQ ignores the second add of its id. @defaultValue 300000 (5 minutes)
   */
  readonly redispatchAfterMs?: number;
  /** The clock, resolved where the process is assembled. */
  readonly now: () => Date;
  /**
   * The metrics handle of the tenant whose outbox this is: in a process serving several, the
   * counts carry the tenant's label. @defaultValue the handle of a process of one tenant
   */
  readonly metrics?: TenantMetrics;
}

export interface DispatchResult {
  /** Rows handed to BullMQ and stamped in this pass. */
  readonly dispatched: number;
  /** True when the batch was full: call again, more rows may be waiting. */
  readonly more: boolean;
  /** Failed jobs of stale rows that this pass replaced with a fresh job (see reviveFailedJobs). */
  readonly revived: readonly RevivedJob[];
}

/** A follow-up job BullMQ held as failed with its rows unconsumed, handed out afresh. */
export interface RevivedJob {
  readonly jobId: string;
  /** The rows it carries. */
  readonly rows: number;
  /** Why BullMQ failed it (for a worker that died under it: BullMQ's stall limit). */
  readonly reason: string;
}

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_REDISPATCH_AFTER_MS = 5 * 60_000;

/**
 * Redis did not take a hand-out in time. `pending` settles when the queued commands finally
 * run or fail (the worker connection keeps them while Redis is away).
 */
export class OutboxHandOutTimeout extends Error {
  override readonly name = 'OutboxHandOutTimeout';
  constructor(
    readonly timeoutMs: number,
    readonly pending: Promise<unknown>,
  ) {
    super(`Redis did not take the follow-ups within ${timeoutMs} ms`);
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OutboxHandOutTimeout(ms, work)), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/** BullMQ job ids may not be all digits; the outbox id makes a second hand-out a no-op. */
export function outboxJobId(outboxId: number): string {
  return `outbox-${outboxId}`;
}

/**
 * The job id of a batch, derived from its rows: the same rows handed out again (a lost stamp,
 * two dispatchers racing) are the same job, which BullMQ adds once. The first id and the count
 * keep it readable; the hash of every id tells two batches with the same first row apart.
 */
export function outboxBatchJobId(outboxIds: readonly number[]): string {
  const hash = createHash('sha256').update(outboxIds.join(',')).digest('hex').slice(0, 16);
  return `outbox-batch-${outboxIds[0]}-${outboxIds.length}-${hash}`;
}

/** The job data a consumer receives: the payload, its kind as `type`, and the row's id. */
export function outboxJobData(row: Pick<OutboxRow, 'id' | 'kind' | 'payload'>): FollowUpRowData {
  const payload = JSON.parse(row.payload) as Record<string, unknown>;
  // The payload's shape is the adder's contract with its consumer; the queue only carries it.
  return { ...payload, type: row.kind, outboxId: Number(row.id) } as unknown as FollowUpRowData;
}

/**
 * A follow-up job keeps the follow-up queue's retention (src/queues: the newest completed jobs
 * by count, failed ones a week). A second hand-out of a completed job's id after it was dropped
 * runs again and skips its rows, already consumed; a failed job kept under `outbox-<id>` makes
 * the re-add of a row that failed for good a no-op, so it is not run again while it is kept.
 */
interface FollowUpJob {
  /** The queue it goes to: receipts to their own (see followUpQueueOf). */
  readonly queue: 'followUp' | 'receipts';
  readonly name: string;
  readonly data: FollowUpQueueData;
  readonly opts: { readonly jobId: string };
}

/**
 * One row alone: named after its kind, with id `outbox-<id>` and the row as data, as every
 * follow-up job was before the batches (so such a job left in Redis is still the same job).
 */
export function singleRowJob(row: FollowUpRowData): FollowUpJob {
  return {
    // The job name is the kind (`alert`, `receipt`…): the follow-up processor routes by it.
    queue: followUpQueueOf(row.type),
    name: row.type,
    data: row,
    opts: { jobId: outboxJobId(row.outboxId) },
  };
}

/** One job for these rows, all of one queue: a batch, or the row alone when it is the only one. */
function followUpJob(rows: readonly FollowUpRowData[]): FollowUpJob {
  if (rows.length === 1) return singleRowJob(rows[0]!);
  const data: FollowUpBatchJobData = { type: 'batch', rows };
  return {
    queue: followUpQueueOf(rows[0]!.type),
    name: FOLLOW_UP_BATCH_JOB_NAME,
    data,
    opts: { jobId: outboxBatchJobId(rows.map((row) => row.outboxId)) },
  };
}

type DispatchRow = Pick<OutboxRow, 'id' | 'kind' | 'payload' | 'dispatched_at' | 'last_error'>;

/**
 * The jobs of rows handed out in one pass: one for the receipts, one for the rest, so that a
 * batch of receipts, which waits for its share of the service's budget, never holds an alert.
 */
function passJobs(rows: readonly FollowUpRowData[]): FollowUpJob[] {
  const receipts = rows.filter((row) => followUpQueueOf(row.type) === 'receipts');
  const rest = rows.filter((row) => followUpQueueOf(row.type) === 'followUp');
  return [rest, receipts].filter((group) => group.length > 0).map(followUpJob);
}

/**
 * The jobs that hand stale rows out again. Rows stamped by one pass go out together again, so
 * a batch whose job still waits (a backlog longer than `redispatchAfterMs`) is the same rows
 * under the same job id, which BullMQ ignores; if Redis lost it, it is re-created, and if BullMQ
 * failed it (its workers died under it), it is replaced (see reviveFailedJobs). A row whose
 * consumer failed (its reason in `last_error`, see consumeOutboxBatch) goes alone under
 * `outbox-<id>`: while its job, failed after every try, is kept (a week), the add is ignored
 * and it is not run again, as before the batches.
 */
function staleJobs(stale: readonly DispatchRow[]): FollowUpJob[] {
  const groups = new Map<string, FollowUpRowData[]>();
  const jobs: FollowUpJob[] = [];
  for (const row of stale) {
    if (row.last_error !== null) {
      jobs.push(singleRowJob(outboxJobData(row)));
      continue;
    }
    const key = row.dispatched_at ?? '';
    const group = groups.get(key) ?? [];
    group.push(outboxJobData(row));
    groups.set(key, group);
  }
  for (const group of groups.values()) jobs.push(...passJobs(group));
  return jobs;
}

/**
 * Removes each of these jobs that BullMQ holds as failed although its rows were never consumed
 * for good, so that the add which follows creates it afresh, with every try ahead of it;
 * otherwise the re-add of its id is a no-op for as long as the failed job is kept (a week).
 * Such a job is a batch (a row whose consumer throws goes back alone, so a batch fails only
 * when its workers died under it past BullMQ's stall limit, or Redis refused the hand-back on
 * every try), or a row alone that did not use its tries (the stall limit again). A row alone
 * whose consumer failed every try stays failed, for the operator (docs/processing.md). Removed
 * and added, not `job.retry()`: a retried job keeps its stall count, and one more dead worker
 * would fail it again at once.
 */
async function reviveFailedJobs(
  queues: Queues,
  jobs: readonly FollowUpJob[],
): Promise<RevivedJob[]> {
  const revived: RevivedJob[] = [];
  for (const planned of jobs) {
    const { jobId } = planned.opts;
    const queue = queues[planned.queue];
    if ((await queue.getJobState(jobId)) !== 'failed') continue;
    const job = await queue.getJob(jobId);
    if (!job) continue;
    const rows = job.data.type === 'batch' ? job.data.rows.length : undefined;
    if (rows === undefined && job.attemptsMade >= (job.opts.attempts ?? 1)) continue;
    await job.remove();
    revived.push({ jobId, rows: rows ?? 1, reason: job.failedReason });
  }
  return revived;
}

/** Adds each job to its queue, one `addBulk` a queue. */
async function addJobs(queues: Queues, jobs: readonly FollowUpJob[]): Promise<void> {
  for (const queue of ['followUp', 'receipts'] as const) {
    const mine = jobs.filter((job) => job.queue === queue);
    if (mine.length > 0)
      await queues[queue].addBulk(mine.map(({ name, data, opts }) => ({ name, data, opts })));
  }
}

/** Counts a hand-out attempt on these rows and sets the given columns. */
async function countAttempt(
  db: Kysely<Database>,
  rows: readonly DispatchRow[],
  set: { dispatched_at?: string; last_error?: string | null },
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .updateTable('outbox')
    .set((eb) => ({ ...set, dispatch_attempts: eb('dispatch_attempts', '+', 1) }))
    .where(
      'id',
      'in',
      rows.map((row) => row.id),
    )
    .execute();
}

/**
 * One pass of the dispatcher: hands the oldest due rows to the follow-up queue as one batch
 * job (up to `batchSize` rows; a single row goes alone), then stamps them dispatched. When
 * Redis refuses, the error propagates and the rows stay as they were, to be handed out on a
 * later pass. Rows handed out but not stamped (a crash in between, or two dispatchers racing)
 * are handed out again as the same batch, under the same job id: BullMQ keeps one job, and the
 * consumer checks `consumed_at` in any case. Rows handed out long ago and never consumed
 * (`redispatchAfterMs`, in case Redis lost their job) go out again: see {@link staleJobs}.
 */
export async function dispatchOutbox(deps: DispatchDependencies): Promise<DispatchResult> {
  const batchSize = deps.batchSize ?? DEFAULT_OUTBOX_BATCH_SIZE;
  const nowMs = deps.now().getTime();
  const now = new Date(nowMs).toISOString();
  const columns = ['id', 'kind', 'payload', 'dispatched_at', 'last_error'] as const;
  const due = await deps.db
    .selectFrom('outbox')
    .select(columns)
    .where('dispatched_at', 'is', null)
    .where('available_at', '<=', now)
    .orderBy('id')
    .limit(batchSize)
    .execute();
  let stale: DispatchRow[] = [];
  let staleFull = false;
  if (due.length < batchSize) {
    const staleBefore = new Date(
      nowMs - (deps.redispatchAfterMs ?? DEFAULT_REDISPATCH_AFTER_MS),
    ).toISOString();
    // A whole batch's room, whatever the due rows took: a pass's rows cut in two would be a
    // new job beside their waiting one.
    stale = await deps.db
      .selectFrom('outbox')
      .select(columns)
      .where('consumed_at', 'is', null)
      .where('dispatched_at', '<', staleBefore)
      .orderBy('dispatched_at')
      .orderBy('id')
      .limit(batchSize)
      .execute();
    staleFull = stale.length === batchSize;
    // The same for the last stamp's rows when the limit cut them: they wait for the next pass,
    // unless they are all there is.
    const last = stale.at(-1)?.dispatched_at;
    if (staleFull && stale[0]!.dispatched_at !== last) {
      stale = stale.filter((row) => row.dispatched_at !== last);
    }
  }
  const rows = [...due, ...stale];
  if (rows.length === 0) return { dispatched: 0, more: false, revived: [] };
  const again = staleJobs(stale);
  const jobs = [...passJobs(due.map(outboxJobData)), ...again];
  let revived: RevivedJob[];
  try {
    const handOut = (async () => {
      const replaced = await reviveFailedJobs(deps.queues, again);
      await addJobs(deps.queues, jobs);
      return replaced;
    })();
    // A late success after the timeout is harmless: the rows go out again under the same ids.
    handOut.catch(() => undefined);
    revived = await withTimeout(handOut, deps.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  } catch (error) {
    (deps.metrics ?? soleTenantMetrics).inc(outboxDispatchFailuresTotal);
    const reason = reasonOf(error).slice(0, 500);
    // A stale row keeps its `last_error`: there it is a consumer's reason (see staleJobs).
    await Promise.all([
      countAttempt(deps.db, due, { last_error: reason }),
      countAttempt(deps.db, stale, {}),
    ]).catch(() => undefined);
    throw error;
  }
  const dispatched_at = deps.now().toISOString();
  await countAttempt(deps.db, due, { dispatched_at, last_error: null });
  await countAttempt(deps.db, stale, { dispatched_at });
  const metrics = deps.metrics ?? soleTenantMetrics;
  for (const row of rows) metrics.inc(outboxDispatchedTotal, { kind: row.kind });
  return { dispatched: rows.length, more: due.length === batchSize || staleFull, revived };
}
