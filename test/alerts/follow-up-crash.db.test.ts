import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { consumeAlertFollowUp } from '../../src/alerts/index.ts';
import { addToOutbox, notifyOutbox, outboxJobId } from '../../src/outbox/index.ts';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { testDialect } from '../support/test-database.ts';
import { alertHarness, type AlertHarness } from './support/alert-harness.ts';

/**
 * An alert follow-up is consumed in the transaction that records the alert. The database
 * itself refuses to stamp the outbox row (a trigger, as a crash between the two would leave
 * it): the alert must roll back with the stamp, so the job's retries, once the stamp works,
 * leave one alert seen once, neither lost nor counted again per attempt.
 */
describe(`an alert follow-up whose consumption fails, on ${testDialect()}`, () => {
  let fixture: DaemonFixture | undefined;
  afterAll(async () => {
    await fixture?.cleanup();
  });

  it('is neither lost nor raised twice', async () => {
    fixture = await createDaemonFixture();
    const { db } = fixture.database;
    if (testDialect() === 'postgres') {
      await sql`create function refuse_consumption() returns trigger language plpgsql as $$
        begin raise exception 'simulated crash before the outbox stamp'; end $$`.execute(db);
      await sql`create trigger refuse_consumption before update of consumed_at on outbox
        for each row when (new.consumed_at is not null) execute function refuse_consumption()`.execute(
        db,
      );
    } else {
      await sql`create trigger refuse_consumption before update of consumed_at on outbox
        when new.consumed_at is not null
        begin select raise(abort, 'simulated crash before the outbox stamp'); end`.execute(db);
    }
    const daemon = await fixture.startDaemon(['workers']);
    const added = await db.transaction().execute((trx) =>
      addToOutbox(trx, {
        createdAt: new Date().toISOString(),
        kind: 'alert',
        dedupeKey: 'alert:crash-test',
        payload: {
          reason: 'raise',
          alert: { kind: 'discrepancy', subject: 'tr_crash00001', title: 'crash test' },
        },
      }),
    );
    notifyOutbox();

    // The consumer ran and failed at the stamp, at least once.
    await expect
      .poll(
        async () => (await daemon.queues.followUp.getJob(outboxJobId(added.id)))?.attemptsMade ?? 0,
        { timeout: 30_000, interval: 100 },
      )
      .toBeGreaterThanOrEqual(1);
    await sql`drop trigger refuse_consumption${sql.raw(testDialect() === 'postgres' ? ' on outbox' : '')}`.execute(
      db,
    );

    await expect
      .poll(
        async () =>
          (
            await db
              .selectFrom('outbox')
              .select('consumed_at')
              .where('id', '=', added.id)
              .executeTakeFirst()
          )?.consumed_at ?? null,
        { timeout: 30_000, interval: 100 },
      )
      .not.toBeNull();
    const alerts = await db
      .selectFrom('alerts')
      .select(['title', 'occurrences'])
      .where('subject', '=', 'tr_crash00001')
      .execute();
    expect(alerts).toEqual([{ title: 'crash test', occurrences: 1 }]);
  }, 120_000);
});

describe(`an alert follow-up handed out twice, on ${testDialect()}`, () => {
  let harness: AlertHarness | undefined;
  afterAll(async () => {
    await harness?.cleanup();
  });

  it('consumed by two workers at once, raises its alert once', async () => {
    harness = await alertHarness({});
    const { db } = harness.database;
    const payload = {
      type: 'alert',
      reason: 'raise',
      alert: { kind: 'discrepancy', subject: 'tr_twice000001', title: 'handed out twice' },
    } as const;
    const added = await addToOutbox(db, {
      createdAt: new Date().toISOString(),
      kind: 'alert',
      dedupeKey: 'alert:twice',
      payload,
    });
    const deps = {
      db,
      logger: harness.runtime.logger,
      now: harness.runtime.now,
      alerts: harness.runtime,
    };
    const outcomes = await Promise.all([
      consumeAlertFollowUp(deps, { ...payload, outboxId: added.id }),
      consumeAlertFollowUp(deps, { ...payload, outboxId: added.id }),
    ]);
    expect(outcomes.filter((outcome) => outcome === 'already done')).toHaveLength(1);
    const alerts = await db
      .selectFrom('alerts')
      .select(['title', 'occurrences'])
      .where('subject', '=', 'tr_twice000001')
      .execute();
    expect(alerts).toEqual([{ title: 'handed out twice', occurrences: 1 }]);
  });
});
