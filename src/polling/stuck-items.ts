import type { JanitorSettings } from '../config.ts';
import {
  markStuck,
  recordDiscrepancy,
  stuckCandidates,
  type StuckCandidate,
  type StuckRule,
} from '../ledger/index.ts';
import { enqueueFollowUp } from '../queues/index.ts';
import type { JanitorDependencies } from './janitor.ts';

/** Items flagged per rule per run; the rest wait for the next run. */
const STUCK_BATCH = 1000;

/** The SLA rules of docs/processing.md: one per kind, and `pending_manual` refunds apart. */
export function stuckRules(settings: JanitorSettings, now: Date): StuckRule[] {
  const before = (ms: number) => new Date(now.getTime() - ms).toISOString();
  const sla = settings.stuckAfterMs;
  return [
    { kind: 'transfer', createdBefore: before(sla.transfer) },
    { kind: 'payment_intent', createdBefore: before(sla.payment_intent) },
    ...(['refund', 'payment_refund'] as const).flatMap((kind) => [
      { kind, exceptStatuses: ['pending_manual'], createdBefore: before(sla.refund) },
      { kind, statuses: ['pending_manual'], createdBefore: before(sla.pending_manual) },
    ]),
  ];
}

/** `49h 5m`: an age a person reads at a glance. */
export function formatAge(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

/**
 * Records one `stuck` discrepancy per item past its SLA (the dedupe key and the link on the
 * item make a second run a no-op), and raises the alert follow-up after the commit. The
 * ledger resolves it when the item settles. Returns how many items were newly flagged.
 */
export async function flagStuckItems(deps: JanitorDependencies, now: Date): Promise<number> {
  let flagged = 0;
  for (const rule of stuckRules(deps.settings, now)) {
    const candidates = await stuckCandidates(deps.db, rule, STUCK_BATCH);
    if (candidates.length === 0) continue;
    const recorded = await deps.db.transaction().execute(async (trx) => {
      const alerts: { item: StuckCandidate; discrepancyId: number }[] = [];
      for (const item of candidates) {
        const ageMs = now.getTime() - new Date(item.since).getTime();
        const { discrepancy } = await recordDiscrepancy(trx, {
          kind: 'stuck',
          resourceKind: item.kind,
          resourceId: item.id,
          detail: {
            status: item.status,
            since: item.since,
            age: formatAge(ageMs),
            ageSeconds: Math.floor(ageMs / 1000),
            slaSeconds: Math.floor((now.getTime() - Date.parse(rule.createdBefore)) / 1000),
            lastSyncedAt: item.lastSyncedAt,
          },
          dedupeKey: `stuck:${item.kind}:${item.id}:${item.since}`,
          createdAt: now.toISOString(),
        });
        if (await markStuck(trx, item, discrepancy.id)) {
          alerts.push({ item, discrepancyId: discrepancy.id });
        }
      }
      return alerts;
    });
    for (const { item, discrepancyId } of recorded) {
      try {
        await enqueueFollowUp(deps.queues, {
          type: 'alert',
          reason: 'discrepancy',
          kind: item.kind,
          id: item.id,
          status: item.status,
          discrepancyId,
          discrepancyKind: 'stuck',
        });
      } catch (error) {
        // As with every follow-up: the discrepancy is committed, the alert is best effort.
        deps.logger.warn(
          { kind: item.kind, id: item.id, reason: error instanceof Error ? error.message : error },
          'could not queue the stuck alert',
        );
      }
    }
    flagged += recorded.length;
  }
  return flagged;
}
