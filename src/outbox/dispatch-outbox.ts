import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { createHash } from 'node:crypto';
import {
  FOLLOW_UP_BATCH_JOB_NAME,
  type FollowUpBatchJobData,
  type FollowUpQueueData,
  type FollowUpRowData,
  type Queues,
} from '../queues/index.ts';
import { outboxDispatchedTotal, outboxDispatchFailuresTotal } from './outbox-metrics.ts';
import type { OutboxRow } from './outbox.table.ts';
import { reasonOf } from '../error-reason.ts';

export interface DispatchDependencies {
  readonly db: Kysely<Database>;
  readonly queues: Queues;
  /**
   * Rows one follow-up job carries, and rows handed out per pass (`PAYSYNC_OUTBOX_BATCH_SIZE`).
   * @defaultValue 100
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
}

export interface DispatchResult {
  /** Rows handed to BullMQ and stamped in this pass. */
  readonly dispatched: number;
  /** True when the batch was full: call again, more rows may be waiting. */
  readonly more: boolean;
}

export const DEFAULT_OUTBOX_BATCH_SIZE = 100;
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
 * Kept a day after completion so a late second hand-out of the same id is a no-op. Failed
 * jobs keep the queue's default (a week), so a row that failed for good is not run again.
 */
const HAND_OUT_OPTIONS = { removeOnComplete: { age: 86_400 } } as const;

interface FollowUpJob {
  readonly name: string;
  readonly data: FollowUpQueueData;
  readonly opts: { readonly jobId: string; readonly removeOnComplete: { readonly age: number } };
}

/**
 * One row alone: named after its kind, with id `outbox-<id>` and the row as data, as every
 * follow-up job was before the batches (so such a job left in Redis is still the same job).
 */
export function singleRowJob(row: FollowUpRowData): FollowUpJob {
  return {
    // The job name is the kind (`alert`, `receipt`…): the follow-up processor routes by it.
    name: row.type,
    data: row,
    opts: { jobId: outboxJobId(row.outboxId), ...HAND_OUT_OPTIONS },
  };
}

/** The jobs of one pass: the due rows as one batch (one row goes alone), each stale row alone. */
function followUpJobs(
  due: readonly FollowUpRowData[],
  stale: readonly FollowUpRowData[],
): FollowUpJob[] {
  const jobs = stale.map(singleRowJob);
  if (due.length === 1) jobs.unshift(singleRowJob(due[0]!));
  if (due.length > 1) {
    const data: FollowUpBatchJobData = { type: 'batch', rows: due };
    jobs.unshift({
      name: FOLLOW_UP_BATCH_JOB_NAME,
      data,
      opts: { jobId: outboxBatchJobId(due.map((row) => row.outboxId)), ...HAND_OUT_OPTIONS },
    });
  }
  return jobs;
}

/**
 * One pass of the dispatcher: hands the oldest due rows to the follow-up queue as one batch
 * job (up to `batchSize` rows), then stamps them dispatched. When Redis refuses, the error
 * propagates and the rows stay as they were, to be handed out on a later pass. Rows handed
 * out but not stamped (a crash in between, or two dispatchers racing) are handed out again as
 * the same batch, under the same job id: BullMQ keeps one job, and the consumer checks
 * `consumed_at` in any case. A row handed out long ago and never consumed
 * (`redispatchAfterMs`, in case Redis lost its job) goes out again alone, under `outbox-<id>`.
 */
export async function dispatchOutbox(deps: DispatchDependencies): Promise<DispatchResult> {
  const batchSize = deps.batchSize ?? DEFAULT_OUTBOX_BATCH_SIZE;
  const nowMs = deps.now().getTime();
  const now = new Date(nowMs).toISOString();
  const due = await deps.db
    .selectFrom('outbox')
    .select(['id', 'kind', 'payload'])
    .where('dispatched_at', 'is', null)
    .where('available_at', '<=', now)
    .orderBy('id')
    .limit(batchSize)
    .execute();
  let stale: typeof due = [];
  if (due.length < batchSize) {
    const staleBefore = new Date(
      nowMs - (deps.redispatchAfterMs ?? DEFAULT_REDISPATCH_AFTER_MS),
    ).toISOString();
    stale = await deps.db
      .selectFrom('outbox')
      .select(['id', 'kind', 'payload'])
      .where('consumed_at', 'is', null)
      .where('dispatched_at', '<', staleBefore)
      .orderBy('dispatched_at')
      .limit(batchSize - due.length)
      .execute();
  }
  const rows = [...due, ...stale];
  if (rows.length === 0) return { dispatched: 0, more: false };
  try {
    const handOut = deps.queues.followUp.addBulk(
      followUpJobs(due.map(outboxJobData), stale.map(outboxJobData)),
    );
    // A late success after the timeout is harmless: the rows go out again under the same ids.
    handOut.catch(() => undefined);
    await withTimeout(handOut, deps.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  } catch (error) {
    outboxDispatchFailuresTotal.inc();
    const reason = reasonOf(error);
    await deps.db
      .updateTable('outbox')
      .set((eb) => ({
        dispatch_attempts: eb('dispatch_attempts', '+', 1),
        last_error: reason.slice(0, 500),
      }))
      .where(
        'id',
        'in',
        rows.map((row) => row.id),
      )
      .execute()
      .catch(() => undefined);
    throw error;
  }
  const stampedAt = deps.now().toISOString();
  await deps.db
    .updateTable('outbox')
    .set((eb) => ({
      dispatched_at: stampedAt,
      dispatch_attempts: eb('dispatch_attempts', '+', 1),
      last_error: null,
    }))
    .where(
      'id',
      'in',
      rows.map((row) => row.id),
    )
    .execute();
  for (const row of rows) outboxDispatchedTotal.inc({ kind: row.kind });
  return { dispatched: rows.length, more: rows.length === batchSize };
}
