import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
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

  it('follows a schedule given to it, jitter included, and gives up when it is used up', () => {
    const schedule = [0, 1000, 2000, 30_000];
    const waits = [1, 2, 3, 4].map((made) => {
      const next = nextAttemptAt(made, AT, () => 0.5, schedule);
      return next === undefined ? undefined : next.getTime() - AT.getTime();
    });
    expect(waits).toEqual([1000, 2000, 30_000, undefined]);
    expect(nextAttemptAt(3, AT, () => 0, schedule)!.getTime() - AT.getTime()).toBe(27_000);
  });

  it('shows an endpoint URL without user info or query (they may hold a token)', () => {
    expect(shownUrl('https://user:pw@shop.example.com:8443/hooks/paysync?token=abc#x')).toBe(
      'https://shop.example.com:8443/hooks/paysync',
    );
  });
});

describe('PAYSYNC_RELAY_RETRY_SCHEDULE', () => {
  it('defaults to the documented schedule', () => {
    expect(loadConfig({}).relay.retryScheduleMs).toEqual(RETRY_SCHEDULE_MS);
  });

  it('takes 0s then the waits before each retry, spaces allowed', () => {
    expect(
      loadConfig({ PAYSYNC_RELAY_RETRY_SCHEDULE: '0s, 1s,2s,5m ,1h' }).relay.retryScheduleMs,
    ).toEqual([0, 1000, 2000, 300_000, 3_600_000]);
    expect(loadConfig({ PAYSYNC_RELAY_RETRY_SCHEDULE: '0s' }).relay.retryScheduleMs).toEqual([0]);
  });

  it.each([['5s,1m'], ['0s,soon'], ['0s,0s'], ['0s,,5s'], [`0s${',1s'.repeat(100)}`]])(
    'refuses %s naming the variable',
    (value) => {
      const load = () => loadConfig({ PAYSYNC_RELAY_RETRY_SCHEDULE: value });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(
        /^PAYSYNC_RELAY_RETRY_SCHEDULE="[^"\n]*" is invalid: must be 0s \(the first attempt, at once\)[^\n]*$/,
      );
    },
  );
});
