import { describe, expect, it } from 'vitest';
import { cronTable } from '../../jobs/cron-table.ts';
import { ConfigError, loadConfig } from '../../src/config/index.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('janitor configuration', () => {
  it('defaults to 1 m, 5 m, 15 m, 1 h, 6 h, 24 h for every kind and the documented SLAs', () => {
    const { janitor } = loadConfig({});
    const gaps = [MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR, 6 * HOUR, 24 * HOUR];
    expect(janitor.scheduleMs).toEqual({ payment_intent: gaps, transfer: gaps, refund: gaps });
    expect(janitor.stuckAfterMs).toEqual({
      transfer: 24 * HOUR,
      payment_intent: 48 * HOUR,
      refund: 72 * HOUR,
      pending_manual: 7 * 24 * HOUR,
    });
    expect(cronTable(loadConfig({})).map((entry) => [entry.task, entry.cron])).toContainEqual([
      'janitor',
      '* * * * *',
    ]);
  });

  it('takes a schedule for all kinds and one per kind, and SLAs as durations', () => {
    const { janitor } = loadConfig({
      PAYSYNC_JANITOR_SCHEDULE: '30s, 2m',
      PAYSYNC_JANITOR_SCHEDULE_TRANSFERS: '10m,1d',
      PAYSYNC_STUCK_TRANSFER_AFTER: '36h',
    });
    expect(janitor.scheduleMs.payment_intent).toEqual([30_000, 2 * MINUTE]);
    expect(janitor.scheduleMs.refund).toEqual([30_000, 2 * MINUTE]);
    expect(janitor.scheduleMs.transfer).toEqual([10 * MINUTE, 24 * HOUR]);
    expect(janitor.stuckAfterMs.transfer).toBe(36 * HOUR);
  });

  it('turns the janitor off with PAYSYNC_JANITOR_CRON=off', () => {
    // Listed (so `doctor` and `paysync runs` know the task) with `off`, which the scheduler
    // never fires.
    const entries = cronTable(loadConfig({ PAYSYNC_JANITOR_CRON: 'off' }));
    expect(entries.find((e) => e.task === 'janitor')?.cron).toBe('off');
    expect(entries.find((e) => e.task === 'recover-inbox')?.cron).toBe('* * * * *');
  });

  it.each([
    ['PAYSYNC_JANITOR_SCHEDULE', '1m,soon', 'durations separated by commas'],
    ['PAYSYNC_JANITOR_SCHEDULE_REFUNDS', '0m', 'durations separated by commas'],
    ['PAYSYNC_STUCK_INTENT_AFTER', '2 days', 'a duration such as 30m, 24h or 7d'],
    ['PAYSYNC_JANITOR_CRON', 'hourly', 'cron expression'],
  ])('refuses %s=%s naming the variable', (variable, value, reason) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(
      new RegExp(`^${variable}="${value}" is invalid: .*${reason}`),
    );
  });
});
