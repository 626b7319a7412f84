import { takeBalanceSnapshot } from '../../../src/balances/index.ts';
import { syncResource } from '../../../src/reconcile/index.ts';
import type { CoverageCheck } from '../../../src/reports/index.ts';
import { createSyncContext, type SyncContext } from '../../processing/support/sync-context.ts';

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
export async function createTransfer(
  context: SyncContext,
  amount: number,
  number: string,
): Promise<string> {
  const created = context.sim.control.createTransfer({ amount, destination: { number } });
  await syncResource(
    context.deps,
    // Transfers are read by reference; the mirror remembers it for later syncs by id.
    {
      kind: 'transfer',
      id: created.id,
      reference: String(created.resource.reference),
      via: 'poll',
    },
    { attempt: 1 },
  );
  return created.id;
}

/** Syncs a known transfer again, by id. */
export async function syncTransfer(context: SyncContext, id: string): Promise<void> {
  await syncResource(context.deps, { kind: 'transfer', id, via: 'poll' }, { attempt: 1 });
}

/** The balance task's end-of-day snapshot at MIDNIGHT; throws when it could not be taken. */
export async function endOfDaySnapshot(context: SyncContext): Promise<void> {
  const outcome = await takeBalanceSnapshot(
    {
      db: context.database.db,
      upstream: context.deps.upstream,
      logger: context.deps.logger,
      environment: 'sandbox',
      now: () => new Date(),
    },
    { at: MIDNIGHT, kind: 'end_of_day' },
  );
  if (!outcome.ok) throw new Error(outcome.problem);
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
