import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverRefunds } from '../../src/polling/index.ts';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { testDialect } from '../support/test-database.ts';
import { until } from '../support/until.ts';

const MINUTE = 60_000;

/**
 * The chaos run lost a transfer refund whose three webhooks were all dropped: sweeps listed
 * only intents and transfers. The sweep task now lists the refunds and syncs the unknown ones.
 */
describe(`refunds no webhook announced, on ${testDialect()}`, () => {
  let fixture: DaemonFixture | undefined;
  afterAll(async () => {
    await fixture?.cleanup();
  });

  it('are found by the refund list, synced by id and booked; a second look queues nothing', async () => {
    fixture = await createDaemonFixture();
    const daemon = await fixture.startDaemon(['receiver', 'workers']);
    await fixture.registerWebhook();
    const { sim, client, database } = fixture;
    const transfer = sim.control.createTransfer({
      amount: 25_000,
      reference: 'refund-me',
      destination: { number: '+221779001234' },
    });
    sim.control.advance(10 * MINUTE);
    await until(
      async () => {
        const row = await database.db
          .selectFrom('transfers')
          .select('status')
          .where('id', '=', transfer.id)
          .executeTakeFirst();
        return row?.status === 'successful' ? row : undefined;
      },
      { message: 'the transfer settled in the ledger', timeoutMs: 60_000 },
    );

    // Every webhook of the refund is lost.
    sim.control.setFaults({ webhookDropRate: 1 });
    const created = (await client.createTransferRefund({
      transactionId: transfer.id,
      reason: 'lost webhooks',
    })) as { id?: unknown };
    sim.control.advance(10 * MINUTE);
    await sim.control.webhooksIdle();
    const refundId = String(created.id);
    const refunds = () =>
      database.db.selectFrom('refunds').selectAll().where('id', '=', refundId).executeTakeFirst();
    expect(await refunds()).toBeUndefined();

    const deps = {
      db: database.db,
      upstream: client,
      queues: daemon.queues,
      logger: pino({ level: 'silent' }),
    };
    expect(await discoverRefunds(deps)).toEqual({ listed: 1, unknown: 1, unreadable: false });
    const truth = (await client.getRefund(refundId)) as { status?: string };
    expect(truth.status).toBe('successful');
    const mirrored = await until(refunds, {
      message: 'the refund in the mirror',
      timeoutMs: 60_000,
    });
    expect(mirrored.upstream_status).toBe(truth.status);
    {
      const journals = await database.db
        .selectFrom('journals')
        .select('id')
        .where('resource_kind', '=', 'refund')
        .where('resource_id', '=', refundId)
        .execute();
      expect(journals).toHaveLength(1);
    }
    expect(await discoverRefunds(deps)).toEqual({ listed: 1, unknown: 0, unreadable: false });
  }, 120_000);
});
