import type { Executor } from '../ledger/index.ts';
import type { SnapshotBalance } from './balance-snapshot.repository.ts';
import type { LowBalanceThreshold } from '../config/index.ts';

/** An account that has just gone under its threshold. */
export interface LowBalanceCrossing {
  readonly environment: string;
  readonly accountType: string;
  readonly currency: string;
  readonly amount: number;
  readonly minimum: number;
  readonly asOf: string;
  /** How many times this account has gone under, this one included. */
  readonly crossings: number;
}

/**
 * Updates each watched account's under/over state from a current snapshot and returns the
 * accounts that went under: once per crossing, not once per snapshot. The conditional update
 * decides between two concurrent snapshots, so a crossing is reported once.
 */
export async function checkLowBalances(
  db: Executor,
  environment: string,
  thresholds: readonly LowBalanceThreshold[],
  balances: readonly SnapshotBalance[],
): Promise<LowBalanceCrossing[]> {
  const crossings: LowBalanceCrossing[] = [];
  for (const threshold of thresholds) {
    const balance = balances.find(
      (b) => b.accountType === threshold.accountType && b.currency === threshold.currency,
    );
    if (!balance) continue;
    const below = balance.amount < threshold.minimum ? 1 : 0;
    await db
      .insertInto('low_balance_state')
      .values({
        environment,
        account_type: threshold.accountType,
        currency: threshold.currency,
        below: 0,
        threshold: threshold.minimum,
        amount: balance.amount,
        changed_at: balance.asOf,
        crossings: 0,
      })
      .onConflict((oc) => oc.columns(['environment', 'account_type', 'currency']).doNothing())
      .execute();
    const changed = await db
      .updateTable('low_balance_state')
      .where('environment', '=', environment)
      .where('account_type', '=', threshold.accountType)
      .where('currency', '=', threshold.currency)
      .set((eb) => ({
        below,
        threshold: threshold.minimum,
        amount: balance.amount,
        changed_at: balance.asOf,
        crossings: below === 1 ? eb('crossings', '+', 1) : eb.ref('crossings'),
      }))
      .where('below', '=', below === 1 ? 0 : 1)
      .returning('crossings')
      .executeTakeFirst();
    if (changed && below === 1) {
      crossings.push({
        environment,
        accountType: threshold.accountType,
        currency: threshold.currency,
        amount: balance.amount,
        minimum: threshold.minimum,
        asOf: balance.asOf,
        crossings: Number(changed.crossings),
      });
    }
  }
  return crossings;
}
