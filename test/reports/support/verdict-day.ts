import { takeBalanceSnapshot, type SnapshotRequest } from '../../../src/balances/index.ts';
import { syncResource } from '../../../src/reconcile/index.ts';
import type { CoverageCheck } from '../../../src/reports/index.ts';
import { createSyncContext, type SyncContext } from '../../processing/support/sync-context.ts';
import { createSyncedTransfer } from '../../support/synced-transfer.ts';

/** The books day the verdict tests judge, and the midnight that closes it (UTC). */
export const DAY = '2026-11-20';
export const MIDNIGHT = '2026-11-21T00:00:00.000Z';
/** A coverage check that finds the sweeps covered the day. */
export const covered: CoverageCheck = async () => undefined;

/** A simulator funded at 08:00 on DAY whose frozen clock then shows 10:00. */
export async function dayContext(): Promise<SyncContext> {
  const context = await createSyncContext({
    sim: {
      startAt: new Date(`${DAY}T08:00:00.000Z`),
      initialBalances: [{ accountType: 'transfer', currency: 'XOF', amount: 1_000_000 }],
    },
  });
  context.sim.control.advance(2 * 3_600_000);
  return context;
}

/** Creates a transfer to `number` and syncs it once; returns its id. */
export function createTransfer(
  context: SyncContext,
  amount: number,
  number: string,
): Promise<string> {
  return createSyncedTransfer(context.deps, context.sim, { amount, number });
}

/** Syncs a known transfer again, by id. */
export async function syncTransfer(context: SyncContext, id: string): Promise<void> {
  await syncResource(context.deps, { kind: 'transfer', id, via: 'poll' }, { attempt: 1 });
}

/** A balance snapshot (a manual one unless `request` says otherwise); throws when it could not be taken. */
export async function snapshot(context: SyncContext, request: SnapshotRequest = {}): Promise<void> {
  const outcome = await takeBalanceSnapshot(
    {
      db: context.database.db,
      upstream: context.deps.upstream,
      logger: context.deps.logger,
      environment: 'sandbox',
      now: () => new Date(),
    },
    request,
  );
  if (!outcome.ok) throw new Error(outcome.problem);
}

/** The balance task's end-of-day snapshot at MIDNIGHT; throws when it could not be taken. */
export function endOfDaySnapshot(context: SyncContext): Promise<void> {
  return snapshot(context, { at: MIDNIGHT, kind: 'end_of_day' });
}

/**
 * A reconciled day: one transfer of 10,000 XOF paid and booked, and the end-of-day snapshot
 * agrees with the ledger.
 */
export async function reconciledDay(): Promise<SyncContext> {
  const context = await dayContext();
  const id = await createTransfer(context, 10_000, '+221770001234');
  context.sim.control.advance(10_000);
  await syncTransfer(context, id);
  context.sim.control.advance(15 * 3_600_000);
  await endOfDaySnapshot(context);
  return context;
}
