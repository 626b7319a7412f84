import { afterEach, describe, expect, it } from 'vitest';
import { applyPaymentIntent } from '../../src/ledger/index.ts';
import type { PaymentIntent } from '../../src/upstream/index.ts';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { until } from '../support/until.ts';

let fixture: DaemonFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

describe('janitor in the daemon', () => {
  it('the scheduler fires the janitor task and the workers poll a pending item until it settles, with no webhook', async () => {
    fixture = await createDaemonFixture();
    const { sim, database } = fixture;
    const intent = sim.control.createPaymentIntent({ amount: 4200 });
    // Mirrored two minutes ago while it waited for payment; its first poll is due.
    await applyPaymentIntent(database.db, intent.resource as unknown as PaymentIntent, {
      via: 'poll',
      observedAt: new Date(Date.now() - 2 * 60_000).toISOString(),
    });
    sim.control.advance(1000); // a later version than the one mirrored
    sim.control.settle(intent.id);

    await fixture.startDaemon(['workers', 'scheduler'], { PAYSYNC_JANITOR_CRON: '* * * * * *' });
    const { status } = await until(
      () =>
        database.db
          .selectFrom('payment_intents')
          .select('status')
          .where('id', '=', intent.id)
          .executeTakeFirstOrThrow(),
      {
        accept: (row) => row.status === 'successful',
        message: 'the janitor to mirror the settled intent',
      },
    );
    expect(status).toBe('successful');
    const history = await database.db
      .selectFrom('status_history')
      .select(['to_status', 'via'])
      .where('resource_id', '=', intent.id)
      .orderBy('id')
      .execute();
    expect(history.at(-1)).toEqual({ to_status: 'successful', via: 'poll' });
    const poll = await database.db
      .selectFrom('mirror_polls')
      .select('next_poll_at')
      .where('resource_id', '=', intent.id)
      .executeTakeFirstOrThrow();
    expect(poll.next_poll_at).toBeNull();
  }, 60_000);
});
