import { closeCoveredInboxRows } from '../inbox/index.ts';
import { recordFetchCoverage } from '../ledger/index.ts';
import { enqueueSync, type SyncJobData } from '../queues/enqueue.ts';
import { kindOfId } from '../resources/index.ts';
import type { ResolvedSyncDependencies } from './sync-dependencies.ts';
import type { SyncResult } from './sync-result.ts';
import { UnknownResourceError } from './unknown-resource-error.ts';

/** The intents a link's attempts name; the attempt shape is not documented, so read loosely. */
function paymentIntentsOf(link: Record<string, unknown>): string[] {
  const attempts = Array.isArray(link.attempts) ? link.attempts : [];
  const ids = attempts
    .map((attempt) =>
      typeof attempt === 'object' && attempt !== null
        ? (attempt as Record<string, unknown>).paymentIntentId
        : undefined,
    )
    .filter((id): id is string => kindOfId(id) === 'payment_intent');
  return [...new Set(ids)];
}

/**
 * A payment link holds no money of its own: the money moves in the payment intents made
 * through it. So a link event fetches the link and syncs each of its intents.
 */
export async function syncPaymentLink(
  deps: ResolvedSyncDependencies,
  data: SyncJobData,
  upToId: number,
): Promise<SyncResult> {
  const fetchStartedAt = deps.now().toISOString();
  let link: Record<string, unknown> | undefined;
  if (data.id) {
    link = await deps.upstream.getPaymentLink(data.id);
  } else if (data.reference) {
    const listed = await deps.upstream.listPaymentLinks({ purchaseReference: data.reference });
    const links = Array.isArray(listed) ? (listed as Record<string, unknown>[]) : [];
    link = links.find((candidate) => candidate.purchaseReference === data.reference);
  }
  if (!link) {
    throw new UnknownResourceError(
      'payment_link',
      data.id ?? data.reference ?? '?',
      'no such payment link',
    );
  }
  const paymentIntents = paymentIntentsOf(link);
  for (const id of paymentIntents) {
    await enqueueSync(deps.queues, { kind: 'payment_intent', id, via: data.via });
  }
  const handle = { kind: 'payment_link' as const, id: String(link.id), reference: data.reference };
  // The coverage record and the closing in one transaction: a processed row always has the
  // record that proves a fetch began after it arrived (docs/audit.md).
  const closedRows = await deps.db.transaction().execute(async (trx) => {
    await recordFetchCoverage(trx, handle, { upToInboxId: upToId, fetchStartedAt });
    return closeCoveredInboxRows(trx, handle, {
      upToId,
      status: 'processed',
      at: deps.now().toISOString(),
    });
  });
  return { outcome: 'linked', paymentIntents, closedRows };
}
