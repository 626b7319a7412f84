const MASK = '•';

/**
 * The one masking policy for a phone or account number, wherever paysync shows one (alerts,
 * the ops API, the dashboard and `paysync show`; docs/alerts.md, "Masked numbers"). This file is
 * a public entry of its own (.dependency-cruiser.cjs), so a read command need not load the alert
 * runtime to mask. `+221771234512` → `+22177•••••12`. The country and operator prefix stay
 * (ops recognise the network), the last two digits stay (ops tell two recipients apart), the
 * subscriber part never leaves paysync.
 */
export function maskNumber(value: string): string {
  const compact = value.replace(/[\s().-]/g, '');
  const plus = compact.startsWith('+') ? '+' : '';
  const digits = compact.slice(plus.length);
  if (!/^[0-9A-Za-z]+$/.test(digits)) return MASK.repeat(5);
  const keepHead = digits.length >= 10 ? 5 : digits.length >= 7 ? 2 : 0;
  const keepTail = digits.length >= 5 ? 2 : 0;
  const hidden = Math.max(digits.length - keepHead - keepTail, 3);
  return `${plus}${digits.slice(0, keepHead)}${MASK.repeat(hidden)}${digits.slice(digits.length - keepTail)}`;
}

/**
 * Masks every run of seven or more digits in free text (a failure message that echoes the
 * number, say). The last line of defence before any sink: alerts never carry a full number.
 * Ids like `tr_…` and amounts below ten million minor units are left alone.
 */
export function maskNumbersInText(text: string): string {
  return text.replace(/(?<![\w])\+?\d[\d ]{5,}\d(?![\w])/g, (match) => {
    const digitCount = match.replace(/\D/g, '').length;
    return digitCount >= 8 || match.startsWith('+') ? maskNumber(match) : match;
  });
}

/** The keys whose string value is a phone or account number (a transfer's `destination.number`). */
const NUMBER_FIELDS = /^(number|phone|phoneNumber|accountNumber|iban|msisdn)$/i;

/**
 * {@link maskNumber} on every string under a key that names a number (`number`, `phoneNumber`,
 * `msisdn`, `accountNumber`, `iban`), at any depth of a JSON-like value; other values as they
 * are. How a record's own fields are masked (`paysync show`), where {@link maskDeep} is for text.
 */
export function maskNumberFields<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => maskNumberFields(item)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [
        key,
        NUMBER_FIELDS.test(key) && typeof item === 'string'
          ? maskNumber(item)
          : maskNumberFields(item),
      ]),
    ) as T;
  }
  return value;
}

/** {@link maskNumbersInText} through every string of a JSON-like value. */
export function maskDeep<T>(value: T): T {
  if (typeof value === 'string') return maskNumbersInText(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => maskDeep(item)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [key, maskDeep(item)]),
    ) as T;
  }
  return value;
}
