import { LedgerError } from './ledger-errors.ts';

/**
 * UTC ISO 8601 with milliseconds, the one shape the ledger stores, so times compare as
 * text. `2024-05-01T12:00:00Z` and `…00.000Z` are the same instant and must not differ.
 */
export function utcMillis(value: string, what: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw new LedgerError('invalid_input', `${what} is not an ISO 8601 datetime: "${value}"`);
  }
  return date.toISOString();
}
