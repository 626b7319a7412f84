import { afterEach, describe, expect, it } from 'vitest';
import { buildDailyReport } from '../../src/reports/index.ts';
import type { SyncContext } from '../processing/support/sync-context.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { testDialect } from '../support/test-database.ts';
import {
  covered,
  createTransfer,
  DAY,
  dayContext,
  endOfDaySnapshot,
  MIDNIGHT,
  syncTransfer,
} from './support/verdict-day.ts';

/** Issue 40.6: a report's reasons name their fix, opening balances are named, ages are the day's. */
describe(`paysync report for a newcomer on ${testDialect()}`, () => {
  let context: SyncContext;
  afterEach(async () => context.cleanup());

  function report(now: string, coverage: typeof covered | null = covered) {
    return buildDailyReport({
      db: context.database.db,
      environment: 'sandbox',
      day: DAY,
      timeZone: 'UTC',
      now: new Date(now),
      ...(coverage !== null ? { coverage } : {}),
    });
  }

  it('every INCOMPLETE reason names the paysync command that fixes it', async () => {
    context = await dayContext();
    const id = await createTransfer(context, 10_000, '+221770001234');
    context.sim.control.advance(10_000);
    await syncTransfer(context, id);
    const notOver = await report('2026-11-20T12:00:00.000Z');
    expect(notOver.verdict).toBe('INCOMPLETE');
    expect(notOver.incomplete).toEqual([expect.stringContaining(`paysync report --date ${DAY}`)]);

    const noSnapshot = await report('2026-11-21T01:00:00.000Z', null);
    expect(noSnapshot.verdict).toBe('INCOMPLETE');
    expect(noSnapshot.incomplete).toEqual([
      `no end-of-day balance snapshot as of ${MIDNIGHT}: take it with paysync balances --at ${MIDNIGHT}`,
      `sweep coverage is unknown (no sweep records): paysync backfill --from 2026-11-20T00:00:00.000Z --to ${MIDNIGHT} covers the day`,
    ]);
  });

  it('shows opening balances apart from adjustments, in the CLI as "OPENING BALANCES"', async () => {
    context = await dayContext();
    const id = await createTransfer(context, 10_000, '+221770001234');
    context.sim.control.advance(10_000);
    await syncTransfer(context, id);
    context.sim.control.advance(15 * 3_600_000);
    await endOfDaySnapshot(context);
    const day = await report('2026-11-21T01:00:00.000Z');
    expect(day.money).toEqual([
      expect.objectContaining({ currency: 'XOF', openingBalances: 1_000_000, adjustments: 0 }),
    ]);

    const cli = await runCliInProcess(['report', '--date', DAY], {
      env: {
        PAYSYNC_DATABASE_URL: context.database.url,
        PAYSYNC_UPSTREAM_URL: context.sim.url,
        PAYSYNC_API_KEY: context.sim.credentials.apiKey,
        PAYSYNC_MERCHANT_ID: context.sim.credentials.merchantId,
        PAYSYNC_ENVIRONMENT: 'sandbox',
        PAYSYNC_LOG_LEVEL: 'silent',
      },
    });
    expect(cli.stdout).toMatch(/OPENING BALANCES +ADJUSTMENTS/);
    expect(cli.stdout).toMatch(/1,000,000 XOF +0 XOF/);
    // The real sweep check finds no sweep of the day, and says which backfill fills it.
    expect(cli.stdout).toContain(
      `paysync backfill --from 2026-11-20T00:00:00.000Z --to ${MIDNIGHT} fills the gap`,
    );
    expect(cli.code).toBe(4);
  });

  it("counts in a past day's open items by age only those created by its end, aged then", async () => {
    context = await dayContext();
    // Created at 10:00 on the day, still pending: 14 h old at midnight.
    await createTransfer(context, 5_000, '+221770009901');
    context.sim.control.advance(16 * 3_600_000);
    // Created at 02:00 the next day: not the day's business.
    await createTransfer(context, 6_000, '+221770009902');
    const day = await report('2026-11-21T12:00:00.000Z');
    expect(day.ageing).toEqual([
      { bucket: '<1h', count: 0 },
      { bucket: '1-24h', count: 1 },
      { bucket: '1-3d', count: 0 },
      { bucket: '>3d', count: 0 },
    ]);
  });

  it('a stuck item break names the command that shows it', async () => {
    context = await dayContext();
    const id = await createTransfer(context, 5_000, '+221770009909');
    context.sim.control.advance(15 * 3_600_000);
    await endOfDaySnapshot(context);
    const day = await report('2026-11-21T12:00:00.000Z');
    expect(day.breaks).toEqual([
      expect.objectContaining({
        kind: 'stuck',
        action: expect.stringContaining(`paysync show ${id}`),
      }),
    ]);
  });
});
