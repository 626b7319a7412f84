import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, nextAttemptAt, RETRY_SCHEDULE_MS, shownUrl } from '../../src/relay/index.ts';

const AT = new Date('2026-11-20T10:00:00.000Z');

describe('the relay retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after attempts 1 to 7, then gives up', () => {
    const waits = Array.from({ length: MAX_ATTEMPTS }, (_, i) => {
      const next = nextAttemptAt(i + 1, AT, () => 0.5);
      return next === undefined ? undefined : (next.getTime() - AT.getTime()) / 1000;
    });
    expect(waits).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 36_000, undefined]);
    expect(RETRY_SCHEDULE_MS[0]).toBe(0);
  });

  it('spreads each wait by at most ±10 %', () => {
    const low = nextAttemptAt(3, AT, () => 0)!.getTime() - AT.getTime();
    const high = nextAttemptAt(3, AT, () => 0.999_999)!.getTime() - AT.getTime();
    expect(low).toBe(27 * 60_000);
    expect(high).toBeGreaterThan(32.9 * 60_000);
    expect(high).toBeLessThanOrEqual(33 * 60_000);
  });

  it('shows an endpoint URL without user info or query (they may hold a token)', () => {
    expect(shownUrl('https://user:pw@shop.example.com:8443/hooks/paysync?token=abc#x')).toBe(
      'https://shop.example.com:8443/hooks/paysync',
    );
  });
});
