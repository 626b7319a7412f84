import { dayOf } from '../reports/index.ts';

/**
 * `dayOf` builds an Intl formatter per call, too slow for a million journals. Offsets change
 * at most at minute boundaries, so the day of an instant is cached per UTC minute; the cache
 * is dropped when it grows, which keeps memory flat on a long export.
 */
export function booksDayCache(timeZone: string): (instant: string) => string {
  let cache = new Map<string, string>();
  return (instant) => {
    const minute = instant.slice(0, 16);
    let day = cache.get(minute);
    if (day === undefined) {
      day = dayOf(new Date(`${minute}:00.000Z`), timeZone);
      if (cache.size > 10_000) cache = new Map();
      cache.set(minute, day);
    }
    return day;
  };
}
