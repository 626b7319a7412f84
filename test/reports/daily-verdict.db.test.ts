import { afterEach, describe, expect, it } from 'vitest';
import { buildDailyReport, storedVerdicts, storeVerdict } from '../../src/reports/index.ts';
import type { SyncContext } from '../processing/support/sync-context.ts';
import {
  covered,
  createTransfer,
  DAY,
  dayContext,
  endOfDaySnapshot,
  MIDNIGHT,
  snapshot,
  syncTransfer,
} from './support/verdict-day.ts';

describe('the daily verdict', () => {
  let context: SyncContext;
  afterEach(async () => context.cleanup());

  function report(now: string, coverage = covered) {
    return buildDailyReport({
      db: context.database.db,
      environment: 'sandbox',
      day: DAY,
      timeZone: 'UTC',
      now: new Date(now),
      coverage,
    });
  }

  it('is RECONCILED when every item is final and booked and the end-of-day balance agrees', async () => {
    context = await dayContext();
    const id = await createTransfer(context, 10_000, '+221770001234');
    context.sim.control.advance(10_000);
    await syncTransfer(context, id);
    context.sim.control.advance(15 * 3_600_000);
    await endOfDaySnapshot(context);
    const day = await report('2026-11-21T01:00:00.000Z');
    expect(day.verdict).toBe('RECONCILED');
    expect(day.counts).toEqual([{ kind: 'transfer', status: 'successful', count: 1 }]);
    expect(day.money).toEqual([
      expect.objectContaining({ currency: 'XOF', payouts: 10_000, fees: 100, net: -10_100 }),
    ]);
    expect(day.endOfDayBalances).toEqual([
      {
        accountType: 'transfer',
        currency: 'XOF',
        service: 989_900,
        ledger: 989_900,
        difference: 0,
      },
    ]);
    expect(await storeVerdict(context.database.db, day)).toBeUndefined();
    expect((await storedVerdicts(context.database.db, 'sandbox'))[0]).toMatchObject({
      day: DAY,
      verdict: 'RECONCILED',
    });
  });

  it('shows an account the end-of-day answer omits as not in the answer, never as a service balance of 0', async () => {
    context = await dayContext();
    const id = await createTransfer(context, 10_000, '+221770001234');
    context.sim.control.advance(10_000);
    await syncTransfer(context, id);
    // A manual snapshot books the opening balance, so the ledger holds service:transfer XOF.
    await snapshot(context);
    // The end-of-day answer lists only the collection account: transfer XOF is not in it.
    await context.database.db
      .insertInto('balance_snapshots')
      .values({
        environment: 'sandbox',
        account_type: 'collection',
        currency: 'XOF',
        amount: 0,
        as_of: MIDNIGHT,
        taken_at: MIDNIGHT,
        kind: 'end_of_day',
        raw: '{}',
      })
      .execute();
    const day = await report('2026-11-21T01:00:00.000Z');
    expect(day.endOfDayBalances).toEqual([
      { accountType: 'collection', currency: 'XOF', service: 0, ledger: 0, difference: 0 },
      {
        accountType: 'transfer',
        currency: 'XOF',
        service: null,
        ledger: 989_900,
        difference: null,
        notInAnswer: true,
      },
    ]);
    expect(day.breaks).toEqual([]);
    expect(day.verdict).toBe('INCOMPLETE');
    expect(day.incomplete).toEqual([
      `the end-of-day answer does not list transfer XOF (ledger 989900 XOF, in minor units): not compared, never read as 0; ask the service why, then take the snapshot again with paysync balances --at ${MIDNIGHT}`,
    ]);
  });

  it('is RECONCILED_WITH_PENDING with one young pending transfer, listed with its age', async () => {
    context = await dayContext();
    context.sim.control.advance(12 * 3_600_000);
    const id = await createTransfer(context, 5_000, '+221770009909');
    context.sim.control.advance(10_000);
    await syncTransfer(context, id);
    context.sim.control.advance(2 * 3_600_000);
    await endOfDaySnapshot(context);
    const day = await report('2026-11-21T01:00:00.000Z');
    expect(day.verdict).toBe('RECONCILED_WITH_PENDING');
    expect(day.pending).toEqual([
      expect.objectContaining({ id, status: 'pending', ageHours: 3, slaHours: 24 }),
    ]);
    expect(day.breaks).toEqual([]);
  });

  it('is BREAKS with a stuck transfer, with a line that explains it', async () => {
    context = await dayContext();
    const id = await createTransfer(context, 5_000, '+221770009909');
    context.sim.control.advance(10_000);
    await syncTransfer(context, id);
    context.sim.control.advance(15 * 3_600_000);
    await endOfDaySnapshot(context);
    const day = await report('2026-11-21T12:00:00.000Z');
    expect(day.verdict).toBe('BREAKS');
    expect(day.breaks).toEqual([
      expect.objectContaining({
        kind: 'stuck',
        subject: id,
        line: `${id} has been pending for 26 h, past its 24 h SLA`,
      }),
    ]);
  });

  it('is INCOMPLETE when the sweep never covered the day, or no end-of-day snapshot exists', async () => {
    context = await dayContext();
    const id = await createTransfer(context, 10_000, '+221770001234');
    context.sim.control.advance(10_000);
    await syncTransfer(context, id);
    const noSnapshot = await report('2026-11-21T01:00:00.000Z');
    expect(noSnapshot.verdict).toBe('INCOMPLETE');
    expect(noSnapshot.incomplete).toEqual([
      `no end-of-day balance snapshot as of ${MIDNIGHT}: take it with paysync balances --at ${MIDNIGHT}`,
    ]);

    context.sim.control.advance(15 * 3_600_000);
    await endOfDaySnapshot(context);
    const unswept = await report(
      '2026-11-21T01:00:00.000Z',
      async () => 'no successful sweep of transfers covered 2026-11-20',
    );
    expect(unswept.verdict).toBe('INCOMPLETE');
    expect(unswept.incomplete).toEqual(['no successful sweep of transfers covered 2026-11-20']);
  });

  it('is BREAKS when money moved that no item explains, naming the amount', async () => {
    context = await dayContext();
    const id = await createTransfer(context, 10_000, '+221770001234');
    context.sim.control.advance(10_000);
    await syncTransfer(context, id);
    context.sim.control.fund({ accountType: 'transfer', currency: 'XOF', amount: 77_000 });
    context.sim.control.advance(15 * 3_600_000);
    await endOfDaySnapshot(context);
    const day = await report('2026-11-21T01:00:00.000Z');
    expect(day.verdict).toBe('BREAKS');
    expect(day.breaks.map((b) => b.line).join('\n')).toContain('77000 XOF');
  });
});
