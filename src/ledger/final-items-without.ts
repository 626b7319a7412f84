import type { Expression } from 'kysely';
import type { Executor } from '../db/index.ts';

/** The mirror kinds whose final items a caller pairs with records of its own (receipts). */
export type FinalItemKind = 'payment_intent' | 'transfer';

/** A payment intent or transfer in a final state: `successful` or `failed`. */
export interface FinalItem {
  readonly kind: FinalItemKind;
  readonly id: string;
  readonly status: string;
  /** The service's updatedAt of the item, UTC ISO 8601 with ms. */
  readonly updatedAt: string;
}

/**
 * The caller's half of an anti-join: a subquery over the caller's own table that finds its record
 * of the mirror row of `kind` whose id is `mirrorId` (a correlated reference to that row). The
 * caller names its table, the ledger names its own, and the database runs them as one statement.
 */
export type RecordOfMirrorRow = (
  kind: FinalItemKind,
  mirrorId: Expression<string>,
) => Expression<unknown>;

/**
 * Payment intents and transfers that are successful or failed and have no record in `recordOf`,
 * oldest first; `since` limits them to those last changed at or after that time. One statement
 * per kind (`not exists`), so that a caller never reads every final item into memory to find
 * the few it has no record of.
 */
export async function finalItemsWithout(
  db: Executor,
  recordOf: RecordOfMirrorRow,
  options: { since?: string; limit?: number } = {},
): Promise<FinalItem[]> {
  const items: FinalItem[] = [];
  for (const [kind, table] of [
    ['payment_intent', 'payment_intents'],
    ['transfer', 'transfers'],
  ] as const) {
    let query = db
      .selectFrom(table)
      .select(['id', 'status', 'updated_at'])
      .where('status', 'in', ['successful', 'failed'])
      .where((eb) => eb.not(eb.exists(recordOf(kind, eb.ref(`${table}.id`)))));
    if (options.since !== undefined) query = query.where('updated_at', '>=', options.since);
    const rows = await query
      .orderBy('updated_at')
      .limit(options.limit ?? 1_000_000)
      .execute();
    for (const row of rows) {
      items.push({ kind, id: row.id, status: row.status, updatedAt: row.updated_at });
    }
  }
  return items.sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : 0));
}
