import { isKnownCurrency } from './currency-exponent.ts';
import { decimalAmount } from './decimal-amount.ts';

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * The human form of an amount in the smallest currency unit: `12345 EUR` → `123.45 EUR`,
 * `150000 XOF` → `150,000 XOF`. Done on the digits, never with floats. An unknown currency
 * is not guessed at: the amount is shown in minor units as stored, and says so.
 */
export function formatAmount(minorUnits: number, currency: string): string {
  if (!isKnownCurrency(currency) || !Number.isSafeInteger(minorUnits)) {
    const sign = minorUnits < 0 ? '-' : '';
    return `${sign}${String(Math.abs(minorUnits))} ${currency} (minor units)`;
  }
  const decimal = decimalAmount(minorUnits, currency);
  const sign = decimal.startsWith('-') ? '-' : '';
  const [whole, fraction] = decimal.slice(sign.length).split('.');
  return `${sign}${groupThousands(whole!)}${fraction === undefined ? '' : `.${fraction}`} ${currency}`;
}

/** `150000 XOF (150,000 XOF)`-style: minor units as stored, the human form beside them. */
export function formatMinorAndHuman(minorUnits: number, currency: string): string {
  return `${minorUnits} ${currency} = ${formatAmount(minorUnits, currency)}`;
}
