import { InvalidArgumentError } from 'commander';

/** A `--period` flag: a calendar month written YYYY-MM. */
export function periodOption(value: string): string {
  const text = value.trim();
  const match = /^(\d{4})-(\d{2})$/.exec(text);
  if (!match || Number(match[2]) < 1 || Number(match[2]) > 12) {
    throw new InvalidArgumentError(
      `--period "${value}" is not a month: use YYYY-MM, e.g. 2026-11 (a month of PAYSYNC_BOOKS_TIMEZONE)`,
    );
  }
  return text;
}
