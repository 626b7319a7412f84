import { formatAmount } from '../../money/index.ts';
import type { ExpectationBreak, MatchableExpectation, SettledItem } from './match-types.ts';

// The wording of every break: a full sentence with the ids and the amounts in the currency,
// and what to do about it. One function per break kind.

function itemKey(item: SettledItem | null): string {
  return item === null ? '-' : `${item.kind}/${item.id}`;
}

function dedupeKey(
  kind: string,
  expectation: MatchableExpectation | null,
  item: SettledItem | null,
) {
  return `${kind}:${expectation === null ? '-' : String(expectation.id)}:${itemKey(item)}`;
}

/** `25,000 XOF`, or `between 24,000 XOF and 26,000 XOF`. */
export function expectedAmountText(e: MatchableExpectation): string {
  return e.amount_min === e.amount_max
    ? formatAmount(e.amount_min, e.currency)
    : `between ${formatAmount(e.amount_min, e.currency)} and ${formatAmount(e.amount_max, e.currency)}`;
}

function signed(amount: number, currency: string): string {
  return amount > 0 ? `+${formatAmount(amount, currency)}` : formatAmount(amount, currency);
}

function itemName(item: SettledItem): string {
  return `${item.kind.replace('_', ' ')} ${item.id}`;
}

function make(
  kind: ExpectationBreak['kind'],
  expectation: MatchableExpectation | null,
  item: SettledItem | null,
  fields: Pick<ExpectationBreak, 'difference' | 'currency' | 'explanation' | 'suggestedAction'>,
): ExpectationBreak {
  return {
    kind,
    expectation: expectation?.id ?? null,
    itemKind: item?.kind ?? null,
    itemId: item?.id ?? null,
    dedupeKey: dedupeKey(kind, expectation, item),
    ...fields,
  };
}

export function missingBreak(e: MatchableExpectation): ExpectationBreak {
  const verb = e.direction === 'in' ? 'received' : 'paid';
  return make('missing', e, null, {
    difference: -e.amount_min,
    currency: e.currency,
    explanation: `Expectation ${e.expectation_id} expected ${expectedAmountText(e)} to be ${verb} between ${e.window_from} and ${e.window_to}, and no settled item matched it.`,
    suggestedAction:
      e.direction === 'in'
        ? 'Ask the payer whether and how they paid; if it was paid under another reference, resolve the expectation by hand naming the item.'
        : 'Check whether the payout was sent; send it, or cancel the expectation if it is no longer due.',
  });
}

/**
 * `settled` is what the expectation received (one item, or a split's sum); `difference` is
 * settled minus the nearer bound.
 */
export function amountMismatchBreak(
  e: MatchableExpectation,
  item: SettledItem,
  settled: number,
  difference: number,
  split: boolean,
): ExpectationBreak {
  const what = split
    ? `its items, the last ${itemName(item)}, settled ${formatAmount(settled, e.currency)} in all`
    : `${itemName(item)} settled ${formatAmount(settled, e.currency)}`;
  return make('amount_mismatch', e, item, {
    difference,
    currency: e.currency,
    explanation: `Expectation ${e.expectation_id} expected ${expectedAmountText(e)} and ${what}: a difference of ${signed(difference, e.currency)}.`,
    suggestedAction:
      difference < 0
        ? `Collect or send the missing ${formatAmount(-difference, e.currency)}, or resolve the break by hand if the difference is accepted.`
        : `Refund or reclaim the extra ${formatAmount(difference, e.currency)}, or resolve the break by hand if the difference is accepted.`,
  });
}

export function currencyMismatchBreak(
  e: MatchableExpectation,
  item: SettledItem,
): ExpectationBreak {
  return make('currency_mismatch', e, item, {
    difference: null,
    currency: item.currency,
    explanation: `Expectation ${e.expectation_id} expected ${expectedAmountText(e)} and ${itemName(item)} settled ${formatAmount(item.amount, item.currency)}, in another currency.`,
    suggestedAction:
      'Check which currency was agreed; correct the expectation, or resolve the break by hand with the rate applied.',
  });
}

export function duplicateBreak(
  e: MatchableExpectation,
  item: SettledItem,
  first: SettledItem,
): ExpectationBreak {
  return make('duplicate', e, item, {
    difference: item.currency === e.currency ? item.amount : null,
    currency: item.currency,
    explanation: `Expectation ${e.expectation_id} wanted one item and ${itemName(item)} (${formatAmount(item.amount, item.currency)}) settled with the same reference ${e.reference ?? ''} after ${itemName(first)}, which paid it.`,
    suggestedAction:
      e.direction === 'in'
        ? `Refund the second payment of ${formatAmount(item.amount, item.currency)} to the payer, or mark the expectation as allowing split payments.`
        : `Reclaim the second payout of ${formatAmount(item.amount, item.currency)} from the recipient.`,
  });
}

export function lateBreak(e: MatchableExpectation, item: SettledItem): ExpectationBreak {
  return make('late', e, item, {
    difference: null,
    currency: item.currency,
    explanation: `Expectation ${e.expectation_id} was matched by ${itemName(item)} (${formatAmount(item.amount, item.currency)}), which settled at ${item.settledAt}, after its window ended at ${e.window_to}.`,
    suggestedAction:
      'No money is missing; tell the counterparty about the delay, then resolve the break by hand.',
  });
}

export function reversedAfterMatchBreak(
  e: MatchableExpectation,
  original: SettledItem,
  refund: SettledItem,
): ExpectationBreak {
  return make('reversed_after_match', e, refund, {
    difference: refund.currency === e.currency ? -refund.amount : null,
    currency: refund.currency,
    explanation: `Expectation ${e.expectation_id} was matched by ${itemName(original)}, and ${itemName(refund)} refunded ${formatAmount(refund.amount, refund.currency)} of it at ${refund.settledAt}.`,
    suggestedAction:
      'Find out why the item was refunded; expect the money again (a new expectation), or resolve the break by hand.',
  });
}

export function unexpectedBreak(item: SettledItem): ExpectationBreak {
  const verb = item.direction === 'in' ? 'received' : 'paid';
  return make('unexpected', null, item, {
    difference: item.amount,
    currency: item.currency,
    explanation: `${itemName(item).replace(/^./, (c) => c.toUpperCase())} ${verb} ${formatAmount(item.amount, item.currency)} at ${item.settledAt}, and no expectation claims it.`,
    suggestedAction:
      'Add the expectation it belongs to, or resolve the break by hand saying why it was not expected.',
  });
}
