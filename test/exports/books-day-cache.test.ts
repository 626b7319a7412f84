import { describe, expect, it } from 'vitest';
import { dayOf } from '../../src/books-calendar/index.ts';
import { booksDayCache } from '../../src/exports/books-day-cache.ts';

describe('booksDayCache', () => {
  it.each(['UTC', 'Europe/Paris', 'America/New_York', 'Africa/Abidjan', 'Pacific/Chatham'])(
    'agrees with dayOf every 17 minutes over a DST change and back (%s)',
    (zone) => {
      const dayOfInstant = booksDayCache(zone);
      // Back and forth in time too: the cache must not assume order for correctness.
      const instants: string[] = [];
      for (let t = Date.UTC(2026, 2, 27); t < Date.UTC(2026, 3, 2); t += 17 * 60_000) {
        instants.push(new Date(t).toISOString());
      }
      instants.push('2026-03-28T23:59:59.999Z', '2026-01-01T00:00:00.000Z', instants[3]!);
      for (const instant of instants) {
        expect(dayOfInstant(instant), instant).toBe(dayOf(new Date(instant), zone));
      }
    },
  );
});
