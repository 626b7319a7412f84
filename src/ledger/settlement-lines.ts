import type { PaymentIntent, PaymentRefund, Refund, Transfer } from '../upstream/contract/index.ts';
import { Account, type AccountName } from './accounts.ts';
import { LedgerError } from './ledger-errors.ts';
import type { JournalLine } from './ledger-types.ts';

/** Dr `service:collection` / Cr `income:payments`. */
export function paymentIntentSettlementLines(intent: PaymentIntent): JournalLine[] {
  return [
    { account: Account.serviceCollection, currency: intent.currency, amount: intent.amount },
    { account: Account.incomePayments, currency: intent.currency, amount: -intent.amount },
  ];
}

/**
 * Dr `payouts:recipients` (amount) and Dr `expenses:transfer-fees` (each fee, in its own
 * currency) against Cr the transfer account, one credit per currency so each balances.
 */
export function transferSettlementLines(transfer: Transfer): JournalLine[] {
  const source = transfer.isIrt ? Account.serviceTransferIrt : Account.serviceTransfer;
  const debits: JournalLine[] = [
    { account: Account.payoutsRecipients, currency: transfer.currency, amount: transfer.amount },
    ...transfer.fees
      .filter((fee) => fee.amount !== 0)
      .map((fee) => ({
        account: Account.expensesTransferFees,
        currency: fee.currency,
        amount: fee.amount,
      })),
  ];
  const totals = new Map<string, number>();
  for (const line of debits)
    totals.set(line.currency, (totals.get(line.currency) ?? 0) + line.amount);
  const credits = [...totals].map(([currency, total]) => ({
    account: source,
    currency,
    amount: -total,
  }));
  return [...debits, ...credits];
}

/**
 * Dr the transfer account / Cr `payouts:recipients`. The money goes back to the account the
 * transfer was paid from: `service:transfer-irt` when the mirrored transfer is IRT.
 */
export function transferRefundSettlementLines(
  refund: Refund,
  transferIsIrt: boolean,
): JournalLine[] {
  const account: AccountName = transferIsIrt ? Account.serviceTransferIrt : Account.serviceTransfer;
  return [
    { account, currency: refund.currency, amount: refund.amount },
    { account: Account.payoutsRecipients, currency: refund.currency, amount: -refund.amount },
  ];
}

/** Dr `refunds:customers` / Cr `service:collection`. */
export function paymentRefundSettlementLines(refund: PaymentRefund): JournalLine[] {
  return [
    { account: Account.refundsCustomers, currency: refund.currency, amount: refund.amount },
    { account: Account.serviceCollection, currency: refund.currency, amount: -refund.amount },
  ];
}

/** The lines that undo `lines`: same accounts, opposite signs. */
export function reversalLines(lines: readonly JournalLine[]): JournalLine[] {
  return lines.map((line) => ({ ...line, amount: -line.amount }));
}

/** Throws unless every amount is a non-zero safe integer and each currency sums to zero. */
export function assertBalanced(lines: readonly JournalLine[], what: string): void {
  const sums = new Map<string, number>();
  for (const line of lines) {
    if (!Number.isSafeInteger(line.amount) || line.amount === 0) {
      throw new LedgerError(
        'unbalanced_journal',
        `${what}: amount ${line.amount} on ${line.account} is not a non-zero integer`,
      );
    }
    sums.set(line.currency, (sums.get(line.currency) ?? 0) + line.amount);
  }
  const off = [...sums].filter(([, sum]) => sum !== 0);
  if (lines.length < 2 || off.length > 0) {
    throw new LedgerError(
      'unbalanced_journal',
      `${what}: journal does not balance (${off.map(([c, s]) => `${c} ${s}`).join(', ') || 'fewer than two lines'})`,
    );
  }
}

/** Same postings regardless of order: how a booked settlement is compared with the service's. */
export function sameLines(a: readonly JournalLine[], b: readonly JournalLine[]): boolean {
  const key = (lines: readonly JournalLine[]) =>
    lines
      .map((l) => `${l.account}|${l.currency}|${l.amount}`)
      .sort()
      .join('\n');
  return key(a) === key(b);
}
