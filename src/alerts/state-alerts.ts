import { formatAmount } from '../money/index.ts';
import type { RaiseAlertInput } from './raise-alert.ts';

/**
 * The alerts of conditions balances and reports record, written one way whether they arrive
 * as an outbox follow-up or are read from state by the deliverer: the same dedupe key, so
 * both roads meet on one live alert.
 */

function moneyIn(currency: string) {
  return (value: unknown) =>
    typeof value === 'number' && currency !== '' ? formatAmount(value, currency) : String(value);
}

/** `balance_drift`, from the drift discrepancy balances records. */
export function balanceDriftAlert(
  discrepancyId: number,
  facts: Readonly<Record<string, unknown>>,
  fallbackAccount: string,
): RaiseAlertInput {
  const currency = typeof facts.currency === 'string' ? facts.currency : '';
  const money = moneyIn(currency);
  const account = String(facts.account ?? facts.accountType ?? fallbackAccount);
  const unexplained = facts.amount ?? facts.difference;
  const lines = [
    facts.service !== undefined && facts.ledger !== undefined
      ? `The service says ${money(facts.service)}, the ledger ${money(facts.ledger)} (difference ${money(facts.difference)}) as of ${String(facts.asOf ?? 'the last snapshot')}.`
      : undefined,
    `${money(unexplained)} of it is not explained by items in flight or recent adjustments.`,
    'See `paysync balances` for the explanation of every difference.',
  ];
  return {
    kind: 'balance_drift',
    dedupeKey: `balance_drift:${discrepancyId}`,
    title: `Balance drift on ${account} ${currency}: ${money(unexplained)} unexplained`,
    body: lines.filter(Boolean).join('\n'),
    detail: { ...facts, discrepancyId, group: account },
    resolvesWhen: 'when the difference is explained or gone',
  };
}

/** `low_balance`, from a crossing balances reports: one live alert per account and currency. */
export function lowBalanceAlert(crossing: Readonly<Record<string, unknown>>): RaiseAlertInput {
  const currency = String(crossing.currency ?? '');
  const money = moneyIn(currency);
  const account = String(crossing.accountType ?? 'an');
  const environment = String(crossing.environment ?? '');
  return {
    kind: 'low_balance',
    dedupeKey: `low_balance:${environment}:${account}:${currency}`,
    title: `Low balance: the ${account} account holds ${money(crossing.amount)}, under its ${money(crossing.minimum)} minimum`,
    body: [
      `The ${account} account holds ${money(crossing.amount)} as of ${String(crossing.asOf ?? 'the last snapshot')}, under the ${money(crossing.minimum)} set in PAYSYNC_LOW_BALANCE.`,
      'Payouts from it may start failing; top it up.',
    ].join('\n'),
    detail: { ...crossing, group: account },
    resolvesWhen: 'when a snapshot shows it back at or above the minimum',
  };
}

/** `day_not_reconciled`, from a closed day's stored verdict. */
export function dayNotReconciledAlert(
  environment: string,
  day: string,
  verdict: string,
  breaks: readonly string[],
  incomplete: readonly string[],
): RaiseAlertInput {
  const reasons =
    verdict === 'BREAKS'
      ? `${breaks.length} ${breaks.length === 1 ? 'break' : 'breaks'}`
      : incomplete.join('; ') || 'incomplete';
  return {
    kind: 'day_not_reconciled',
    dedupeKey: `day_not_reconciled:${environment}:${day}`,
    title: `${day} is not reconciled: ${verdict} (${reasons})`,
    body: [
      `The books of ${day} came out ${verdict}: ${reasons}.`,
      ...breaks.slice(0, 5).map((line) => `• ${line}`),
      `See \`paysync report --date ${day}\`.`,
    ].join('\n'),
    detail: { environment, day, verdict, breaks: breaks.length, group: verdict },
    resolvesWhen: 'when the day is computed again and reconciles',
  };
}
