import currencyCodes from 'currency-codes';

const exponents = new Map<string, number>();

/**
 * The number of decimals of a currency's minor unit, from the ISO 4217 table that
 * `currency-codes` maintains (XOF 0, EUR 2, TND 3). An unknown code gets 2, the common case,
 * so an export never stops on a currency the table does not know yet. Remembered per code:
 * the table lookup is a scan, and an export asks once per line.
 */
export function currencyExponent(currency: string): number {
  let exponent = exponents.get(currency);
  if (exponent === undefined) {
    const digits = currencyCodes.code(currency.toUpperCase())?.digits;
    exponent = typeof digits === 'number' && Number.isInteger(digits) && digits >= 0 ? digits : 2;
    exponents.set(currency, exponent);
  }
  return exponent;
}

/** Minor units as a decimal string with the currency's exponent: 150050 EUR → `1500.50`. */
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
