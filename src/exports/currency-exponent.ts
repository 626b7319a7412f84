import currencyCodes from 'currency-codes';

/**
 * The number of decimals of a currency's minor unit, from the ISO 4217 table that
 * `currency-codes` maintains (XOF 0, EUR 2, TND 3). An unknown code gets 2, the common case,
 * so an export never stops on a currency the table does not know yet.
 */
export function currencyExponent(currency: string): number {
  const digits = currencyCodes.code(currency.toUpperCase())?.digits;
  return typeof digits === 'number' && Number.isInteger(digits) && digits >= 0 ? digits : 2;
}

/** Minor units as a decimal string with the currency's exponent: 150050 EUR → `1500.50`. */
export function decimalAmount(minor: number | bigint, currency: string): string {
  const exponent = currencyExponent(currency);
  const value = BigInt(minor);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = exponent === 0 ? '' : `.${digits.slice(digits.length - exponent)}`;
  return `${negative ? '-' : ''}${whole}${fraction}`;
}
