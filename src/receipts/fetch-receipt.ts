import type { Kysely } from 'kysely';
import pLimit from 'p-limit';
import type { Logger } from 'pino';
import type { Database } from '../db/index.ts';
import { recordDiscrepancy, type DiscrepancySummary } from '../ledger/index.ts';
import { addToOutbox, isOutboxConsumed, markOutboxConsumed } from '../outbox/index.ts';
import { NotFoundError, UnsupportedActionError, type UpstreamClient } from '../upstream/index.ts';
import { RECEIPT_KINDS, type ReceiptKind } from './receipt-kind.ts';
import { soleTenantMetrics, type TenantMetrics } from '../metrics/index.ts';
import { receiptFetchesTotal } from './receipt-metrics.ts';
import { archiveReceipts, type ArchivedReceipt } from './receipt-store.ts';

/** One receipt to fetch: what the outbox row of kind `receipt` carries. */
export interface ReceiptRequest {
  readonly kind: ReceiptKind;
  /** The transaction id (`pi_…`, `tr_…`): the service answers for a transaction id too. */
  readonly id: string;
  readonly status?: string;
  /** 1 on the first fetch; a 409 schedules the next with `attempt + 1`. @defaultValue 1 */
  readonly attempt?: number;
  /** When the first fetch answered 409 (UTC ISO 8601); the day of retries counts from it. */
  readonly firstAttemptAt?: string;
}

export interface ReceiptDependencies {
  readonly db: Kysely<Database>;
  readonly upstream: UpstreamClient;
  /** `PAYSYNC_RECEIPTS_DIR`. */
  readonly dir: string;
  readonly logger: Logger;
  /**
   * Waits after the 1st, 2nd… 409 before the next try; the last one repeats.
   * @defaultValue 1 m, 5 m, 15 m, 30 m, 1 h, 2 h, then every 4 h
   */
  readonly retryDelaysMs?: readonly number[];
  /** How long after the first 409 the receipt is declared unavailable. @defaultValue 1 day */
  readonly giveUpAfterMs?: number;
  /** The clock, resolved where the process is assembled. */
  readonly now: () => Date;
  /**
   * The metrics handle of the tenant whose receipts these are: in a process serving several,
   * the fetch counts carry the tenant's label. @defaultValue the handle of a process of one
   * tenant (no label)
   */
  readonly metrics?: TenantMetrics;
}

export type ReceiptOutcome =
  | { readonly outcome: 'archived'; readonly receipt: ArchivedReceipt }
  /** This outbox row was done before (handed out twice): nothing fetched. */
  | { readonly outcome: 'already_done' }
  | { readonly outcome: 'retry_later'; readonly nextAttemptAt: string; readonly attempt: number }
  | { readonly outcome: 'discrepancy'; readonly discrepancy: DiscrepancySummary };

const MINUTE = 60_000;
export const DEFAULT_RECEIPT_RETRY_DELAYS_MS: readonly number[] = [
  MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  60 * MINUTE,
  120 * MINUTE,
  240 * MINUTE,
];
export const DEFAULT_RECEIPT_GIVE_UP_AFTER_MS = 24 * 60 * MINUTE;

/** What one fetch answered, before anything is written. */
type Fetched =
  | { readonly kind: 'html'; readonly html: string }
  | { readonly kind: 'not_ready' }
  | { readonly kind: 'not_found'; readonly error: NotFoundError };

function checkRequest(request: ReceiptRequest, outboxId: number | undefined): void {
  if (!RECEIPT_KINDS.includes(request.kind) || typeof request.id !== 'string' || !request.id) {
    throw new Error(
      `receipt follow-up${outboxId !== undefined ? ` (outbox row ${outboxId})` : ''} names no payment intent or transfer: ${JSON.stringify({ kind: request.kind, id: request.id })}`,
    );
  }
}

async function fetchHtml(deps: ReceiptDependencies, request: ReceiptRequest): Promise<Fetched> {
  try {
    // The path takes a transaction id; the flag saying so has no documented name, so none is sent.
    // Receipts wait behind the books for the service's budget (docs/receipts.md).
    const answer = await deps.upstream.getReceiptHtml(request.id, {}, { lane: 'receipts' });
    return { kind: 'html', html: answer.view };
  } catch (error) {
    if (error instanceof UnsupportedActionError) return { kind: 'not_ready' };
    if (error instanceof NotFoundError) return { kind: 'not_found', error };
    throw error;
  }
}

/**
 * Fetches and archives the receipt of one settled payment intent or transfer.
 * - 200: archived (content-addressed; an identical refetch adds nothing);
 * - 409 (not ready yet): a new outbox row retries it later with back-off; a day after the first
 *   409, a `receipt_unavailable` discrepancy instead;
 * - 404: a `receipt_not_found` discrepancy at once (the service does not know the item);
 * - anything else is thrown, for the job's own retries.
 * Idempotent by the outbox row's id: a row already consumed is not fetched again. Each settled
 * status asks once (an intent that failed, then succeeded on a new attempt, asks twice): an
 * unchanged receipt adds nothing, a changed one is archived beside the first.
 */
export async function fetchReceipt(
  deps: ReceiptDependencies,
  request: ReceiptRequest,
  outboxId?: number,
): Promise<ReceiptOutcome> {
  checkRequest(request, outboxId);
  if (outboxId !== undefined && (await isOutboxConsumed(deps.db, outboxId))) {
    return { outcome: 'already_done' };
  }
  const [result] = await fetchReceipts(deps, [
    { request, ...(outboxId !== undefined ? { outboxId } : {}) },
  ]);
  if ('error' in result!) throw result.error;
  return result!.outcome;
}

/** One receipt of a follow-up batch: the request its outbox row carries, and the row. */
export interface ReceiptBatchRow {
  readonly request: ReceiptRequest;
  readonly outboxId?: number;
}

/** Each row's outcome, or what it threw (that row alone is retried). */
export type ReceiptBatchResult = { readonly outcome: ReceiptOutcome } | { readonly error: unknown };

/**
 * {@link fetchReceipt} for the rows of one follow-up batch whose outbox rows are not consumed
 * (the batch checked them in one query). The fetches run `concurrency` at a time; every
 * receipt fetched is then archived in one transaction (`archiveReceipts`: one commit per
 * batch, not per receipt). A 409 or a 404 is recorded in its own transaction, as alone. A row
 * that throws, or every archived row when their transaction fails, gets `{ error }`.
 */
export async function fetchReceipts(
  deps: ReceiptDependencies,
  rows: readonly ReceiptBatchRow[],
  concurrency = 8,
): Promise<ReceiptBatchResult[]> {
  const results: (ReceiptBatchResult | undefined)[] = rows.map(() => undefined);
  const fetched: (Fetched | undefined)[] = rows.map(() => undefined);
  const limit = pLimit(concurrency);
  await Promise.all(
    rows.map(({ request, outboxId }, index) =>
      limit(async () => {
        try {
          checkRequest(request, outboxId);
          fetched[index] = await fetchHtml(deps, request);
        } catch (error) {
          results[index] = { error };
        }
      }),
    ),
  );
  const answered = rows.flatMap((row, index) => {
    const answer = fetched[index];
    return answer?.kind === 'html' ? [{ row, index, html: answer.html }] : [];
  });
  if (answered.length > 0) {
    const fetchedAt = deps.now().toISOString();
    try {
      const archived = await archiveReceipts(
        deps.db,
        deps.dir,
        answered.map(({ row, html }) => ({
          resourceKind: row.request.kind,
          resourceId: row.request.id,
          html,
          fetchedAt,
          ...(row.outboxId !== undefined ? { outboxId: row.outboxId } : {}),
        })),
      );
      archived.forEach((receipt, n) => {
        const { row, index } = answered[n]!;
        noteArchived(deps, row.request, receipt);
        results[index] = { outcome: { outcome: 'archived', receipt } };
      });
    } catch (error) {
      for (const { index } of answered) results[index] = { error };
    }
  }
  for (const [index, { request, outboxId }] of rows.entries()) {
    const answer = fetched[index];
    if (answer === undefined || answer.kind === 'html') continue;
    try {
      const outcome =
        answer.kind === 'not_ready'
          ? await notReadyYet(deps, request, outboxId)
          : await giveUp(
              deps,
              request,
              outboxId,
              'receipt_not_found',
              { status: 404, message: answer.error.message },
              answer.error.body,
            );
      results[index] = { outcome };
    } catch (error) {
      results[index] = { error };
    }
  }
  return results as ReceiptBatchResult[];
}

/** One fetch in `paysync_receipt_fetches_total`, by outcome. */
function countFetch(deps: ReceiptDependencies, outcome: string): void {
  (deps.metrics ?? soleTenantMetrics).inc(receiptFetchesTotal, { outcome });
}

function noteArchived(
  deps: ReceiptDependencies,
  request: ReceiptRequest,
  receipt: ArchivedReceipt,
): void {
  countFetch(deps, receipt.isNew ? 'archived' : 'unchanged');
  deps.logger.info(
    {
      kind: request.kind,
      id: request.id,
      sha256: receipt.sha256,
      size: receipt.size,
      new: receipt.isNew,
    },
    receipt.isNew
      ? `receipt archived: ${request.kind} ${request.id}`
      : `receipt unchanged: ${request.kind} ${request.id}`,
  );
}

async function notReadyYet(
  deps: ReceiptDependencies,
  request: ReceiptRequest,
  outboxId: number | undefined,
): Promise<ReceiptOutcome> {
  const now = deps.now();
  const attempt = request.attempt ?? 1;
  const firstAttemptAt = request.firstAttemptAt ?? now.toISOString();
  const giveUpAfterMs = deps.giveUpAfterMs ?? DEFAULT_RECEIPT_GIVE_UP_AFTER_MS;
  const delays = deps.retryDelaysMs ?? DEFAULT_RECEIPT_RETRY_DELAYS_MS;
  const delay = delays[Math.min(attempt - 1, delays.length - 1)] ?? MINUTE;
  const nextAt = new Date(now.getTime() + delay);
  if (nextAt.getTime() - Date.parse(firstAttemptAt) > giveUpAfterMs) {
    return giveUp(deps, request, outboxId, 'receipt_unavailable', {
      status: 409,
      attempts: attempt,
      firstAttemptAt,
      message: `the service still had no receipt ${Math.round(giveUpAfterMs / 3_600_000)} h after the first try`,
    });
  }
  const nextAttemptAt = nextAt.toISOString();
  countFetch(deps, 'retry_later');
  await deps.db.transaction().execute(async (trx) => {
    await addToOutbox(trx, {
      kind: 'receipt',
      // One retry row per attempt: this row handed out twice schedules one retry.
      dedupeKey: `receipt:${request.kind}:${request.id}:${request.status ?? '-'}:try-${attempt + 1}`,
      payload: { ...request, attempt: attempt + 1, firstAttemptAt },
      availableAt: nextAttemptAt,
      createdAt: now.toISOString(),
    });
    if (outboxId !== undefined) await markOutboxConsumed(trx, outboxId, now.toISOString());
  });
  deps.logger.info(
    { kind: request.kind, id: request.id, attempt, nextAttemptAt },
    `receipt not ready (409): ${request.kind} ${request.id}, next try at ${nextAttemptAt}`,
  );
  return { outcome: 'retry_later', nextAttemptAt, attempt: attempt + 1 };
}

/** Records the discrepancy and its alert (through the outbox) with the row's stamp, at once. */
async function giveUp(
  deps: ReceiptDependencies,
  request: ReceiptRequest,
  outboxId: number | undefined,
  kind: 'receipt_not_found' | 'receipt_unavailable',
  detail: Record<string, unknown>,
  rawBody?: unknown,
): Promise<ReceiptOutcome> {
  countFetch(deps, kind === 'receipt_not_found' ? 'not_found' : 'unavailable');
  const at = deps.now().toISOString();
  const discrepancy = await deps.db.transaction().execute(async (trx) => {
    const recorded = await recordDiscrepancy(trx, {
      kind,
      resourceKind: request.kind,
      resourceId: request.id,
      detail: { operation: 'getReceiptHtml', ...detail },
      ...(rawBody !== undefined ? { rawBody } : {}),
      dedupeKey: `${kind}:${request.kind}:${request.id}`,
      createdAt: at,
    });
    if (recorded.isNew) {
      await addToOutbox(trx, {
        kind: 'alert',
        dedupeKey: `alert:discrepancy:${recorded.discrepancy.id}`,
        payload: {
          reason: 'discrepancy',
          kind: request.kind,
          id: request.id,
          discrepancyId: recorded.discrepancy.id,
          discrepancyKind: kind,
        },
        createdAt: at,
      });
    }
    if (outboxId !== undefined) await markOutboxConsumed(trx, outboxId, at);
    return recorded.discrepancy;
  });
  deps.logger.warn(
    { kind: request.kind, id: request.id, discrepancy: kind },
    `receipt given up: ${kind} for ${request.kind} ${request.id}`,
  );
  return { outcome: 'discrepancy', discrepancy };
}
