import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import {
  discoverPaymentRefunds,
  paymentRefundProbeStream,
  readCheckpoint,
} from '../../src/polling/index.ts';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { testDialect } from '../support/test-database.ts';
import { until } from '../support/until.ts';

const MINUTE = 60_000;

/** The highest payment-refund id in the mirror. */
async function highestPaymentRefund(db: DaemonFixture['database']['db']): Promise<number> {
  const known = await db
    .selectFrom('refunds')
    .select('id')
    .where('kind', '=', 'payment_refund')
    .execute();
  return Math.max(...known.map((row) => Number(row.id)));
}

/** A payment refund in the mirror with this id, as a sync would have written it. */
async function insertPaymentRefund(db: DaemonFixture['database']['db'], id: number) {
  const now = new Date().toISOString();
  await db
    .insertInto('refunds')
    .values({
      kind: 'payment_refund',
      id: String(id),
      status: 'created',
      upstream_status: 'created',
      amount: 1,
      currency: 'XOF',
      original_id: null,
      mode: 'live',
      reason: null,
      payment_method: null,
      failure_code: null,
      failure_message: null,
      created_at: now,
      updated_at: now,
      raw: '{}',
      first_seen_at: now,
      last_synced_at: now,
    })
    .execute();
}

/**
 * The chaos run could lose a payment refund whose every webhook was dropped: the service has
 * no list of payment refunds. Sweeps now ask about the ids in the gaps of those paysync knows.
 */
describe(`payment refunds no webhook announced, on ${testDialect()}`, () => {
  let fixture: DaemonFixture | undefined;
  afterAll(async () => {
    await fixture?.cleanup();
  });

  it('are found in the gaps of known ids, synced and booked; each gap is asked about once', async () => {
    fixture = await createDaemonFixture();
    const daemon = await fixture.startDaemon(['receiver', 'workers']);
    await fixture.registerWebhook();
    const { sim, client, database } = fixture;
    const intents = [0, 1, 2].map(() => sim.control.createPaymentIntent({ amount: 9_000 }));
    for (const intent of intents) sim.control.settle(intent.id);
    const transfer = sim.control.createTransfer({
      amount: 25_000,
      reference: 'refund-me-too',
      destination: { number: '+221779001234' },
    });
    sim.control.advance(10 * MINUTE);
    await sim.control.webhooksIdle();
    const refundId = async (created: Promise<unknown>) =>
      String(((await created) as { id?: unknown }).id);
    const paymentRefunds = () =>
      database.db.selectFrom('refunds').selectAll().where('kind', '=', 'payment_refund').execute();

    const settle = async () => {
      sim.control.advance(10 * MINUTE);
      await sim.control.webhooksIdle();
    };
    const first = await refundId(client.createPaymentRefund(intents[0]!.id, { amount: 1_000 }));
    await settle();
    // Every webhook of the second one is lost; a transfer refund takes an id in between.
    sim.control.setFaults({ webhookDropRate: 1 });
    const lost = await refundId(client.createPaymentRefund(intents[1]!.id, { amount: 2_000 }));
    const transferRefund = await refundId(
      client.createTransferRefund({ transactionId: transfer.id, reason: 'gap' }),
    );
    await settle();
    sim.control.setFaults({ webhookDropRate: 0 });
    const last = await refundId(client.createPaymentRefund(intents[2]!.id, { amount: 3_000 }));
    await settle();
    await until(
      async () => {
        const rows = await paymentRefunds();
        return rows.length === 2 && rows.every((row) => row.status === 'successful')
          ? rows
          : undefined;
      },
      { message: 'the announced payment refunds in the mirror', timeoutMs: 60_000 },
    );
    expect((await paymentRefunds()).map((row) => row.id).sort()).toEqual([first, last].sort());
    // The ids the simulator gives out increase, which the probe relies on to find anything.
    expect(Number(first) < Number(lost) && Number(lost) < Number(last)).toBe(true);
    expect(Number(lost) < Number(transferRefund)).toBe(true);

    const deps = {
      now: () => new Date(),
      db: database.db,
      upstream: client,
      queues: daemon.queues,
      logger: pino({ level: 'silent' }),
      environment: 'sandbox',
    };
    const gaps = Number(last) - Number(first) - 1; // the lost one, the transfer refund, any other
    expect(await discoverPaymentRefunds(deps)).toEqual({ probed: gaps + 2, found: 1 });
    const stream = paymentRefundProbeStream('sandbox');
    // Every gap has its answer; the id found stays pending until the mirror holds it (its sync
    // job lives in Redis, which could lose it).
    const probedOnce = await readCheckpoint(database.db, stream);
    expect(Number(probedOnce?.position)).toBe(Number(last));
    expect(probedOnce?.detail).toEqual({ pending: [{ id: Number(lost), sweeps: 0 }] });
    const booked = await until(
      async () => {
        const row = await database.db
          .selectFrom('refunds')
          .selectAll()
          .where('kind', '=', 'payment_refund')
          .where('id', '=', lost)
          .executeTakeFirst();
        return row?.status === 'successful' ? row : undefined;
      },
      { message: 'the lost payment refund booked', timeoutMs: 60_000 },
    );
    expect(booked.amount).toBe(2_000);
    const journals = await database.db
      .selectFrom('journals')
      .select('id')
      .where('resource_kind', '=', 'payment_refund')
      .where('resource_id', '=', lost)
      .execute();
    expect(journals).toHaveLength(1);
    const history = await database.db
      .selectFrom('status_history')
      .select(['from_status', 'via'])
      .where('resource_kind', '=', 'payment_refund')
      .where('resource_id', '=', lost)
      .orderBy('id')
      .execute();
    expect(history[0]).toEqual({ from_status: null, via: 'sweep' });

    // The mirror holds it now: no longer pending, and the next sweeps ask only above the highest.
    expect(await discoverPaymentRefunds(deps)).toEqual({ probed: 2, found: 0 });
    expect((await readCheckpoint(database.db, stream))?.detail).toEqual({ pending: [] });
    expect(Number((await readCheckpoint(database.db, stream))?.position)).toBe(Number(last));
    expect(await discoverPaymentRefunds(deps, { budget: 0 })).toEqual({ probed: 0, found: 0 });
  }, 120_000);

  it('spends no more than its budget a sweep and goes on from its watermark', async () => {
    fixture ??= await createDaemonFixture();
    const { database } = fixture;
    const daemon = await fixture.startDaemon(['workers']);
    const deps = {
      now: () => new Date(),
      db: database.db,
      upstream: fixture.client,
      queues: daemon.queues,
      logger: pino({ level: 'silent' }),
      environment: 'live',
    };
    // A payment refund id far above the others: the 29 ids below it are no payment refunds.
    const highest = (await highestPaymentRefund(database.db)) + 100;
    await insertPaymentRefund(database.db, highest);
    expect(await discoverPaymentRefunds(deps, { budget: 10, window: 30, tail: 0 })).toMatchObject({
      probed: 10,
      found: 0,
    });
    const after = await readCheckpoint(database.db, paymentRefundProbeStream('live'));
    expect(Number(after?.position)).toBe(highest - 30 + 10);
  }, 120_000);

  it('queues a pending id again while the mirror lacks it, and gives up after ten sweeps', async () => {
    fixture ??= await createDaemonFixture();
    const { database } = fixture;
    const daemon = await fixture.startDaemon(['workers']);
    const deps = {
      now: () => new Date(),
      db: database.db,
      upstream: fixture.client,
      queues: daemon.queues,
      logger: pino({ level: 'silent' }),
      environment: 'pending-check',
    };
    const stream = paymentRefundProbeStream('pending-check');
    const highest = await highestPaymentRefund(database.db);
    // Two ids a sweep found that never reached the mirror (their sync jobs were lost).
    await database.db
      .insertInto('polling_checkpoints')
      .values({
        stream,
        position: String(highest).padStart(20, '0'),
        detail: JSON.stringify({
          pending: [
            { id: 987_654, sweeps: 3 },
            { id: 987_655, sweeps: 10 },
          ],
        }),
        updated_at: new Date().toISOString(),
      })
      .execute();
    await discoverPaymentRefunds(deps, { tail: 0 });
    expect((await readCheckpoint(database.db, stream))?.detail).toEqual({
      pending: [{ id: 987_654, sweeps: 4 }],
    });
  }, 120_000);
  it('a burst of ids past the window is not passed over: the probe falls behind, says so, and catches up', async () => {
    fixture ??= await createDaemonFixture();
    const { database } = fixture;
    const daemon = await fixture.startDaemon(['workers']);
    const warnings: string[] = [];
    const deps = {
      now: () => new Date(),
      db: database.db,
      upstream: fixture.client,
      queues: daemon.queues,
      logger: pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) }),
      environment: 'burst',
    };
    const stream = paymentRefundProbeStream('burst');
    const position = async () => Number((await readCheckpoint(database.db, stream))?.position);
    const before = (await highestPaymentRefund(database.db)) + 1_000;
    await insertPaymentRefund(database.db, before);
    const options = { budget: 50, window: 30, tail: 0 };
    // The first probe looks back over the window only, up to the highest id.
    expect(await discoverPaymentRefunds(deps, options)).toEqual({ probed: 29, found: 0 });
    expect(await position()).toBe(before);
    // 200 ids given out before the next sweep: more than the window, more than the budget.
    const burst = before + 200;
    await insertPaymentRefund(database.db, burst);
    const sweeps = [];
    for (let sweep = 0; sweep < 4; sweep += 1) {
      const result = await discoverPaymentRefunds(deps, options);
      sweeps.push([result.probed, result.behind, await position()]);
    }
    // Each of the 199 ids between is asked about once, 50 a sweep, from the watermark on.
    expect(sweeps).toEqual([
      [50, 149, before + 50],
      [50, 99, before + 100],
      [50, 49, before + 150],
      [49, undefined, burst],
    ]);
    expect(warnings).toHaveLength(3);
    expect(JSON.parse(warnings[0]!).msg).toBe(
      `payment-refund probe: 149 ids below the highest known payment refund (${burst}) not asked about yet, at 50 a sweep; a payment refund among them whose webhooks were all lost is found only when the probe reaches it: raise PAYSYNC_PAYMENT_REFUND_PROBES or sweep more often`,
    );
  }, 120_000);
});
