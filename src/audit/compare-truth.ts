import type { AuditViolation } from './audit-types.ts';
import { ITEM_KINDS } from './check-books.ts';
import type { GroundTruth } from './ground-truth.ts';
import { moneyOf } from './money-text.ts';
import type { StoredBooks } from './read-books.ts';

/** Which item a simulator movement belongs to; funding belongs to none. */
const MOVEMENT_ITEM_KIND: Record<string, string> = {
  payment: 'payment_intent',
  transfer: 'transfer',
  transfer_fee: 'transfer',
  transfer_refund: 'refund',
  payment_refund: 'payment_refund',
};

/** The service's account type `transfer-irt` is the ledger's `service:transfer-irt`. */
const ledgerAccountOf = (accountType: string) => `service:${accountType}`;

type Totals = Map<string, bigint>;

function add(totals: Totals, key: string, amount: bigint): void {
  const sum = (totals.get(key) ?? 0n) + amount;
  if (sum === 0n) totals.delete(key);
  else totals.set(key, sum);
}

function describe(totals: Totals | undefined): string {
  if (!totals || totals.size === 0) return 'nothing';
  return [...totals]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, amount]) => `${key} ${amount}`)
    .join(', ');
}

function sameTotals(a: Totals | undefined, b: Totals | undefined): boolean {
  const left = a ?? new Map<string, bigint>();
  const right = b ?? new Map<string, bigint>();
  if (left.size !== right.size) return false;
  for (const [key, amount] of left) if (right.get(key) !== amount) return false;
  return true;
}

/**
 * Compares the books with the simulator's ground truth for one mode (environment):
 * every item's status; every item's money on the service accounts (the simulator's movements
 * against the net of the item's journal lines on `service:*`), then the same per account; and
 * the final balance of each service account against the ledger's, every journal included
 * (opening balances and adjustments stand for the simulator's funding).
 */
export function compareWithTruth(
  books: StoredBooks,
  truth: GroundTruth,
  mode: string,
): { violations: AuditViolation[]; items: number; movements: number } {
  const violations: AuditViolation[] = [];
  const mirror = new Map(books.items.map((item) => [`${item.kind} ${item.id}`, item]));
  const truthItems = truth.items.filter(
    (item) => item.mode === mode && (ITEM_KINDS as readonly string[]).includes(item.kind),
  );
  const known = new Set<string>();
  for (const item of truthItems) {
    const key = `${item.kind} ${item.id}`;
    known.add(key);
    const held = mirror.get(key);
    if (!held) {
      violations.push({
        check: 'item_missing',
        message: `${key} is ${item.status} at the service but not in the mirror`,
        ids: { resourceKind: item.kind, resourceId: item.id },
      });
    } else if (held.status !== item.status) {
      violations.push({
        check: 'status_mismatch',
        message: `${key}: mirror says ${held.status}, the service ${item.status}`,
        ids: { resourceKind: item.kind, resourceId: item.id },
      });
    }
  }
  for (const item of books.items) {
    const key = `${item.kind} ${item.id}`;
    if (known.has(key) || (item.mode !== null && item.mode !== mode)) continue;
    violations.push({
      check: 'item_unknown',
      message: `${key} is in the mirror (${item.status}) but the service does not know it`,
      ids: { resourceKind: item.kind, resourceId: item.id },
    });
  }

  // Money per item and per account: the service's movements against the item journals.
  const movements = truth.movements.filter((m) => m.mode === mode);
  const truthByItem = new Map<string, Totals>();
  const truthByAccount: Totals = new Map();
  for (const movement of movements) {
    const kind = MOVEMENT_ITEM_KIND[movement.kind];
    if (kind === undefined || movement.resourceId === undefined) continue;
    const key = `${kind} ${movement.resourceId}`;
    const account = `${ledgerAccountOf(movement.accountType)} ${movement.currency}`;
    const totals = truthByItem.get(key) ?? new Map<string, bigint>();
    truthByItem.set(key, totals);
    add(totals, account, BigInt(movement.amount));
    add(truthByAccount, account, BigInt(movement.amount));
  }
  const bookedByItem = new Map<string, Totals>();
  const bookedByAccount: Totals = new Map();
  const ledgerBalances: Totals = new Map();
  for (const journal of books.journals.values()) {
    const itemJournal = journal.entryType === 'settlement' || journal.entryType === 'reversal';
    const key = `${journal.resourceKind} ${journal.resourceId}`;
    for (const line of journal.lines) {
      if (!line.account.startsWith('service:')) continue;
      const account = `${line.account} ${line.currency}`;
      const amount = moneyOf(line.amountText);
      add(ledgerBalances, account, amount);
      if (!itemJournal) continue;
      const totals = bookedByItem.get(key) ?? new Map<string, bigint>();
      bookedByItem.set(key, totals);
      add(totals, account, amount);
      add(bookedByAccount, account, amount);
    }
  }
  for (const key of new Set([...truthByItem.keys(), ...bookedByItem.keys()])) {
    if (sameTotals(truthByItem.get(key), bookedByItem.get(key))) continue;
    const [resourceKind, resourceId] = key.split(' ') as [string, string];
    violations.push({
      check: 'movement_mismatch',
      message: `${key}: the service moved ${describe(truthByItem.get(key))}; the journals book ${describe(bookedByItem.get(key))}`,
      ids: { scope: 'item', resourceKind, resourceId },
    });
  }
  for (const account of new Set([...truthByAccount.keys(), ...bookedByAccount.keys()])) {
    const moved = truthByAccount.get(account) ?? 0n;
    const booked = bookedByAccount.get(account) ?? 0n;
    if (moved === booked) continue;
    violations.push({
      check: 'movement_mismatch',
      message: `${account}: items moved ${moved} at the service; item journals book ${booked} (difference ${moved - booked})`,
      ids: { scope: 'account', account },
    });
  }

  const serviceBalances: Totals = new Map();
  for (const balance of truth.balances[mode] ?? []) {
    add(
      serviceBalances,
      `${ledgerAccountOf(balance.accountType)} ${balance.currency}`,
      BigInt(balance.amount),
    );
  }
  for (const account of new Set([...serviceBalances.keys(), ...ledgerBalances.keys()])) {
    const service = serviceBalances.get(account) ?? 0n;
    const ledger = ledgerBalances.get(account) ?? 0n;
    if (service === ledger) continue;
    violations.push({
      check: 'balance_mismatch',
      message: `${account}: the service holds ${service}, the ledger ${ledger} (difference ${service - ledger})`,
      ids: { account },
    });
  }
  return { violations, items: truthItems.length, movements: movements.length };
}
