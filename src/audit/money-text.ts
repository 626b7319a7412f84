const MAX = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A stored amount as an exact integer, and whether JavaScript can hold it without rounding.
 * `value` is undefined when the text is not an integer at all (a fraction or a float).
 */
export function readMoney(text: string): { value: bigint | undefined; safe: boolean } {
  if (!/^-?\d+$/.test(text.trim())) return { value: undefined, safe: false };
  const value = BigInt(text.trim());
  return { value, safe: value <= MAX && value >= -MAX };
}

/** The exact integer, or 0 for text that is not one (reported apart as `unsafe_integer`). */
export function moneyOf(text: string): bigint {
  return readMoney(text).value ?? 0n;
}
