import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { runBalanceTask, snapshotsAt, type BalanceDependencies } from '../../src/balances/index.ts';
import { bookAdjustment, serviceBalancesAsOf, SERVICE_ACCOUNTS } from '../../src/ledger/index.ts';
import { runBackfill, runSweep, sweepCoverage } from '../../src/polling/index.ts';
import { syncResource } from '../../src/reconcile/index.ts';
import { judgeClosedDays, storedVerdicts } from '../../src/reports/index.ts';
import { dayWindow } from '../../src/books-calendar/index.ts';
import { createSyncContext, type SyncContext } from '../processing/support/sync-context.ts';

const HOUR = 3_600_000;
const WEEK_START = '2026-11-02';

/**
 * Acceptance 1 of the balances issue: a simulated week of mixed traffic (fees, IRT transfers,
 * failures, refunds of both kinds, a funding top-up booked with `adjust`), swept, snapshotted
 * and judged as the daemon's tasks do, on a moved simulator clock.
 */
describe('a simulated week of books', () => {
  let context: SyncContext;
  afterEach(async () => context.cleanup());

  it('agrees with every end-of-day snapshot to the unit and judges every day RECONCILED', async () => {
    context = await createSyncContext({
      sim: {
        startAt: new Date(`${WEEK_START}T06:00:00.000Z`),
        initialBalances: [
          { accountType: 'transfer', currency: 'XOF', amount: 50_000_000 },
          { accountType: 'transfer-irt', currency: 'XOF', amount: 20_000_000 },
          { accountType: 'collection', currency: 'XOF', amount: 0 },
        ],
      },
      overrides: { transferSearchHours: 24 * 30 },
    });
    const { sim, database } = context;
    const simNow = () => new Date(sim.control.now());
    const deps = { ...context.deps, now: simNow };
    const logger = pino({ level: 'silent' });
    const sweep = () =>
      runSweep(
        { db: database.db, upstream: deps.upstream, logger, environment: 'sandbox', now: simNow },
        { perPage: 100 },
      );
    const balances: BalanceDependencies = {
      db: database.db,
      upstream: deps.upstream,
      logger,
      environment: 'sandbox',
      fetch: deps,
      now: simNow,
    };
    const syncRefund = (kind: 'refund' | 'payment_refund', id: string) =>
      syncResource(deps, { kind, id, via: 'poll' }, { attempt: 1 });

    // History before sweeping began is loaded by a backfill, as on a first deployment; then
    // the first sweep pins where sweeping starts.
    await runBackfill(
      { db: database.db, upstream: deps.upstream, logger, environment: 'sandbox', now: simNow },
      { from: new Date(`${WEEK_START}T00:00:00.000Z`), to: simNow() },
    );
    await sweep();
    const refunds: { kind: 'refund' | 'payment_refund'; id: string }[] = [];
    for (let day = 0; day < 7; day += 1) {
      const eight = Date.parse(`${WEEK_START}T08:00:00.000Z`) + day * 24 * HOUR;
      sim.control.advance(eight - simNow().getTime()); // 08:00 of the day
      for (let i = 0; i < 6; i += 1) {
        sim.control.createTransfer({
          amount: 10_000 * (day + 1) + i * 100,
          isIrt: i === 4,
          destination: { number: `+2217700${day}${i}${i === 5 ? '9901' : '1234'}` },
        });
        sim.control.createPaymentIntent({
          amount: 7_500 + day * 50 + i,
          phoneNumber: `+2217600${day}${i}${i === 3 ? '0002' : '5123'}`,
        });
        sim.control.advance(HOUR);
      }
      sim.control.advance(HOUR); // 15:00: everything of the morning is final
      if (day === 2) {
        const fundedAt = sim.control.now();
        sim.control.fund({ accountType: 'transfer', currency: 'XOF', amount: 3_000_000 });
        await bookAdjustment(database.db, {
          postedAt: new Date().toISOString(),
          environment: 'sandbox',
          account: 'service:transfer',
          currency: 'XOF',
          amount: 3_000_000,
          reason: 'top-up from bank',
          bookedBy: 'finance',
          effectiveAt: fundedAt,
        });
      }
      if (day === 3 || day === 5) {
        const truth = sim.control.groundTruth();
        // The day's newest successful items: never refunded before.
        const transfer = truth.items
          .filter((item) => item.kind === 'transfer' && item.status === 'successful')
          .sort((a, b) => String(a.resource.createdAt).localeCompare(String(b.resource.createdAt)))
          .at(-1)!;
        const intent = truth.items
          .filter((item) => item.kind === 'payment_intent' && item.status === 'successful')
          .sort((a, b) => String(a.resource.createdAt).localeCompare(String(b.resource.createdAt)))
          .at(-1)!;
        const refund = await deps.upstream.createTransferRefund({
          transactionId: transfer.id,
          reason: `week ${day}`,
        });
        refunds.push({ kind: 'refund', id: String((refund as { id: unknown }).id) });
        const paymentRefund = await deps.upstream.createPaymentRefund(intent.id, { amount: 1_000 });
        refunds.push({
          kind: 'payment_refund',
          id: String(
            (paymentRefund as { id?: unknown; refundId?: unknown }).refundId ??
              (paymentRefund as { id?: unknown }).id,
          ),
        });
      }
      sim.control.advance(HOUR);
      for (const refund of refunds) await syncRefund(refund.kind, refund.id);
      await sweep();
      sim.control.advance(10 * HOUR); // 02:00 the next day
      await sweep();
      const task = await runBalanceTask(balances, { timeZone: 'UTC' });
      expect(task.current.ok).toBe(true);
    }

    const judged = await judgeClosedDays({
      db: database.db,
      environment: 'sandbox',
      timeZone: 'UTC',
      coverage: sweepCoverage(database.db, 'sandbox'),
      now: simNow,
    });
    const week = await storedVerdicts(database.db, 'sandbox', { since: WEEK_START });
    const reasons = week
      .filter((v) => v.verdict !== 'RECONCILED')
      .map(
        (v) =>
          `${v.day}: ${[...v.report.breaks.map((b) => b.line), ...v.report.incomplete].join('; ')}`,
      );
    expect(reasons).toEqual([]);
    expect(week.map((v) => v.verdict)).toEqual(Array(7).fill('RECONCILED'));
    expect(judged).toHaveLength(7);

    for (const verdict of week) {
      const end = dayWindow(verdict.day, 'UTC').to;
      const snapshot = await snapshotsAt(database.db, 'sandbox', end);
      const ledger = await serviceBalancesAsOf(database.db, end);
      expect(snapshot.length).toBeGreaterThan(0);
      for (const balance of snapshot) {
        const account = SERVICE_ACCOUNTS[balance.accountType as keyof typeof SERVICE_ACCOUNTS];
        const booked =
          ledger.find((l) => l.account === account && l.currency === balance.currency)?.balance ??
          0;
        expect({ day: verdict.day, account, amount: booked }).toEqual({
          day: verdict.day,
          account,
          amount: balance.amount,
        });
      }
    }
    const byDay = new Map(week.map((v) => [v.day, v.report]));
    expect(byDay.get('2026-11-04')!.money[0]).toMatchObject({ adjustments: 3_000_000 });
    expect(byDay.get('2026-11-05')!.money[0]!.refunds).toBe(1_000);
    expect(byDay.get('2026-11-05')!.counts).toContainEqual({
      kind: 'transfer',
      status: 'failed',
      count: 1,
    });
    const lastDay = week[0]!;
    expect(lastDay.report.money[0]).toMatchObject({ currency: 'XOF' });
    expect(lastDay.report.money[0]!.fees).toBeGreaterThan(0);
  }, 240_000);
});
