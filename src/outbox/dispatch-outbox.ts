import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import type { FollowUpJobData, Queues } from '../queues/index.ts';
import { outboxDispatchedTotal, outboxDispatchFailuresTotal } from './outbox-metrics.ts';
import type { OutboxRow } from './outbox.table.ts';
import { reasonOf } from '../error-reason.ts';

export interface DispatchDependencies {
  readonly db: Kysely<Database>;
  readonly queues: Queues;
  /** Rows handed out per pass. @defaultValue 200 */
  readonly batchSize?: number;
  /**
   * How long a hand-out may wait for Redis before the pass gives up (the worker connection
   * queues commands while Redis is away; they may still land later, under the same job ids).
   * @defaultValue 5000
   */
  readonly timeoutMs?: number;
  /**
   * A row handed out this long ago and still not consumed is handed out again: its job may
   * have been lost with Redis (a flush, a restart without persistence). While the job still
   * exists, BullMQ ignores the second add of its id. @defaultValue 300000 (5 minutes)
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

const DEFAULT_BATCH_SIZE = 200;
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

/** The job data a consumer receives: the payload, its kind as `type`, and the row's id. */
export function outboxJobData(row: Pick<OutboxRow, 'id' | 'kind' | 'payload'>): FollowUpJobData {
  const payload = JSON.parse(row.payload) as Record<string, unknown>;
  // The payload's shape is the adder's contract with its consumer; the queue only carries it.
  return { ...payload, type: row.kind, outboxId: Number(row.id) } as unknown as FollowUpJobData;
}

/**
 * One pass of the dispatcher: hands the oldest due rows to the follow-up queue, then stamps
 * them dispatched. When Redis refuses, the error propagates and the rows stay as they were,
 * to be handed out on a later pass. A row handed out but not stamped (a crash in between, or
 * two dispatchers racing) is handed out again with the same job id: BullMQ keeps one job,
 * and the consumer checks `consumed_at` in any case. So is a row handed out long ago and
 * never consumed (`redispatchAfterMs`), in case Redis lost its job.
 */
export async function dispatchOutbox(deps: DispatchDependencies): Promise<DispatchResult> {
  const batchSize = deps.batchSize ?? DEFAULT_BATCH_SIZE;
  const nowMs = deps.now().getTime();
  const now = new Date(nowMs).toISOString();
  const rows = await deps.db
    .selectFrom('outbox')
    .select(['id', 'kind', 'payload'])
    .where('dispatched_at', 'is', null)
    .where('available_at', '<=', now)
    .orderBy('id')
    .limit(batchSize)
    .execute();
  if (rows.length < batchSize) {
    const staleBefore = new Date(
      nowMs - (deps.redispatchAfterMs ?? DEFAULT_REDISPATCH_AFTER_MS),
    ).toISOString();
    const stale = await deps.db
      .selectFrom('outbox')
      .select(['id', 'kind', 'payload'])
      .where('consumed_at', 'is', null)
      .where('dispatched_at', '<', staleBefore)
      .orderBy('dispatched_at')
      .limit(batchSize - rows.length)
      .execute();
    rows.push(...stale);
  }
  if (rows.length === 0) return { dispatched: 0, more: false };
  try {
    const handOut = deps.queues.followUp.addBulk(
      rows.map((row) => ({
        // The job name is the kind (`alert`, `receipt`…): the follow-up processor routes by it.
        name: row.kind,
        data: outboxJobData(row),
        opts: {
          jobId: outboxJobId(Number(row.id)),
          // Kept a day after completion so a late second hand-out of the same id is a no-op.
          removeOnComplete: { age: 86_400 },
        },
      })),
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
