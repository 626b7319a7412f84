import { describe, expect, test } from 'vitest';
import { cronTable } from '../../jobs/cron-table.ts';
import { ConfigError, loadConfig } from '../../src/config/index.ts';

describe('PAYSYNC_EXPECTATIONS_ALL_EXPECTED', () => {
  test.each([
    [undefined, 'off'],
    ['', 'off'],
    ['in', 'in'],
    ['OUT', 'out'],
    [' both ', 'both'],
  ])('%j is %s', (value, allExpected) => {
    expect(loadConfig({ PAYSYNC_EXPECTATIONS_ALL_EXPECTED: value }).expectations).toMatchObject({
      allExpected,
    });
  });

  test('a bad value stops the start with the variable and what it may be', () => {
    expect(() => loadConfig({ PAYSYNC_EXPECTATIONS_ALL_EXPECTED: 'sideways' })).toThrow(
      new ConfigError(
        'PAYSYNC_EXPECTATIONS_ALL_EXPECTED',
        'PAYSYNC_EXPECTATIONS_ALL_EXPECTED="sideways" is invalid: must be off, in, out or both',
      ),
    );
  });
});

describe('PAYSYNC_EXPECTATIONS_CRON', () => {
  test('the overdue check runs every 5 minutes unless set; off lists it but never fires', () => {
    expect(loadConfig({}).expectations.cron).toBe('*/5 * * * *');
    expect(cronTable(loadConfig({})).find((e) => e.task === 'expectations')).toEqual({
      task: 'expectations',
      jobName: 'expectations',
      cron: '*/5 * * * *',
      variable: 'PAYSYNC_EXPECTATIONS_CRON',
    });
    const off = cronTable(loadConfig({ PAYSYNC_EXPECTATIONS_CRON: 'off' }));
    expect(off.find((e) => e.task === 'expectations')?.cron).toBe('off');
  });

  test('a bad value stops the start with the variable and what it may be', () => {
    expect(() => loadConfig({ PAYSYNC_EXPECTATIONS_CRON: 'often' })).toThrow(
      /^PAYSYNC_EXPECTATIONS_CRON="often" is invalid: must be a cron expression, for example "\*\/5 \* \* \* \*" \(every 5 minutes\), or off$/,
    );
  });
});
