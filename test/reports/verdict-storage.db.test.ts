import { afterEach, describe, expect, it } from 'vitest';
import {
  judgeDay,
  storeVerdict,
  verdictStorage,
  type VerdictBooks,
  type VerdictSchedule,
} from '../../src/reports/index.ts';
import type { SyncContext } from '../processing/support/sync-context.ts';
import { testDialect } from '../support/test-database.ts';
import { covered, DAY, MIDNIGHT, reconciledDay } from './support/verdict-day.ts';

const HOURLY: VerdictSchedule = { cron: '0 * * * *', verdictCron: '20 * * * *' };
/** An hour after DAY ended: the verdicts task (20 past) has not run since. */
const NOW = new Date('2026-11-21T01:00:00.000Z');

/**
 * Issue 40.7: whether a day's verdict is stored, or when the verdicts task stores it, by the
 * task's own rules (a day over, its end-of-day snapshot in, a stored RECONCILED kept). The times
 * assume a machine zone a whole number of hours from UTC, as the scheduler reads the crons there.
 */
describe(`when a day's verdict is stored, on ${testDialect()}`, () => {
  let context: SyncContext;
  afterEach(async () => context.cleanup());

  function books(coverage = covered): VerdictBooks {
    return {
      db: context.database.db,
      environment: 'sandbox',
      timeZone: 'UTC',
      rules: { coverage },
    };
  }

  it('is due at the next verdicts run, then stored; a stored verdict judged otherwise since is replaced at the next run', async () => {
    context = await reconciledDay();
    const report = await judgeDay(books(), DAY, NOW);
    expect(report.verdict).toBe('RECONCILED');
    expect(await verdictStorage(books(), HOURLY, DAY, NOW, report.verdict)).toEqual({
      state: 'due',
      at: '2026-11-21T01:20:00.000Z',
    });
    // Stored while the sweeps had not covered the day yet: INCOMPLETE, replaced at the next run.
    const early = await judgeDay(
      books(async () => 'not swept yet'),
      DAY,
      new Date(MIDNIGHT),
    );
    expect(early.verdict).toBe('INCOMPLETE');
    await storeVerdict(context.database.db, early);
    expect(await verdictStorage(books(), HOURLY, DAY, NOW, report.verdict)).toEqual({
      state: 'due',
      at: '2026-11-21T01:20:00.000Z',
      replaces: { verdict: 'INCOMPLETE', computedAt: MIDNIGHT },
    });
    await storeVerdict(context.database.db, report);
    expect(await verdictStorage(books(), HOURLY, DAY, NOW, report.verdict)).toEqual({
      state: 'stored',
      computedAt: NOW.toISOString(),
    });
    // A stored RECONCILED is kept: the task does not judge that day again.
    expect(await verdictStorage(books(), HOURLY, DAY, NOW, 'BREAKS')).toEqual({
      state: 'kept',
      stored: { verdict: 'RECONCILED', computedAt: NOW.toISOString() },
    });
  });

  it('waits for the end-of-day snapshot of a day not over, and says when nothing will store one', async () => {
    context = await reconciledDay();
    const today = '2026-11-21';
    // Today (not over): its end-of-day snapshot at its midnight, then the verdicts run at 00:20.
    expect(await verdictStorage(books(), HOURLY, today, NOW)).toEqual({
      state: 'due',
      snapshotAt: '2026-11-22T00:00:00.000Z',
      at: '2026-11-22T00:20:00.000Z',
    });
    expect(await verdictStorage(books(), { ...HOURLY, cron: 'off' }, today, NOW)).toEqual({
      state: 'not_scheduled',
      because: 'balance_task_off',
    });
    expect(await verdictStorage(books(), { ...HOURLY, verdictCron: 'off' }, DAY, NOW)).toEqual({
      state: 'not_scheduled',
      because: 'verdict_task_off',
    });
    // The day before the first item: the balances task never snapshots its end.
    expect(await verdictStorage(books(), HOURLY, '2026-11-19', NOW, 'INCOMPLETE')).toEqual({
      state: 'not_scheduled',
      because: 'before_first_item',
    });
    // Past the task's 31 days.
    expect(await verdictStorage(books(), HOURLY, '2026-10-20', NOW, 'INCOMPLETE')).toEqual({
      state: 'not_scheduled',
      because: 'older_than_lookback',
    });
  });
});
