import type { Kysely } from 'kysely';
import pLimit from 'p-limit';
import type { Database } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import type { FollowUpRowData, Queues } from '../queues/index.ts';
import { reasonOf } from '../error-reason.ts';
import { singleRowJob } from './dispatch-outbox.ts';

export interface OutboxBatchDependencies {
  readonly db: Kysely<Database>;
  /** Where a row that failed goes back, alone, for its own retries. */
  readonly queues: Queues;
  readonly logger: Logger;
  /**
   * Rows of one batch consumed at once (a receipt waits on the service, an alert on the
   * database). @defaultValue 8
   */
  readonly concurrency?: number;
}

/**
 * Consumes one row and stamps it consumed in the transaction of its work (see
 * `markOutboxConsumed`); returns a short result line. Throws for a retry.
 */
export type OutboxRowConsumer = (row: FollowUpRowData) => Promise<string>;

/**
 * Consumes the rows of one kind of a batch together (receipts: one commit for all of them),
 * each stamped in the transaction of its work. Returns each row's result line, or what it
 * threw, in the order given; a row that threw is retried alone. Throwing fails every row given.
 */
export type OutboxRowsConsumer = (
  rows: readonly FollowUpRowData[],
) => Promise<readonly ({ readonly done: string } | { readonly error: unknown })[]>;

export interface OutboxBatchResult {
  /** Rows whose consumer ran and returned, by outbox id: the consumer's result line. */
  readonly done: ReadonlyMap<number, string>;
  /** Rows already consumed before this run (the batch retried, or a row handed out twice). */
  readonly alreadyDone: readonly number[];
  /** Rows whose consumer threw: each handed back to the queue alone (job `outbox-<id>`). */
  readonly retriedAlone: readonly number[];
}

const DEFAULT_CONCURRENCY = 8;
const RETRY_ALONE_DELAY_MS = 1000;

/**
 * Consumes the rows of one follow-up batch job. Rows already consumed are skipped, found in
 * one query. Every other row runs its consumer, which stamps the row in the transaction of its
 * work, so a row is done once whatever happens to the batch. A row whose consumer throws does
 * not hold the others back: it goes back to the queue alone, under `outbox-<id>`, with the
 * queue's retries and back-off, while the batch completes. Only when that hand-back fails
 * (Redis away) does the batch throw: its retry skips the rows done since, by their stamps.
 */
export async function consumeOutboxBatch(
  deps: OutboxBatchDependencies,
  rows: readonly FollowUpRowData[],
  consume: OutboxRowConsumer,
  /** Consumers that take all of a batch's rows of their kind (the row's `type`) at once. */
  together: Readonly<Record<string, OutboxRowsConsumer>> = {},
): Promise<OutboxBatchResult> {
  const ids = rows.map((row) => row.outboxId);
  const consumed =
    ids.length === 0
      ? []
      : await deps.db
          .selectFrom('outbox')
          .select('id')
          .where('id', 'in', ids)
          .where('consumed_at', 'is not', null)
          .execute();
  const consumedIds = new Set(consumed.map((row) => Number(row.id)));
  const alreadyDone = ids.filter((id) => consumedIds.has(id));
  const open = rows.filter((row) => !consumedIds.has(row.outboxId));

  const done = new Map<number, string>();
  const failed: { row: FollowUpRowData; reason: string }[] = [];
  // Each open row goes either to its kind's group or alone, in one pass.
  const byKind = new Map<string, FollowUpRowData[]>();
  const alone: FollowUpRowData[] = [];
  for (const row of open) {
    if (!Object.hasOwn(together, row.type)) alone.push(row);
    else if (byKind.has(row.type)) byKind.get(row.type)!.push(row);
    else byKind.set(row.type, [row]);
  }
  const limit = pLimit(deps.concurrency ?? DEFAULT_CONCURRENCY);
  await Promise.all([
    ...[...byKind].map(async ([kind, kindRows]) => {
      try {
        const results = await together[kind]!(kindRows);
        kindRows.forEach((row, index) => {
          const result = results[index];
          if (result !== undefined && 'done' in result) done.set(row.outboxId, result.done);
          else failed.push({ row, reason: reasonOf(result?.error ?? 'no result for the row') });
        });
      } catch (error) {
        for (const row of kindRows) failed.push({ row, reason: reasonOf(error) });
      }
    }),
    ...alone.map((row) =>
      limit(async () => {
        try {
          done.set(row.outboxId, await consume(row));
        } catch (error) {
          failed.push({ row, reason: reasonOf(error) });
        }
      }),
    ),
  ]);
  if (failed.length > 0) {
    for (const { row, reason } of failed) {
      deps.logger.warn(
        { outboxId: row.outboxId, type: row.type, reason },
        `follow-up ${row.type} (outbox row ${row.outboxId}) failed; retried alone as job ${singleRowJob(row).opts.jobId}`,
      );
    }
    // The reason is kept on the row for `paysync` tools; a failure to write it changes nothing.
    await Promise.all(
      failed.map(({ row, reason }) =>
        deps.db
          .updateTable('outbox')
          .set({ last_error: reason.slice(0, 500) })
          .where('id', '=', row.outboxId)
          .where('consumed_at', 'is', null)
          .execute()
          .catch(() => undefined),
      ),
    );
    // A second behind, as the queue's first back-off would be; its own retries follow.
    for (const { row } of failed) {
      const { queue, name, data, opts } = singleRowJob(row);
      await deps.queues[queue].add(name, data, { ...opts, delay: RETRY_ALONE_DELAY_MS });
    }
  }
  return {
    done,
    alreadyDone,
    retriedAlone: failed.map(({ row }) => row.outboxId),
  };
}
