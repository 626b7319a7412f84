import type { Executor } from '../ledger/index.ts';
import type { BalanceSnapshotRow, SnapshotKind } from './balance-snapshot.table.ts';

export interface SnapshotBalance {
  readonly environment: string;
  readonly accountType: string;
  readonly currency: string;
  readonly amount: number;
  readonly asOf: string;
  readonly takenAt: string;
  readonly kind: SnapshotKind;
}

/** Stores one row per account and currency; a second snapshot of the same instant adds nothing. */
export async function insertSnapshot(
  db: Executor,
  balances: readonly SnapshotBalance[],
  raw: string,
): Promise<number> {
  if (balances.length === 0) return 0;
  const result = await db
    .insertInto('balance_snapshots')
    .values(
      balances.map((b) => ({
        environment: b.environment,
        account_type: b.accountType,
        currency: b.currency,
        amount: b.amount,
        as_of: b.asOf,
        taken_at: b.takenAt,
        kind: b.kind,
        raw,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['environment', 'account_type', 'currency', 'as_of']).doNothing(),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** The newest snapshot at or before `at` of each account and currency. */
export async function latestSnapshots(
  db: Executor,
  environment: string,
  at?: string,
): Promise<SnapshotBalance[]> {
  let query = db
    .selectFrom('balance_snapshots')
    .selectAll()
    .where('environment', '=', environment)
    .orderBy('as_of', 'desc')
    .orderBy('id', 'desc');
  if (at) query = query.where('as_of', '<=', at);
  const newest = new Map<string, SnapshotBalance>();
  // Bounded read: a deployment has a handful of accounts, so the newest few hundred rows hold
  // the latest of each.
  for (const row of await query.limit(500).execute()) {
    const key = `${row.account_type}|${row.currency}`;
    if (!newest.has(key)) newest.set(key, toSnapshot(row));
  }
  return [...newest.values()].sort(
    (a, b) => a.accountType.localeCompare(b.accountType) || a.currency.localeCompare(b.currency),
  );
}

/** Snapshots exactly at one instant (an end-of-day snapshot, for example). */
export async function snapshotsAt(
  db: Executor,
  environment: string,
  asOf: string,
): Promise<SnapshotBalance[]> {
  const rows = await db
    .selectFrom('balance_snapshots')
    .selectAll()
    .where('environment', '=', environment)
    .where('as_of', '=', asOf)
    .orderBy('account_type')
    .orderBy('currency')
    .execute();
  return rows.map(toSnapshot);
}

/** Snapshots at any of `instants` (end-of-day snapshots of several days), by instant. */
export async function snapshotsAtEach(
  db: Executor,
  environment: string,
  instants: readonly string[],
): Promise<SnapshotBalance[]> {
  if (instants.length === 0) return [];
  const rows = await db
    .selectFrom('balance_snapshots')
    .selectAll()
    .where('environment', '=', environment)
    .where('as_of', 'in', [...instants])
    .orderBy('as_of')
    .orderBy('account_type')
    .orderBy('currency')
    .execute();
  return rows.map(toSnapshot);
}

/** The history of one account, oldest first. */
export async function snapshotHistory(
  db: Executor,
  options: { environment: string; accountType?: string; since?: string; limit?: number },
): Promise<SnapshotBalance[]> {
  let query = db
    .selectFrom('balance_snapshots')
    .selectAll()
    .where('environment', '=', options.environment);
  if (options.accountType) query = query.where('account_type', '=', options.accountType);
  if (options.since) query = query.where('as_of', '>=', options.since);
  const rows = await query
    .orderBy('as_of')
    .orderBy('account_type')
    .orderBy('currency')
    .limit(options.limit ?? 10_000)
    .execute();
  return rows.map(toSnapshot);
}

function toSnapshot(row: BalanceSnapshotRow): SnapshotBalance {
  return {
    environment: row.environment,
    accountType: row.account_type,
    currency: row.currency,
    amount: Number(row.amount),
    asOf: row.as_of,
    takenAt: row.taken_at,
    kind: row.kind,
  };
}
