import { afterEach, describe, expect, it } from 'vitest';
import { markOverdue, resolveExpectation } from '../../src/expectations/index.ts';
import { buildDailyReport, judgeClosedDays, storedVerdicts } from '../../src/reports/index.ts';
import { expectation } from '../expectations/match-fixtures.ts';
import { insertExpectation } from '../expectations/support/matching-rows.ts';
import type { SyncContext } from '../processing/support/sync-context.ts';
import { covered, DAY, reconciledDay } from './support/verdict-day.ts';

const AFTER = new Date('2026-11-21T01:00:00.000Z');

describe('the daily verdict counts expectation breaks', () => {
  let context: SyncContext;
  afterEach(async () => context.cleanup());

  /** A payout of 40,000 XOF expected by noon that day and never paid: overdue at 20:00. */
  async function missingPayout(): Promise<void> {
    const { id: _id, ...fields } = expectation({
      expectation_id: 'payroll-7',
      amount_min: 40_000,
      amount_max: 40_000,
      reference: 'payroll-7',
      window_from: `${DAY}T00:00:00.000Z`,
      window_to: `${DAY}T12:00:00.000Z`,
    });
    await insertExpectation(context.database.db, fields);
    await markOverdue(context.database.db, `${DAY}T20:00:00.000Z`, {
      environment: 'sandbox',
      allExpected: 'off',
    });
  }

  function judge(expectationBreakVerdict?: readonly string[]) {
    return judgeClosedDays({
      db: context.database.db,
      environment: 'sandbox',
      timeZone: 'UTC',
      coverage: covered,
      now: () => AFTER,
      ...(expectationBreakVerdict ? { expectationBreakVerdict } : {}),
    });
  }

  it('is BREAKS with an open missing break, names it, and is RECONCILED once it is resolved by hand', async () => {
    context = await reconciledDay();
    await missingPayout();

    expect(await judge()).toEqual([{ day: DAY, verdict: 'BREAKS', previous: undefined }]);
    const [stored] = await storedVerdicts(context.database.db, 'sandbox');
    expect(stored!.report.breaks).toEqual([
      {
        kind: 'expectation_missing',
        subject: 'payroll-7',
        line: expect.stringMatching(/^expectation break missing: .*payroll-7.*40,000 XOF/),
        action: expect.stringMatching(/paysync expect resolve --break-id \d+ --reason/),
      },
    ]);
    expect(stored!.report.expectationBreaks).toEqual([
      { kind: 'missing', count: 1, breaksTheDay: true },
    ]);

    await resolveExpectation(
      context.database.db,
      { environment: 'sandbox', now: () => AFTER },
      'payroll-7',
      { reason: 'paid by cheque', by: 'finance', source: 'cli' },
    );
    expect(await judge()).toEqual([{ day: DAY, verdict: 'RECONCILED', previous: 'BREAKS' }]);
    const [again] = await storedVerdicts(context.database.db, 'sandbox');
    expect(again!.report.breaks).toEqual([]);
    expect(again!.report.expectationBreaks).toEqual([]);
  });

  it('only counts the break when PAYSYNC_EXPECTATIONS_BREAK_VERDICT is none', async () => {
    context = await reconciledDay();
    await missingPayout();
    const report = await buildDailyReport({
      db: context.database.db,
      environment: 'sandbox',
      day: DAY,
      timeZone: 'UTC',
      now: AFTER,
      coverage: covered,
      expectationBreakVerdict: [],
    });
    expect(report.verdict).toBe('RECONCILED');
    expect(report.breaks).toEqual([]);
    expect(report.expectationBreaks).toEqual([{ kind: 'missing', count: 1, breaksTheDay: false }]);
  });

  it('does not count a break detected on another day', async () => {
    context = await reconciledDay();
    await missingPayout();
    const report = await buildDailyReport({
      db: context.database.db,
      environment: 'sandbox',
      day: '2026-11-19',
      timeZone: 'UTC',
      now: AFTER,
      coverage: covered,
    });
    expect(report.expectationBreaks).toEqual([]);
    expect(report.breaks).toEqual([]);
  });
});
