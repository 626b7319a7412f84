import { describe, expect, it } from 'vitest';
import { dayOf, dayWindow, isCalendarDay } from '../../src/books-calendar/index.ts';

describe('books days in PAYSYNC_BOOKS_TIMEZONE', () => {
  it.each([
    ['UTC', '2026-11-21', '2026-11-21T00:00:00.000Z', '2026-11-22T00:00:00.000Z'],
    ['Africa/Abidjan', '2026-11-21', '2026-11-21T00:00:00.000Z', '2026-11-22T00:00:00.000Z'],
    ['Europe/Paris', '2026-11-21', '2026-11-20T23:00:00.000Z', '2026-11-21T23:00:00.000Z'],
    // The day the clocks go forward in Paris has 23 hours.
    ['Europe/Paris', '2026-03-29', '2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z'],
    ['America/New_York', '2026-11-01', '2026-11-01T04:00:00.000Z', '2026-11-02T05:00:00.000Z'],
  ])('%s %s is [%s, %s)', (zone, day, from, to) => {
    expect(dayWindow(day, zone)).toEqual({ from, to });
    expect(dayOf(new Date(from), zone)).toBe(day);
    expect(dayOf(new Date(Date.parse(to) - 1), zone)).toBe(day);
  });

  it.each(['2030-02-30', '2026-13-01', '2026-1-1', 'yesterday'])('%s is not a day', (text) => {
    expect(isCalendarDay(text)).toBe(false);
  });
});
