import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  snapshotHistory,
  takeBalanceSnapshot,
  type BalanceDependencies,
} from '../../src/balances/index.ts';
import {
  bookAdjustment,
  discrepanciesFor,
  openDiscrepancies,
  serviceBalancesAsOf,
} from '../../src/ledger/index.ts';
import { resolveSyncDependencies, syncResource } from '../../src/reconcile/index.ts';
import { createSyncContext, type SyncContext } from '../processing/support/sync-context.ts';

const recipient = (suffix = '1234') => ({ number: `+2217700${suffix}` });

describe('balance snapshots against the ledger', () => {
  let context: SyncContext;
  let deps: BalanceDependencies;

  beforeEach(async () => {
    context = await createSyncContext({
      sim: {
        initialBalances: [
          { accountType: 'transfer', currency: 'XOF', amount: 2_000_000 },
          { accountType: 'transfer-irt', currency: 'EUR', amount: 90_000 },
          { accountType: 'collection', currency: 'XOF', amount: 0 },
        ],
      },
    });
    deps = {
      now: () => new Date(),
      db: context.database.db,
      upstream: context.deps.upstream,
      logger: context.deps.logger,
      environment: 'sandbox',
      fetch: resolveSyncDependencies(context.deps),
    };
  });
  afterEach(async () => context.cleanup());

  /** A transfer created at the service and synced while it is still `created`. */
  async function syncedTransfer(amount: number, suffix?: string): Promise<string> {
    const transfer = context.sim.control.createTransfer({
      amount,
      destination: recipient(suffix),
    });
    await syncResource(
      context.deps,
      { kind: 'transfer', id: transfer.id, via: 'poll' },
      { attempt: 1 },
    );
    return transfer.id;
  }

  async function syncAll(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      await syncResource(context.deps, { kind: 'transfer', id, via: 'poll' }, { attempt: 1 });
    }
  }

  it('books opening balances from the first snapshot only, after which the ledger agrees', async () => {
    const first = await takeBalanceSnapshot(deps);
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(first.openings.map((o) => [o.account, o.currency, o.amount]).sort()).toEqual([
      ['service:transfer', 'XOF', 2_000_000],
      ['service:transfer-irt', 'EUR', 90_000],
    ]);
    expect(first.comparisons.every((c) => c.verdict === 'agrees')).toBe(true);

    const id = await syncedTransfer(10_000);
    context.sim.control.advance(10_000);
    await syncAll([id]);
    const second = await takeBalanceSnapshot(deps);
    if (!second.ok) throw new Error(second.problem);
    expect(second.openings).toEqual([]);
    const transfer = second.comparisons.find((c) => c.account === 'service:transfer')!;
    // 10,000 paid out plus the simulator's 1 % fee.
    expect(transfer).toMatchObject({ service: 1_989_900, ledger: 1_989_900, difference: 0 });
    expect(await openDiscrepancies(context.database.db)).toEqual([]);
    expect(await snapshotHistory(context.database.db, { environment: 'sandbox' })).toHaveLength(6);
  });

  it('books the opening balance before items seeded earlier than the simulator started, and agrees', async () => {
    const startedMs = Date.parse(context.sim.control.now());
    const { ids } = context.sim.control.seed({
      kind: 'transfer',
      count: 5,
      // Before the start, but inside the 2 h that a transfer known only by id is searched in.
      from: new Date(startedMs - 50 * 60_000).toISOString(),
      to: new Date(startedMs - 10 * 60_000).toISOString(),
      failureRate: 0,
      settle: true,
    });
    await syncAll(ids);
    const first = await takeBalanceSnapshot(deps);
    if (!first.ok) throw new Error(first.problem);
    const transfer = first.openings.find((o) => o.account === 'service:transfer');
    expect(transfer).toMatchObject({ currency: 'XOF', amount: 2_000_000 });
    expect(Date.parse(transfer!.effectiveAt)).toBeLessThan(startedMs - 10 * 60_000);
    expect(first.comparisons.map((c) => [c.account, c.verdict])).toEqual(
      expect.arrayContaining([
        ['service:transfer', 'agrees'],
        ['service:transfer-irt', 'agrees'],
      ]),
    );
    expect(first.driftRecorded).toEqual([]);
  });

  it('reports transfers settled at the service but not yet synced as pending, with their ids, not drift', async () => {
    await takeBalanceSnapshot(deps);
    const ids = [await syncedTransfer(20_000), await syncedTransfer(30_000)];
    context.sim.control.advance(10_000);
    expect(context.sim.control.item(ids[0]!)!.status).toBe('successful');

    const outcome = await takeBalanceSnapshot(deps);
    if (!outcome.ok) throw new Error(outcome.problem);
    const transfer = outcome.comparisons.find((c) => c.account === 'service:transfer')!;
    expect(transfer.verdict).toBe('pending');
    expect(transfer.difference).toBe(-(20_000 + 200 + 30_000 + 300));
    expect(transfer.unexplained).toBe(0);
    expect(
      transfer.candidates
        .filter((c) => c.reason === 'in_flight')
        .map((c) => c.resourceId)
        .sort(),
    ).toEqual([...ids].sort());
    expect(outcome.driftRecorded).toEqual([]);
    expect(
      (await openDiscrepancies(context.database.db)).filter((d) => d.kind === 'balance_drift'),
    ).toEqual([]);
  });

  it('records drift of exactly the unexplained amount, and an adjustment resolves it at the next snapshot', async () => {
    await takeBalanceSnapshot(deps);
    const fundedAt = context.sim.control.now();
    context.sim.control.fund({ accountType: 'transfer', currency: 'XOF', amount: 500_000 });
    context.sim.control.advance(1_000);

    const drifted = await takeBalanceSnapshot(deps);
    if (!drifted.ok) throw new Error(drifted.problem);
    expect(drifted.driftRecorded).toHaveLength(1);
    expect(drifted.driftRecorded[0]).toMatchObject({
      kind: 'balance_drift',
      resourceId: 'sandbox:transfer:XOF',
      detail: { amount: 500_000, currency: 'XOF', account: 'service:transfer' },
    });
    const others = drifted.comparisons.filter((c) => c.account !== 'service:transfer');
    expect(others.every((c) => c.verdict === 'agrees')).toBe(true);

    await bookAdjustment(context.database.db, {
      postedAt: new Date().toISOString(),
      environment: 'sandbox',
      account: 'service:transfer',
      currency: 'XOF',
      amount: 500_000,
      reason: 'top-up from bank',
      bookedBy: 'finance',
      effectiveAt: fundedAt,
    });
    context.sim.control.advance(1_000);
    const fixed = await takeBalanceSnapshot(deps);
    if (!fixed.ok) throw new Error(fixed.problem);
    expect(fixed.comparisons.every((c) => c.verdict === 'agrees')).toBe(true);
    const [drift] = await discrepanciesFor(
      context.database.db,
      'balance_account',
      'sandbox:transfer:XOF',
    );
    expect(drift!.resolvedAt).not.toBeNull();
  });

  it('a snapshot of an earlier instant that agrees leaves a later drift open (no resolve-then-raise-again)', async () => {
    await takeBalanceSnapshot(deps);
    const before = context.sim.control.now();
    context.sim.control.advance(1_000);
    context.sim.control.fund({ accountType: 'transfer', currency: 'XOF', amount: 500_000 });
    context.sim.control.advance(1_000);
    const drifted = await takeBalanceSnapshot(deps);
    if (!drifted.ok) throw new Error(drifted.problem);
    expect(drifted.driftRecorded).toHaveLength(1);

    // An end-of-day snapshot of an instant before the top-up agrees with the ledger then: it
    // says nothing of the drift found later, which stays open and is not raised a second time.
    const earlier = await takeBalanceSnapshot(deps, { at: before, kind: 'end_of_day' });
    if (!earlier.ok) throw new Error(earlier.problem);
    expect(earlier.comparisons.every((c) => c.verdict === 'agrees')).toBe(true);
    context.sim.control.advance(1_000);
    const again = await takeBalanceSnapshot(deps);
    if (!again.ok) throw new Error(again.problem);
    expect(again.driftRecorded).toEqual([]);
    const drifts = await discrepanciesFor(
      context.database.db,
      'balance_account',
      'sandbox:transfer:XOF',
    );
    expect(drifts.map((d) => d.resolvedAt)).toEqual([null]);
  });

  it('raises low balance once per crossing, not once per snapshot', async () => {
    const watched = {
      ...deps,
      lowBalance: [{ accountType: 'transfer', currency: 'XOF', minimum: 1_900_000 }],
    };
    expect((await takeBalanceSnapshot(watched)).ok && true).toBe(true);
    const payout = await syncedTransfer(150_000);
    context.sim.control.advance(10_000);
    await syncAll([payout]);
    const under = await takeBalanceSnapshot(watched);
    if (!under.ok) throw new Error(under.problem);
    expect(under.lowBalance).toEqual([
      expect.objectContaining({ accountType: 'transfer', currency: 'XOF', crossings: 1 }),
    ]);
    const stillUnder = await takeBalanceSnapshot(watched);
    expect(stillUnder.ok && stillUnder.lowBalance).toEqual([]);

    context.sim.control.fund({ accountType: 'transfer', currency: 'XOF', amount: 400_000 });
    const over = await takeBalanceSnapshot(watched);
    expect(over.ok && over.lowBalance).toEqual([]);
    context.sim.control.fund({ accountType: 'transfer', currency: 'XOF', amount: -400_000 });
    const underAgain = await takeBalanceSnapshot(watched);
    expect(underAgain.ok && underAgain.lowBalance).toEqual([
      expect.objectContaining({ crossings: 2 }),
    ]);
  });

  it.each(['keyed', 'data'] as const)(
    'reads the %s balance shape the same as the list shape',
    async (balanceShape) => {
      context.sim.control.setFaults({ balanceShape });
      const outcome = await takeBalanceSnapshot(deps);
      if (!outcome.ok) throw new Error(outcome.problem);
      expect(outcome.openings.map((o) => o.amount).sort()).toEqual([2_000_000, 90_000].sort());
    },
  );

  it('records a contract_error, books nothing and says why when the balance shape is unknown', async () => {
    context.sim.control.setFaults({ balanceShape: 'opaque' });
    const outcome = await takeBalanceSnapshot(deps);
    expect(outcome).toMatchObject({ ok: false });
    if (outcome.ok) return;
    expect(outcome.problem).toContain('no list of balances was found');
    const [discrepancy] = await openDiscrepancies(context.database.db);
    expect(discrepancy).toMatchObject({ kind: 'contract_error', resourceKind: 'balance' });
    expect(discrepancy!.rawBody).toContain('"result":"ok"');
    expect(await snapshotHistory(context.database.db, { environment: 'sandbox' })).toEqual([]);
    expect(await serviceBalancesAsOf(context.database.db, new Date().toISOString())).toEqual([]);
  });
});
