import { notifyOutbox } from '../outbox/index.ts';
import { fetchReceipt, type ReceiptDependencies, type ReceiptOutcome } from './fetch-receipt.ts';
import { settledWithoutReceipt, type SettledItem } from './receipt.repository.ts';

export interface BackfillReceiptsOptions {
  /** Only items last changed at or after this time (UTC ISO 8601). @defaultValue all */
  readonly since?: string;
  /** Fetches at once. @defaultValue 4 */
  readonly concurrency?: number;
  /** Called after each item, for progress. */
  readonly onItem?: (
    item: SettledItem,
    outcome: ReceiptOutcome | { outcome: 'error'; reason: string },
  ) => void;
}

export interface BackfillReceiptsResult {
  readonly candidates: number;
  readonly archived: number;
  readonly retryLater: number;
  readonly discrepancies: number;
  readonly errors: number;
}

/**
 * Fetches the receipts missing for settled payment intents and transfers (those settled
 * before receipts were archived, or whose fetch failed for good). The same policy as the
 * workers: a 409 leaves a retry in the outbox for the daemon, a 404 a discrepancy.
 */
export async function backfillReceipts(
  deps: ReceiptDependencies,
  options: BackfillReceiptsOptions = {},
): Promise<BackfillReceiptsResult> {
  const items = await settledWithoutReceipt(deps.db, options.since ? { since: options.since } : {});
  const counts = { archived: 0, retryLater: 0, discrepancies: 0, errors: 0 };
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      try {
        const result = await fetchReceipt(deps, {
          kind: item.kind,
          id: item.id,
          status: item.status,
        });
        if (result.outcome === 'archived' || result.outcome === 'already_done')
          counts.archived += 1;
        else if (result.outcome === 'retry_later') counts.retryLater += 1;
        else counts.discrepancies += 1;
        options.onItem?.(item, result);
      } catch (error) {
        counts.errors += 1;
        options.onItem?.(item, {
          outcome: 'error',
          reason: error instanceof Error ? error.message : String(error),
        });
      }
    }
  };
  const concurrency = Math.max(1, options.concurrency ?? 4);
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  if (counts.retryLater > 0 || counts.discrepancies > 0) notifyOutbox();
  return { candidates: items.length, ...counts };
}
