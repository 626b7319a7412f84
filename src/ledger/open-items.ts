import type { Executor } from './executor.ts';
import type { LedgerResourceKind } from './ledger-resource-kind.ts';

/** An item the mirror holds in a non-terminal state. */
export interface OpenItem {
  readonly kind: LedgerResourceKind;
  readonly id: string;
  readonly status: string;
  readonly amount: number;
  readonly currency: string;
  /** Whether a transfer is IRT (paid from `service:transfer-irt`); for refunds, its transfer's. */
  readonly isIrt: boolean;
  readonly createdAt: string | null;
  /** The service's updatedAt of the last state mirrored. */
  readonly updatedAt: string;
}

const OPEN = {
  payment_intent: ['payment_required', 'action_required', 'processing'],
  transfer: ['created', 'pending'],
  refund: ['created', 'pending', 'pending_manual'],
} as const;

/**
 * Items not yet terminal, oldest change first, at most `limit` of each kind: the candidates for
 * "settled at the service but not booked yet".
 */
export async function openItems(db: Executor, limit = 500): Promise<OpenItem[]> {
  const intents = await db
    .selectFrom('payment_intents')
    .select(['id', 'status', 'amount', 'currency', 'created_at', 'updated_at'])
    .where('status', 'in', [...OPEN.payment_intent])
    .orderBy('updated_at')
    .limit(limit)
    .execute();
  const transfers = await db
    .selectFrom('transfers')
    .select(['id', 'status', 'amount', 'currency', 'is_irt', 'created_at', 'updated_at'])
    .where('status', 'in', [...OPEN.transfer])
    .orderBy('updated_at')
    .limit(limit)
    .execute();
  const refunds = await db
    .selectFrom('refunds')
    .leftJoin('transfers', (join) =>
      join.onRef('transfers.id', '=', 'refunds.original_id').on('refunds.kind', '=', 'refund'),
    )
    .select([
      'refunds.kind',
      'refunds.id',
      'refunds.status',
      'refunds.amount',
      'refunds.currency',
      'refunds.created_at',
      'refunds.updated_at',
      'transfers.is_irt',
    ])
    .where('refunds.status', 'in', [...OPEN.refund])
    .orderBy('refunds.updated_at')
    .limit(limit)
    .execute();
  return [
    ...intents.map((row) => ({
      kind: 'payment_intent' as const,
      id: row.id,
      status: row.status,
      amount: Number(row.amount),
      currency: row.currency,
      isIrt: false,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    })),
    ...transfers.map((row) => ({
      kind: 'transfer' as const,
      id: row.id,
      status: row.status,
      amount: Number(row.amount),
      currency: row.currency,
      isIrt: row.is_irt === 1,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    })),
    ...refunds.map((row) => ({
      kind: row.kind,
      id: row.id,
      status: row.status,
      amount: Number(row.amount),
      currency: row.currency,
      isIrt: row.is_irt === 1,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    })),
  ];
}

/** The earliest instant any item or journal is known from: an opening balance goes before it. */
export async function earliestKnownInstant(db: Executor): Promise<string | undefined> {
  const candidates: (string | null | undefined)[] = [];
  const journal = await db
    .selectFrom('journals')
    .select((eb) => eb.fn.min('effective_at').as('at'))
    .where('entry_type', 'in', ['settlement', 'reversal'])
    .executeTakeFirst();
  candidates.push(journal?.at as string | null | undefined);
  for (const table of ['payment_intents', 'transfers', 'refunds'] as const) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.min('created_at').as('at'))
      .executeTakeFirst();
    candidates.push(row?.at as string | null | undefined);
  }
  const known = candidates.filter((c): c is string => typeof c === 'string');
  return known.length === 0 ? undefined : known.sort()[0];
}
