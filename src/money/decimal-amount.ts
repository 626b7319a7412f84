import { currencyExponent } from './currency-exponent.ts';

/**
 * Minor units as a decimal string with the currency's exponent, done on the digits, never
 * with floats: 150050 EUR → `1500.50`, 150000 XOF → `150000`. Throws `UnknownCurrencyError`
 * for a currency whose exponent is unknown, and a `RangeError` for a number that is not a
 * safe integer.
 */
export function decimalAmount(minor: number | bigint, currency: string): string {
  const exponent = currencyExponent(currency);
  if (typeof minor === 'number' && !Number.isSafeInteger(minor)) {
    throw new RangeError(`amount ${minor} is not a safe integer number of minor units`);
  }
  const text = minor.toString();
  const negative = text.startsWith('-');
  if (exponent === 0) return text;
  const digits = (negative ? text.slice(1) : text).padStart(exponent + 1, '0');
  const cut = digits.length - exponent;
  return `${negative ? '-' : ''}${digits.slice(0, cut)}.${digits.slice(cut)}`;
}
