import { describe, expect, it } from 'vitest';
import { cronTable } from '../../jobs/cron-table.ts';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';

const DAY = 86_400_000;

describe('retention configuration', () => {
  it('defaults to 30 days for inbox bodies and the outbox, 90 for runs and deliveries, hourly', () => {
    const { retention } = loadConfig({});
    expect(retention.periods).toEqual({
      inboxBodies: 30 * DAY,
      outbox: 30 * DAY,
      scheduledRuns: 90 * DAY,
      alertDeliveries: 90 * DAY,
      relay: 30 * DAY,
    });
    expect(retention.batchSize).toBe(500);
    const entry = cronTable(loadConfig({})).find((e) => e.task === 'retention');
    expect(entry).toMatchObject({ cron: '23 * * * *', variable: 'PAYSYNC_RETENTION_CRON' });
  });

  it('takes durations down to seconds, and off keeps a table for ever', () => {
    const { retention } = loadConfig({
      PAYSYNC_RETENTION_INBOX_BODY_AFTER: '15m',
      PAYSYNC_RETENTION_RUNS_AFTER: 'off',
      PAYSYNC_RETENTION_CRON: 'off',
    });
    expect(retention.periods.inboxBodies).toBe(15 * 60_000);
    expect(retention.periods.scheduledRuns).toBeUndefined();
    expect(retention.cron).toBe('off');
  });

  it.each([
    ['PAYSYNC_RETENTION_INBOX_BODY_AFTER', '30', 'a duration such as 30d, 12h or 15m, or off'],
    ['PAYSYNC_RETENTION_OUTBOX_AFTER', '0d', 'a duration such as 30d, 12h or 15m, or off'],
    ['PAYSYNC_RETENTION_ALERT_DELIVERIES_AFTER', 'never', 'a duration such as 90d'],
    ['PAYSYNC_RETENTION_RELAY_AFTER', '30', 'a duration such as 30d, 12h or 15m, or off'],
    ['PAYSYNC_RETENTION_BATCH', '0', 'at least 1'],
    ['PAYSYNC_RETENTION_CRON', 'hourly', 'cron expression'],
  ])('refuses %s=%s naming the variable', (variable, value, reason) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(
      new RegExp(`^${variable}="${value}" is invalid: .*${reason}`),
    );
  });

  it('paysync prune refuses a bad variable in one line, exit 2, before touching anything', async () => {
    // In this process (issue 39); sqlite-paths keeps a real `paysync prune`.
    const result = await runCliInProcess(['prune', '--dry-run'], {
      env: { PAYSYNC_RETENTION_OUTBOX_AFTER: '30 days', PAYSYNC_DATABASE_URL: 'sqlite:./none.db' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('PAYSYNC_RETENTION_OUTBOX_AFTER="30 days" is invalid');
    expect(result.stdout).toBe('');
  });
});
