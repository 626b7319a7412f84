import { dayOf, dayWindow } from '../books-calendar/index.ts';

/**
 * `dayOf` builds an Intl formatter per call, too slow for a million journals. Journals come in
 * time order, so the day found last and its window `[from, to)` in the books' zone answer
 * every instant inside it with two string comparisons (ISO 8601 UTC with ms compares as text);
 * only an instant outside it computes a day again. Memory: one day.
 */
export function booksDayCache(timeZone: string): (instant: string) => string {
  let current: { day: string; from: string; to: string } | undefined;
  return (instant) => {
    if (current && instant >= current.from && instant < current.to) return current.day;
    const day = dayOf(new Date(instant), timeZone);
    current = { day, ...dayWindow(day, timeZone) };
    return day;
  };
}
