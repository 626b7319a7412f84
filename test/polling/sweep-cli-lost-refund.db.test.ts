import { afterAll, describe, expect, it } from 'vitest';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { testDialect } from '../support/test-database.ts';

const MINUTE = 60_000;

async function waitFor<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * `paysync sweep` runs the daemon's sweep task, all of it: besides the intent and transfer
 * lists it probes for payment refunds (which have no list), so one whose every webhook was lost
 * is found by the command too (it once ran only the list sweep).
 */
describe(`paysync sweep finds a payment refund no webhook announced, on ${testDialect()}`, () => {
  let fixture: DaemonFixture | undefined;
  afterAll(async () => {
    await fixture?.cleanup();
  });

  it('queues its sync; the workers book it', async () => {
    fixture = await createDaemonFixture();
    await fixture.startDaemon(['receiver', 'workers']);
    await fixture.registerWebhook();
    const { sim, client, database } = fixture;
    const intents = [0, 1, 2].map(() => sim.control.createPaymentIntent({ amount: 7_000 }));
    for (const intent of intents) sim.control.settle(intent.id);
    const settle = async () => {
      sim.control.advance(10 * MINUTE);
      await sim.control.webhooksIdle();
    };
    await settle();
    const refundId = async (created: Promise<unknown>) =>
      String(((await created) as { id?: unknown }).id);
    const paymentRefund = (id: string) =>
      database.db
        .selectFrom('refunds')
        .selectAll()
        .where('kind', '=', 'payment_refund')
        .where('id', '=', id)
        .executeTakeFirst();

    const first = await refundId(client.createPaymentRefund(intents[0]!.id, { amount: 1_000 }));
    await settle();
    sim.control.setFaults({ webhookDropRate: 1 });
    const lost = await refundId(client.createPaymentRefund(intents[1]!.id, { amount: 2_500 }));
    await settle();
    sim.control.setFaults({ webhookDropRate: 0 });
    const last = await refundId(client.createPaymentRefund(intents[2]!.id, { amount: 3_000 }));
    await settle();
    for (const id of [first, last]) {
      await waitFor(`payment refund ${id} in the mirror`, async () => {
        const row = await paymentRefund(id);
        return row?.status === 'successful' ? row : undefined;
      });
    }
    expect(await paymentRefund(lost)).toBeUndefined();

    const result = await runCli(['sweep'], { env: fixture.env, timeoutMs: 60_000 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^sweep: payment refunds: .*1 found/m);
    const booked = await waitFor('the lost payment refund booked', async () => {
      const row = await paymentRefund(lost);
      return row?.status === 'successful' ? row : undefined;
    });
    expect(booked.amount).toBe(2_500);
    // The sweep is a real process; reading its run back runs in this process (issue 39).
    const runs = await runCliInProcess(['runs', '--json', '--task', 'sweep'], {
      env: fixture.env,
    });
    expect(JSON.parse(runs.stdout)).toMatchObject([
      { task: 'sweep', trigger: 'manual', outcome: 'succeeded' },
    ]);
  }, 120_000);
});
