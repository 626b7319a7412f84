import type { Executor } from '../ledger/index.ts';
import { findResource } from '../resource-view/index.ts';
import { openOutboxEntries } from '../outbox/index.ts';
import type { ReceiptKind } from './receipt-kind.ts';

/**
 * Why a payment intent or transfer has no archived receipt, in one line that says what to do.
 * `reason` is a stable word for `--json`.
 */
export async function explainMissingReceipt(
  db: Executor,
  kind: ReceiptKind,
  id: string,
): Promise<{ reason: string; message: string }> {
  const label = kind === 'transfer' ? 'transfer' : 'payment intent';
  const view = await findResource(db, id, { kind });
  if (!view) {
    return {
      reason: 'unknown_resource',
      message: `no ${label} ${id} in the database; check the id, or run \`paysync sweep\` if it is new`,
    };
  }
  const status = view.record.status;
  const given = view.discrepancies.find(
    (d) => d.kind === 'receipt_not_found' || d.kind === 'receipt_unavailable',
  );
  if (given) {
    const why =
      given.kind === 'receipt_not_found'
        ? 'the service answered 404 (it has no such transaction)'
        : 'the service answered 409 (not ready) for a day';
    return {
      reason: given.kind,
      message: `no receipt for ${label} ${id}: ${why}; discrepancy ${given.id} recorded at ${given.createdAt}`,
    };
  }
  if (status !== 'successful' && status !== 'failed') {
    return {
      reason: 'not_settled',
      message: `${label} ${id} is ${status}: the service issues a receipt once it is successful or failed`,
    };
  }
  const [pending] = await openOutboxEntries(db, {
    kind: 'receipt',
    dedupeKeyPrefix: `receipt:${kind}:${id}:`,
  });
  if (pending) {
    const attempt = typeof pending.payload.attempt === 'number' ? pending.payload.attempt : 1;
    const message = pending.dispatchedAt
      ? `receipt of ${label} ${id} not fetched yet: try ${attempt} was handed to the workers at ${pending.dispatchedAt}; if their retries ran out (a failed follow-up job), run \`paysync receipts backfill\``
      : `receipt of ${label} ${id} not fetched yet: try ${attempt} is due at ${pending.availableAt} (the workers fetch it)`;
    return { reason: 'pending', message };
  }
  return {
    reason: 'not_fetched',
    message: `no receipt for ${label} ${id} (${status}): it settled before receipts were archived, or its fetch failed → run \`paysync receipts backfill\``,
  };
}
