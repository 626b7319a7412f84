import type { Logger } from 'pino';
import type { ApplyOutcome, DiscrepancySummary } from '../ledger/index.ts';
import {
  enqueueFollowUp,
  type FollowUpJobData,
  type Queues,
  type ResourceKind,
} from '../queues/index.ts';
import { reasonOf } from '../error-reason.ts';

/** Kinds the service issues receipts for (`GET /receipts/html/{id}`). */
const RECEIPT_KINDS: ReadonlySet<ResourceKind> = new Set(['payment_intent', 'transfer']);

function discrepancyAlert(discrepancy: DiscrepancySummary): FollowUpJobData {
  return {
    type: 'alert',
    reason: 'discrepancy',
    kind: (discrepancy.resourceKind ?? 'transfer') as ResourceKind,
    id: discrepancy.resourceId ?? String(discrepancy.id),
    discrepancyId: discrepancy.id,
    discrepancyKind: discrepancy.kind,
  };
}

/**
 * What a committed change calls for: an alert when a transfer has just failed or something
 * did not reconcile, a receipt when an item has just settled.
 */
export function followUpsFor(
  outcomes: readonly ApplyOutcome[],
  discrepancies: readonly DiscrepancySummary[] = [],
): FollowUpJobData[] {
  const jobs: FollowUpJobData[] = [];
  for (const outcome of outcomes) {
    const becameNow = (status: string) =>
      outcome.changed && outcome.status === status && outcome.previousStatus !== status;
    if (outcome.kind === 'transfer' && becameNow('failed')) {
      jobs.push({
        type: 'alert',
        reason: 'transfer_failed',
        kind: 'transfer',
        id: outcome.id,
        status: 'failed',
      });
    }
    if (RECEIPT_KINDS.has(outcome.kind) && becameNow('successful')) {
      jobs.push({ type: 'receipt', kind: outcome.kind, id: outcome.id, status: 'successful' });
    }
    for (const discrepancy of outcome.discrepancies) jobs.push(discrepancyAlert(discrepancy));
  }
  for (const discrepancy of discrepancies) jobs.push(discrepancyAlert(discrepancy));
  return jobs;
}

/**
 * Enqueues follow-ups after the commit. A failure is logged, not thrown: the ledger change is
 * committed, and retrying the sync would find nothing new to follow up on.
 */
export async function enqueueFollowUps(
  queues: Queues,
  jobs: readonly FollowUpJobData[],
  logger: Logger,
): Promise<void> {
  for (const job of jobs) {
    try {
      await enqueueFollowUp(queues, job);
    } catch (error) {
      logger.warn(
        { followUp: job, reason: reasonOf(error) },
        'could not enqueue a follow-up after the commit; it is lost (the ledger change is kept)',
      );
    }
  }
}
