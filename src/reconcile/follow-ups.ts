import type { ApplyOutcome, DiscrepancySummary, Executor } from '../ledger/index.ts';
import { addToOutbox } from '../outbox/index.ts';
import type { FollowUpJobData } from '../queues/index.ts';
import type { ResourceKind } from '../resources/index.ts';

/** Kinds the service issues receipts for (`GET /receipts/html/{id}`). */
const RECEIPT_KINDS: ReadonlySet<ResourceKind> = new Set(['payment_intent', 'transfer']);

/** Statuses the service has a receipt for: a settled item, successful or failed. */
const RECEIPT_STATUSES: ReadonlySet<string> = new Set(['successful', 'failed']);

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
 * What a change calls for: an alert when a transfer has just failed or something did not
 * reconcile, a receipt when a payment intent or transfer has just settled (successful or failed).
 */
export function followUpsFor(outcomes: readonly ApplyOutcome[]): FollowUpJobData[] {
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
    if (RECEIPT_KINDS.has(outcome.kind) && RECEIPT_STATUSES.has(outcome.status)) {
      if (becameNow(outcome.status)) {
        jobs.push({ type: 'receipt', kind: outcome.kind, id: outcome.id, status: outcome.status });
      }
    }
    for (const discrepancy of outcome.discrepancies) jobs.push(discrepancyAlert(discrepancy));
  }
  return jobs;
}

/**
 * Alerts for discrepancies recorded outside a booking (a sync that failed for good), in the
 * caller's transaction.
 */
export function addDiscrepancyAlerts(
  trx: Executor,
  discrepancies: readonly DiscrepancySummary[],
  at: string,
): Promise<number> {
  return addFollowUps(trx, discrepancies.map(discrepancyAlert), at);
}

/** One key per follow-up, so a replayed change never raises it twice. */
export function followUpDedupeKey(data: FollowUpJobData): string {
  const subject = `${data.kind}:${data.id}`;
  if (data.type === 'receipt') return `receipt:${subject}:${data.status}`;
  return data.reason === 'discrepancy'
    ? `alert:discrepancy:${data.discrepancyId ?? subject}`
    : `alert:${data.reason}:${subject}`;
}

/**
 * Writes the follow-ups to the outbox inside the caller's transaction (the one that made the
 * change), so they commit with it, stamped `at` (the change's time), carrying the change's
 * `traceparent` when traced; the outbox dispatcher hands them to the workers afterwards.
 */
export async function addFollowUps(
  trx: Executor,
  jobs: readonly FollowUpJobData[],
  at: string,
  traceparent?: string,
): Promise<number> {
  let added = 0;
  for (const job of jobs) {
    const { type, ...payload } = job;
    const result = await addToOutbox(trx, {
      kind: type,
      dedupeKey: followUpDedupeKey(job),
      payload,
      createdAt: at,
      traceparent,
    });
    if (result.isNew) added += 1;
  }
  return added;
}

/**
 * The items a change has just settled: they pay their expectations in the same transaction
 * (docs/expectations.md, "Matching"), whichever path applied them (a sync batch, one resource,
 * a sweep's or a backfill's page).
 */
export function justSettled(outcomes: readonly ApplyOutcome[]): ApplyOutcome[] {
  return outcomes.filter(
    (o) => o.changed && o.status === 'successful' && o.previousStatus !== 'successful',
  );
}
