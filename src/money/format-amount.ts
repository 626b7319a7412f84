/** Digits after the decimal point of an ISO 4217 currency, or undefined when unknown. */
export function currencyExponent(currency: string): number | undefined {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
      .maximumFractionDigits;
  } catch {
    return undefined;
  }
}

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * The human form of an amount in the smallest currency unit: `12345 EUR` → `123.45 EUR`,
 * `150000 XOF` → `150,000 XOF`. Done on the digits, never with floats. An unknown currency is
 * shown in minor units as stored.
 */
export function formatAmount(minorUnits: number, currency: string): string {
  const exponent = currencyExponent(currency);
  const sign = minorUnits < 0 ? '-' : '';
  const digits = String(Math.abs(minorUnits));
  if (exponent === undefined || !Number.isSafeInteger(minorUnits)) {
    return `${sign}${digits} ${currency} (minor units)`;
  }
  if (exponent === 0) return `${sign}${groupThousands(digits)} ${currency}`;
  const padded = digits.padStart(exponent + 1, '0');
  const whole = padded.slice(0, -exponent);
  const fraction = padded.slice(-exponent);
  return `${sign}${groupThousands(whole)}.${fraction} ${currency}`;
}

/** `150000 XOF (150,000 XOF)`-style: minor units as stored, the human form beside them. */
export function formatMinorAndHuman(minorUnits: number, currency: string): string {
  return `${minorUnits} ${currency} = ${formatAmount(minorUnits, currency)}`;
}
