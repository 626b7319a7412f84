import { z } from 'zod';
import type { Parsed } from './fields.ts';

// The books: the time zone whose midnights close their days (balances, verdicts, exports, ops).

export const BOOKS_VARIABLES = {
  /** The time zone whose midnights close the books' days (IANA name). @defaultValue `UTC` */
  PAYSYNC_BOOKS_TIMEZONE: z
    .string()
    .trim()
    .default('UTC')
    .refine((value) => isTimeZone(value), {
      message: 'must be an IANA time zone such as UTC, Africa/Abidjan or Europe/Paris',
    }),
};

/** Settings every component that counts in the books' days reads (see docs/balances.md). */
export interface BooksSettings {
  /** IANA zone of the books' days. @defaultValue `UTC` */
  readonly timeZone: string;
}

export function booksSettings(e: Parsed<typeof BOOKS_VARIABLES>): BooksSettings {
  return Object.freeze({ timeZone: e.PAYSYNC_BOOKS_TIMEZONE });
}

/** True when `timeZone` is an IANA zone this Node.js knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}
