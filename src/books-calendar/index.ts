/**
 * The books' calendar: which day an instant falls in, and where a day starts and ends, in the
 * books' time zone (`config.books.timeZone`, `PAYSYNC_BOOKS_TIMEZONE`). Balances, reports,
 * exports, ops and the scheduled jobs count days with it; pure arithmetic, no dependencies.
 */
export { dayOf, dayWindow, isCalendarDay, nextDay, previousDay, startOfDay } from './books-day.ts';
