/**
 * The relay events of the books beyond items: drift detected and resolved by balance
 * snapshots, a closed day's verdict, a raised alert. Each commits with its change, once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { raiseAlert } from '../../src/alerts/index.ts';
import { takeBalanceSnapshot, type BalanceDependencies } from '../../src/balances/index.ts';
import { bookAdjustment } from '../../src/ledger/index.ts';
import { resolveSyncDependencies } from '../../src/reconcile/index.ts';
import { judgeClosedDays } from '../../src/reports/index.ts';
import { alertHarness, type AlertHarness } from '../alerts/support/alert-harness.ts';
import { createSyncContext, type SyncContext } from '../processing/support/sync-context.ts';
import { testDialect } from '../support/test-database.ts';
import {
  addEndpointRow,
  deliveredTypes,
  messageProblems,
  storedEvents,
} from './support/relay-schema.ts';
import { DAY, reconciledDay } from '../reports/support/verdict-day.ts';

let context: SyncContext | undefined;
let harness: AlertHarness | undefined;
afterEach(async () => {
  await context?.cleanup();
  await harness?.cleanup();
  context = undefined;
  harness = undefined;
});

describe(`relay events of the books on ${testDialect()}`, () => {
  it('a drift emits balance.drift_detected, and its resolution balance.drift_resolved, once each', async () => {
    context = await createSyncContext({
      sim: { initialBalances: [{ accountType: 'transfer', currency: 'XOF', amount: 2_000_000 }] },
    });
    const ctx = context;
    const endpoint = await addEndpointRow(ctx.database.db, {
      endpointId: 'ep_balance',
      eventTypes: ['balance.*'],
    });
    const deps: BalanceDependencies = {
      now: () => new Date(),
      db: ctx.database.db,
      upstream: ctx.deps.upstream,
      logger: ctx.deps.logger,
      environment: 'sandbox',
      fetch: resolveSyncDependencies(ctx.deps),
    };
    await takeBalanceSnapshot(deps);
    const fundedAt = ctx.sim.control.now();
    ctx.sim.control.fund({ accountType: 'transfer', currency: 'XOF', amount: 500_000 });
    ctx.sim.control.advance(1_000);
    const drifted = await takeBalanceSnapshot(deps);
    if (!drifted.ok) throw new Error(drifted.problem);
    // Still drifting: no second event.
    ctx.sim.control.advance(1_000);
    await takeBalanceSnapshot(deps);
    await bookAdjustment(ctx.database.db, {
      postedAt: new Date().toISOString(),
      environment: 'sandbox',
      account: 'service:transfer',
      currency: 'XOF',
      amount: 500_000,
      reason: 'top-up from bank',
      bookedBy: 'finance',
      effectiveAt: fundedAt,
    });
    ctx.sim.control.advance(1_000);
    const fixed = await takeBalanceSnapshot(deps);
    if (!fixed.ok) throw new Error(fixed.problem);

    const events = await storedEvents(ctx.database.db);
    expect(events.map((e) => e.type)).toEqual(['balance.drift_detected', 'balance.drift_resolved']);
    for (const event of events) expect(messageProblems(event.message)).toEqual([]);
    const discrepancyId = drifted.driftRecorded[0]!.id;
    const transfer = drifted.comparisons.find((c) => c.account === 'service:transfer')!;
    expect(events[0]!.message.data).toEqual({
      discrepancyId,
      account: 'service:transfer',
      accountType: 'transfer',
      currency: 'XOF',
      asOf: transfer.asOf,
      expected: 2_000_000,
      held: 2_500_000,
      difference: 500_000,
      unexplained: 500_000,
    });
    expect(events[1]!.message.data).toMatchObject({
      discrepancyId,
      difference: 0,
      detectedAt: transfer.asOf,
    });
    expect(events.map((e) => e.subject)).toEqual(['balance:transfer:XOF', 'balance:transfer:XOF']);
    expect((await deliveredTypes(ctx.database.db)).get(endpoint)).toEqual([
      'balance.drift_detected',
      'balance.drift_resolved',
    ]);
  });

  it('a closed day emits one day.verdict with its counts', async () => {
    // One transfer of 10,000 XOF paid and booked; the end-of-day snapshot agrees.
    context = await reconciledDay();
    const ctx = context;
    const judge = (now: string) =>
      judgeClosedDays({
        db: ctx.database.db,
        environment: 'sandbox',
        timeZone: 'UTC',
        coverage: async () => undefined,
        now: () => new Date(now),
      });
    expect((await judge('2026-11-21T01:00:00.000Z')).map((j) => j.verdict)).toEqual(['RECONCILED']);
    await judge('2026-11-21T02:00:00.000Z');

    const verdicts = (await storedEvents(ctx.database.db)).filter((e) => e.type === 'day.verdict');
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]!.subject).toBe(`day:${DAY}`);
    expect(verdicts[0]!.message.data).toMatchObject({
      day: DAY,
      timeZone: 'UTC',
      verdict: 'RECONCILED',
      counts: [{ kind: 'transfer', status: 'successful', count: 1 }],
      pending: 0,
      breaks: 0,
      incomplete: [],
    });
    expect(messageProblems(verdicts[0]!.message)).toEqual([]);
  });

  it('a raised alert emits alert.raised, masked like the alert; a recurrence emits nothing', async () => {
    harness = await alertHarness({});
    const db = harness.database.db;
    const endpoint = await addEndpointRow(db, { endpointId: 'ep_alerts', eventTypes: ['alert.*'] });
    const input = {
      kind: 'transfer_failed' as const,
      subject: 'tr_alert0001',
      title: 'Transfer to 221770009876 failed',
    };
    const raised = await raiseAlert(harness.deps, input);
    expect((await raiseAlert(harness.deps, input)).outcome).toBe('already_open');

    const events = await storedEvents(db);
    expect(events.map((e) => e.type)).toEqual(['alert.raised']);
    const data = events[0]!.message.data;
    expect(data).toMatchObject({
      alertId: raised.alert.id,
      kind: 'transfer_failed',
      severity: raised.alert.severity,
      subject: 'tr_alert0001',
      title: raised.alert.title,
    });
    expect(JSON.stringify(data)).not.toContain('221770009876');
    expect(messageProblems(events[0]!.message)).toEqual([]);
    expect((await deliveredTypes(db)).get(endpoint)).toEqual(['alert.raised']);
  });
});
