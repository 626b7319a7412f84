import currencyCodes from 'currency-codes';

/**
 * A currency the ISO 4217 table does not know. How many decimals its minor unit has is then
 * unknown, and a guess would move every amount by a power of ten, so it is an error.
 */
export class UnknownCurrencyError extends Error {
  override readonly name = 'UnknownCurrencyError';
  constructor(readonly currency: string) {
    super(
      `unknown currency "${currency}": not an ISO 4217 code paysync knows, so the decimals of its minor unit are unknown; correct the item's currency, or update paysync if the code is newly issued`,
    );
  }
}

const exponents = new Map<string, number>();

/**
 * The number of decimals of a currency's minor unit (XOF 0, EUR 2, TND 3), from the ISO 4217
 * table that `currency-codes` maintains: the service's amounts are in the minor unit of an
 * ISO 4217 code. Throws {@link UnknownCurrencyError} for a code the table does not know.
 * Remembered per code: the table lookup is a scan, and an export asks once per line.
 */
export function currencyExponent(currency: string): number {
  let exponent = exponents.get(currency);
  if (exponent === undefined) {
    const digits = currencyCodes.code(currency.toUpperCase())?.digits;
    if (typeof digits !== 'number' || !Number.isInteger(digits) || digits < 0) {
      throw new UnknownCurrencyError(currency);
    }
    exponent = digits;
    exponents.set(currency, exponent);
  }
  return exponent;
}

/** Whether {@link currencyExponent} knows the currency. */
export function isKnownCurrency(currency: string): boolean {
  try {
    currencyExponent(currency);
    return true;
  } catch (error) {
    if (error instanceof UnknownCurrencyError) return false;
    throw error;
  }
}
