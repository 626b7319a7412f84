import type { Executor } from '../db/index.ts';
import { chunksOf } from '../db/index.ts';

/** The mirror's kinds an expectation may be paid by (payment links are paid through intents). */
export type SettledItemKind = 'payment_intent' | 'transfer' | 'refund' | 'payment_refund';

/** One item the service settled (`successful`), in the words expectations match on. */
export interface SettledLedgerItem {
  readonly kind: SettledItemKind;
  readonly id: string;
  /** `in`: money the merchant received (intents, refunds of transfers); `out`: money it paid. */
  readonly direction: 'in' | 'out';
  readonly currency: string;
  /** Integer minor units. */
  readonly amount: number;
  /** The service's updatedAt of the settled state, UTC ISO 8601 with ms. */
  readonly settledAt: string;
  /** A transfer's `reference`, an intent's `purchase_reference`; null for refunds. */
  readonly reference: string | null;
  readonly purchaseReference: string | null;
  /** A transfer's recipient number; an intent's payer number when its payload has one. */
  readonly counterparty: string | null;
  /** A transfer's description. */
  readonly description: string | null;
  /** For a refund: the transfer or intent it refunds. */
  readonly originalId: string | null;
  readonly status: string;
}

/** A window of settled items by currency, time and amount (all bounds inclusive). */
export interface SettledItemRange {
  readonly direction: 'in' | 'out';
  readonly currency: string;
  readonly settledFrom: string;
  readonly settledTo: string;
  readonly amountMin: number;
  readonly amountMax: number;
}

/** Which settled items to read: any item that meets any of the conditions given. */
export interface SettledItemSelector {
  /** Every settled item. */
  readonly all?: boolean;
  readonly ids?: readonly string[];
  /** Transfers' references and intents' purchase references. */
  readonly references?: readonly string[];
  /** Refunds of these transfers or intents. */
  readonly originalIds?: readonly string[];
  readonly ranges?: readonly SettledItemRange[];
}

const SETTLED = 'successful';
const RANGES_PER_QUERY = 50;

function stringField(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The payer number of an intent, when its payload carries one (the last payment's first). */
function payerNumber(raw: string): string | null {
  if (!raw.includes('honeNumber') && !raw.includes('"number"')) return null;
  const parsed = parseJson(raw) as { payments?: unknown; phoneNumber?: unknown } | undefined;
  const payments = Array.isArray(parsed?.payments) ? (parsed.payments as unknown[]) : [];
  for (const payment of [...payments].reverse()) {
    const p = payment as { phoneNumber?: unknown; number?: unknown } | null;
    const found = stringField(p?.phoneNumber) ?? stringField(p?.number);
    if (found !== null) return found;
  }
  return stringField(parsed?.phoneNumber);
}

function recipientNumber(destination: string): string | null {
  const parsed = parseJson(destination) as { number?: unknown } | undefined;
  return stringField(parsed?.number);
}

/** The columns every mirror table gives alike. */
interface SettledRow {
  readonly id: string;
  readonly status: string;
  readonly amount: number;
  readonly currency: string;
  readonly updated_at: string;
}

/** What only a kind knows of its item; the rest is null when it does not say. */
type KindFields = Pick<SettledLedgerItem, 'kind' | 'direction'> &
  Partial<
    Pick<
      SettledLedgerItem,
      'reference' | 'purchaseReference' | 'counterparty' | 'description' | 'originalId'
    >
  >;

/** What an item's kind does not say. */
const UNSAID = {
  reference: null,
  purchaseReference: null,
  counterparty: null,
  description: null,
  originalId: null,
} as const;

/** The item of a settled mirror row: its own columns, read alike, and what its kind adds. */
function settledItem(row: SettledRow, { kind, direction, ...said }: KindFields): SettledLedgerItem {
  return {
    kind,
    id: row.id,
    direction,
    currency: row.currency,
    amount: row.amount,
    settledAt: row.updated_at,
    ...UNSAID,
    ...said,
    status: row.status,
  };
}

// The three mirror tables share the columns filtered on here (id, currency, amount,
// updated_at); kysely cannot type one condition over three tables, so the builder is loose.
/* eslint-disable @typescript-eslint/no-explicit-any */
type Where = (eb: any) => any;

/**
 * Settled items of the mirror that meet the selector, in no particular order. Ids, references
 * and original ids are read in chunks; ranges a few dozen per query.
 */
export async function settledItems(
  db: Executor,
  selector: SettledItemSelector,
): Promise<SettledLedgerItem[]> {
  const found = new Map<string, SettledLedgerItem>();
  const add = (item: SettledLedgerItem) => found.set(`${item.kind}\u0000${item.id}`, item);

  const intents = async (where: Where | undefined) => {
    let query = db
      .selectFrom('payment_intents')
      .select(['id', 'status', 'amount', 'currency', 'purchase_reference', 'updated_at', 'raw'])
      .where('status', '=', SETTLED);
    if (where) query = query.where(where);
    for (const row of await query.execute()) {
      add(
        settledItem(row, {
          kind: 'payment_intent',
          direction: 'in',
          reference: row.purchase_reference,
          purchaseReference: row.purchase_reference,
          counterparty: payerNumber(row.raw),
        }),
      );
    }
  };
  const transfers = async (where: Where | undefined) => {
    let query = db
      .selectFrom('transfers')
      .select([
        'id',
        'status',
        'amount',
        'currency',
        'reference',
        'destination',
        'description',
        'updated_at',
      ])
      .where('status', '=', SETTLED);
    if (where) query = query.where(where);
    for (const row of await query.execute()) {
      add(
        settledItem(row, {
          kind: 'transfer',
          direction: 'out',
          reference: row.reference,
          counterparty: recipientNumber(row.destination),
          description: row.description,
        }),
      );
    }
  };
  const refunds = async (where: Where | undefined) => {
    let query = db
      .selectFrom('refunds')
      .select(['kind', 'id', 'status', 'amount', 'currency', 'original_id', 'updated_at'])
      .where('status', '=', SETTLED);
    if (where) query = query.where(where);
    for (const row of await query.execute()) {
      add(
        settledItem(row, {
          kind: row.kind,
          // A transfer's refund brings money back; a payment's refund pays it out.
          direction: row.kind === 'refund' ? 'in' : 'out',
          originalId: row.original_id,
        }),
      );
    }
  };

  if (selector.all === true) {
    await intents(undefined);
    await transfers(undefined);
    await refunds(undefined);
    return [...found.values()];
  }
  for (const ids of chunksOf([...new Set(selector.ids ?? [])])) {
    await intents(((eb: any) => eb('id', 'in', ids)) as Where);
    await transfers(((eb: any) => eb('id', 'in', ids)) as Where);
    await refunds(((eb: any) => eb('id', 'in', ids)) as Where);
  }
  for (const refs of chunksOf([...new Set(selector.references ?? [])])) {
    await intents(((eb: any) => eb('purchase_reference', 'in', refs)) as Where);
    await transfers(((eb: any) => eb('reference', 'in', refs)) as Where);
  }
  for (const originals of chunksOf([...new Set(selector.originalIds ?? [])])) {
    await refunds(((eb: any) => eb('original_id', 'in', originals)) as Where);
  }
  for (const ranges of chunksOf(selector.ranges ?? [], RANGES_PER_QUERY)) {
    const within = (direction: 'in' | 'out') => (eb: any) =>
      eb.or(
        ranges
          .filter((range) => range.direction === direction)
          .map((range) =>
            eb.and([
              eb('currency', '=', range.currency),
              eb('updated_at', '>=', range.settledFrom),
              eb('updated_at', '<=', range.settledTo),
              eb('amount', '>=', range.amountMin),
              eb('amount', '<=', range.amountMax),
            ]),
          ),
      );
    const directions = new Set(ranges.map((range) => range.direction));
    if (directions.has('in')) {
      await intents(within('in'));
      await refunds(((eb: any) => eb.and([eb('kind', '=', 'refund'), within('in')(eb)])) as Where);
    }
    if (directions.has('out')) {
      await transfers(within('out'));
      await refunds(((eb: any) =>
        eb.and([eb('kind', '=', 'payment_refund'), within('out')(eb)])) as Where);
    }
  }
  return [...found.values()];
}
