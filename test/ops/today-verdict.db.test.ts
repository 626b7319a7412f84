import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { dayOf, dayWindow, previousDay } from '../../src/books-calendar/index.ts';
import { createOpsRouter, createOpsServer, type OpsServer } from '../../src/ops/index.ts';
import { runBackfill, sweepCoverage } from '../../src/polling/index.ts';
import { judgeClosedDays } from '../../src/reports/index.ts';
import type { SyncContext } from '../processing/support/sync-context.ts';
import { createSyncContext } from '../processing/support/sync-context.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { testDialect } from '../support/test-database.ts';
import { createTransfer, snapshot, syncTransfer } from '../reports/support/verdict-day.ts';

const TOKEN = 'today-verdict-token-5d2e8a71';
const HOUR = 3_600_000;

/** The row of `day` in the Today page's verdicts table, tags and all. */
function verdictRow(page: string, day: string): string {
  const row = new RegExp(`<tr data-day="${day}">([\\s\\S]*?)</tr>`).exec(page);
  if (!row) throw new Error(`no verdict row for ${day} on the Today page`);
  return row[1]!;
}

/**
 * Issue 40.7: in the same minute, `paysync report` said yesterday was RECONCILED and the Today
 * page said "no verdict stored". Both now judge the day with the one function, and the page says
 * whether that verdict is stored, or when the verdicts task will store it.
 */
describe(`the Today page and paysync report give one answer, on ${testDialect()}`, () => {
  let context: SyncContext | undefined;
  let server: OpsServer | undefined;
  afterEach(async () => {
    await server?.stop();
    await context?.cleanup();
    server = undefined;
    context = undefined;
  });

  /**
   * Books where yesterday (UTC, real dates: the CLI reads the system clock) is RECONCILED: one
   * transfer paid and booked, a backfill that covered the day, and the end-of-day snapshot.
   */
  async function reconciledYesterday() {
    const today = dayOf(new Date(), 'UTC');
    const yesterday = previousDay(today);
    const window = dayWindow(yesterday, 'UTC');
    context = await createSyncContext({
      sim: {
        startAt: new Date(Date.parse(window.from) + 8 * HOUR),
        initialBalances: [{ accountType: 'transfer', currency: 'XOF', amount: 1_000_000 }],
      },
    });
    const { sim, database } = context;
    const id = await createTransfer(context, 10_000, '+221770001234');
    sim.control.advance(10_000);
    await syncTransfer(context, id);
    // Just past midnight: yesterday is over, and the simulator is not ahead of the real clock.
    sim.control.advance(Date.parse(window.to) + 1_000 - new Date(sim.control.now()).getTime());
    const simNow = () => new Date(sim.control.now());
    await runBackfill(
      {
        db: database.db,
        upstream: context.deps.upstream,
        logger: pino({ level: 'silent' }),
        environment: 'sandbox',
        now: simNow,
      },
      { from: new Date(window.from), to: new Date(window.to) },
    );
    await snapshot(context, { at: window.to, kind: 'end_of_day' });
    return { today, yesterday, dayBefore: previousDay(yesterday), window };
  }

  async function startOps(): Promise<string> {
    server = createOpsServer({
      routes: createOpsRouter({
        now: () => new Date(),
        db: context!.database.db,
        logger: pino({ level: 'silent' }),
        tokens: [TOKEN],
        environment: 'sandbox',
        timeZone: 'UTC',
      }),
      port: 0,
      host: '127.0.0.1',
      logger: pino({ level: 'silent' }),
    });
    await server.start();
    return server.url;
  }

  const get = async (base: string, path: string) => {
    const response = await fetch(`${base}${path}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(200);
    return response;
  };

  function report(day: string) {
    return runCliInProcess(['report', '--date', day], {
      env: {
        PAYSYNC_DATABASE_URL: context!.database.url,
        PAYSYNC_UPSTREAM_URL: context!.sim.url,
        PAYSYNC_API_KEY: context!.sim.credentials.apiKey,
        PAYSYNC_MERCHANT_ID: context!.sim.credentials.merchantId,
        PAYSYNC_ENVIRONMENT: 'sandbox',
        PAYSYNC_BOOKS_TIMEZONE: 'UTC',
        PAYSYNC_LOG_LEVEL: 'silent',
      },
    });
  }

  it('shows RECONCILED for a day report calls RECONCILED, before the verdicts task stores it and after', async () => {
    const { yesterday } = await reconciledYesterday();
    const cli = await report(yesterday);
    expect(cli.stdout).toContain(`${yesterday} (UTC, sandbox): RECONCILED`);
    expect(cli.code).toBe(0);

    const base = await startOps();
    const before = new Date();
    const row = verdictRow(await (await get(base, '/')).text(), yesterday);
    expect(row).toContain('RECONCILED');
    expect(row).not.toContain('no verdict stored');
    // Not stored yet: the page says when the verdicts task (20 past every hour) stores it.
    const due = /not stored yet: the verdicts task stores it at (\S+Z)/.exec(row);
    expect(due, row).not.toBeNull();
    const at = new Date(due![1]!);
    expect(at.getTime()).toBeGreaterThan(before.getTime());
    expect(at.getTime()).toBeLessThanOrEqual(before.getTime() + HOUR + 60_000);
    expect(at.getUTCMinutes()).toBe(20);

    // The ops API's report agrees, and says the same.
    const answer = (await (await get(base, `/api/v1/reports/${yesterday}`)).json()) as {
      data: { verdict: string };
      stored: boolean;
      storage: { state: string; at?: string };
    };
    expect(answer).toMatchObject({
      data: { verdict: 'RECONCILED' },
      stored: false,
      storage: { state: 'due' },
    });

    // The verdicts task runs as the daemon runs it: the page now shows the stored verdict.
    const judged = await judgeClosedDays({
      db: context!.database.db,
      environment: 'sandbox',
      timeZone: 'UTC',
      coverage: sweepCoverage(context!.database.db, 'sandbox'),
      now: () => new Date(),
    });
    expect(judged.find((j) => j.day === yesterday)?.verdict).toBe('RECONCILED');
    const storedRow = verdictRow(await (await get(base, '/')).text(), yesterday);
    expect(storedRow).toContain('RECONCILED');
    expect(storedRow).toMatch(/stored at \d{4}-\d{2}-\d{2}T/);
    expect(storedRow).not.toContain('not stored');
    expect(
      ((await (await get(base, `/api/v1/reports/${yesterday}`)).json()) as { stored: boolean })
        .stored,
    ).toBe(true);
    expect((await report(yesterday)).code).toBe(0);
  });

  it('says when the verdict will be stored where none can be computed yet', async () => {
    const { today, dayBefore, window } = await reconciledYesterday();
    const base = await startOps();
    const page = await (await get(base, '/')).text();

    // Today is not over: stored at 00:20 after its end, once the 00:00 snapshot is in (the
    // default PAYSYNC_BALANCE_CRON and PAYSYNC_VERDICT_CRON, hourly and 20 past the hour).
    const end = Date.parse(dayWindow(today, 'UTC').to);
    const todayRow = verdictRow(page, today);
    expect(todayRow).toContain('not over');
    expect(todayRow).toContain(
      `not stored yet: the verdicts task stores it at ${new Date(end + HOUR / 3).toISOString()}, once the balances task has taken the end-of-day snapshot at ${new Date(end).toISOString()}`,
    );

    // The day before yesterday lies before the first item: report and page both say INCOMPLETE
    // (no end-of-day snapshot), and the page says that no task will store it, and why.
    const cli = await report(dayBefore);
    expect(cli.stdout).toContain(`${dayBefore} (UTC, sandbox): INCOMPLETE`);
    expect(cli.code).toBe(4);
    const dayBeforeRow = verdictRow(page, dayBefore);
    expect(dayBeforeRow).toContain('INCOMPLETE');
    expect(dayBeforeRow).toContain(
      `no end-of-day balance snapshot as of ${window.from}: take it with paysync balances --at ${window.from}`,
    );
    expect(dayBeforeRow).toContain('not stored: the balances task takes no end-of-day snapshot');
  });
});
