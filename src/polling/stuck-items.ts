import type { JanitorSettings } from '../config/index.ts';
import {
  markStuck,
  recordDiscrepancy,
  stuckCandidates,
  type StuckCandidate,
  type StuckRule,
} from '../ledger/index.ts';
import { notifyOutbox } from '../outbox/index.ts';
import { addFollowUps } from '../reconcile/index.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';

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

/** What flagging stuck items needs (a part of the janitor's dependencies). */
export interface StuckDependencies {
  readonly db: Kysely<Database>;
  readonly settings: JanitorSettings;
}

/**
 * Records one `stuck` discrepancy per item past its SLA (the dedupe key and the link on the
 * item make a second run a no-op), and writes the alert follow-up to the outbox in the
 * same transaction. The ledger resolves it when the item settles. Returns how many items were newly flagged.
 */
export async function flagStuckItems(deps: StuckDependencies, now: Date): Promise<number> {
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
          // The alert commits with the discrepancy (outbox): never lost to a Redis outage.
          await addFollowUps(
            trx,
            [
              {
                type: 'alert',
                reason: 'discrepancy',
                kind: item.kind,
                id: item.id,
                status: item.status,
                discrepancyId: discrepancy.id,
                discrepancyKind: 'stuck',
              },
            ],
            now.toISOString(),
          );
        }
      }
      return alerts;
    });
    if (recorded.length > 0) notifyOutbox();
    flagged += recorded.length;
  }
  return flagged;
}
